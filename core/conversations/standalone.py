"""A student's message read in its conversation, without a model: is it a follow-up, and if so, which standalone
question does it stand for?

A message that the gate answers alone and names a matter of its own the previous question does not name
(「那转班要钱吗」 after a refund question, or the matter's verb with a thing of its own: 「那教材费退不退」), or that names a
level and a thing of its own after a question with no level (「三级几节课」), stays as it is (`STAY_RULES`), however
short. Otherwise it is a follow-up only when it does not stand on its own (`FOLLOW_UP_RULES`): it is short and opens
with 那/那么/还有/这个/那个 or ends with 呢; it is short and points back (「线上班也是吗」); it only asks and names at
most two characters of its own (「多久到账？」「要什么证明」); it asks only about a thing that needs an owner
(「差价是多少」「要哪种医院的证明」); it asks nothing and only tells a figure of the student's (「医生说可能要半年」); its
first clause 「X呢，」 names a word in place of one the previous question names (「退费呢，能帮我办不」); or it would not
pass the gate alone (the caller says; this module runs no gate).
A message that opens with a word turning to another matter (「对了」「顺便问一下」) and asks stays as it is too.
Anything else is a topic switch and is never rewritten; after a refused turn nothing is carried over; courtesy
(「好的谢谢」) is left as it is.

Before any of that, a level named relative to the previous question's (「往上一级」「最高那级」) becomes that level's name
(`relative_level`), a phrase pointing back at one thing the previous question names is replaced by it (「这个级别」 →
its level: `refer_back`), and 「反过来呢」 swaps the previous question's two levels (`reverse`); the message so read is
the standalone question. A message opening with 换成 / 改成 (`swap_opener`) changes the previous question: no stay rule
applies to it. Any other follow-up becomes one by the swaps of core.conversations.swaps (`SWAPS`, in order);
when none applies, another situation (「那要是…呢」) takes the place of the previous question's situation clauses
(`condition_swap`). A rewrite that only gives back the message itself (「二级多少钱」 + 「三级多少课时」, or the message
without its 那 and 呢) is no rewrite.
After all of that, the words the previous answer used (`Turn.answer_words`, core.conversations.answered) add two
readings: a message left as it is that asks about a thing only the answer named is asked in the previous subject
(`within_answer`: 「退款多久能到账」 + 「是原路退吗」), and a follow-up of a question naming no matter gets the one matter the
answer's reply names (`answer_matter`: 「生病来不了课咋整」 + 「最多能停多久」 → 「保留学籍，…」). Each rule is named and can
be switched off (XIAOE_FOLLOWUP_RULES), so its worth can be measured.

Left out: the gate itself, any model (the optional guarded model rewrite is core.conversations.model_rewrite's), storage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from core.case.asked import read_asked
from core.case.figures import LEVEL
from core.case.kinds import level_number
from core.case.spans import figure_spans
from core.conversations.answered import held_by_answer
from core.conversations.subjects import new_subjects, subjects
from core.conversations.swaps import (
    END,
    SWAPS,
    Draft,
    asks,
    asks_any,
    named_matters,
    no_topic,
    own_words,
    strip_marks,
    subject,
)
from core.conversations.text import PUNCT, compact, find, level_spans, without
from core.conversations.words import interchangeable, number, slot_groups, words, words_starting
from core.errors import ConfigError
from core.values.conversations import (
    AFTER_REFUSAL,
    COURTESY,
    FIRST,
    FOLLOW_UP,
    OWN_QUESTION,
    TOPIC_SWITCH,
    Standalone,
    Turn,
)
from core.values.facts import NO_FACTS, Level, SchoolFacts

__all__ = ["FOLLOW_UP_RULES", "RULE_NAMES", "STAY_RULES", "SWAPS", "level_spans", "parse_rules", "read_in_context",
           "subject"]


def _blank_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    for start, end, _ in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _bare(text: str) -> str:
    return re.sub(rf"[{re.escape(PUNCT)}]", "", text)


def _asking_aside(text: str) -> str:
    """`text` without punctuation and generic asking words: what it names (「四级学费多少钱」 → 「四级学费」)."""
    return compact(without(_bare(text), words("asking")))


# -- does it stay as it is? ------------------------------------------------------------------------------------------

def _leads_with_swap(message: str, previous: str) -> bool:
    """Its first clause ends with 呢 or 的话 and names a word of a group (core/data/followup_words.txt slot.*) another
    word of which the previous question names, and another clause follows: 「退费呢，能帮我办不」 after 「小E能帮我直接
    报名吗」 asks the previous question of 退费."""
    clauses = [c for c in _CLAUSES.split(message) if c]
    # 「线上的话多少」: 的话 ends the first clause without a comma too
    head, said, tail = clauses[0].partition("的话") if clauses else ("", "", "")
    if said and head and tail:
        clauses[:1] = [head + said, tail]
    if len(clauses) < 2 or not clauses[0].endswith(tuple(_bare(w) for w in words("closer"))):
        return False
    for _, listed in slot_groups():
        named = [w for _, _, w in find(clauses[0], listed)]
        if named and any(w not in named for _, _, w in find(previous, listed)):
            return True
    return False


def own_subject(message: str, stands_alone: bool, previous: str, facts: SchoolFacts = NO_FACTS) -> bool:
    """The gate answers it alone, it asks, and it names a matter the previous question does not (「那转班要钱吗」
    after 「我交了5600上了3节能退多少」): a new question, whatever its length or its 那."""
    if not stands_alone or not asks(message) or _leads_with_swap(message, previous):
        return False
    matters = dict(slot_groups()).get("matter", ())
    if any(word not in previous for _, _, word in find(message, matters)) and not points_back(message, True):
        return True  # 「退费也能帮我办吗」 after 「小E能帮我直接报名吗」 asks the same of another matter: a follow-up
    # a matter named by its verb (「那教材费退不退」 after 「二级适合什么水平」): new when the message names a thing of its
    # own (a level, or a subject: core.conversations.subjects) and none has a counterpart in the previous question to
    # swap (「转二级呢，是退钱吗」 after 「转到四级要补多少」 swaps a level; 「领了能退吗」 names no thing of its own, nor
    # does 「互转要钱吗」: a kind of transfer is how, not what)
    if find(message, words("anaphor")) or not any(verb not in previous
                                                  for _, _, verb in find(message, words("matter_verb"))):
        return False
    named = [(listed, bool(find(message, listed))) for _, listed in slot_groups()]
    if not level_spans(message, facts) and not subjects(message, facts):
        return False
    if level_spans(message, facts) and level_spans(previous, facts):
        return False
    return not any(hit and find(previous, listed) for listed, hit in named)


def own_level(message: str, _stands_alone: bool, previous: str, facts: SchoolFacts = NO_FACTS) -> bool:
    """It names a level the previous question has no level to swap for, and asks a thing of its own about it
    (「三级几节课」 after 「保留学籍最长多久」): a question of its own, even when the gate refuses it alone. A level with
    only an asking (「那三级呢」「三级能退多少」) or pointing back (「三级也这样吗」) is still a follow-up."""
    named = level_spans(message, facts)
    if not named or level_spans(previous, facts) or find(message, words("anaphor")):
        return False
    if not asks_any(strip_marks(message, (), words("closer"))):  # 「要是从二级转到三级呢」: a closing 呢 asks nothing
        return False
    rest = _blank_spans(message, named)
    return bool(compact(without(rest, words("asking") + words("asks") + words("predicate") + words("filler")
                                + words("opener") + words("closer"))))


def _told(message: str, facts: SchoolFacts) -> bool:
    """The message tells a figure of the student's own (「公司派我出去7个月 够不够」): it asks about their case."""
    return any(f.kind != LEVEL for f in figure_spans(message, facts.level_numbers or None))


def new_subject(message: str, _stands_alone: bool, previous: str, facts: SchoolFacts = NO_FACTS) -> bool:
    """It asks, and it names a thing of its own the previous question does not name (core.conversations.subjects:
    「那教材另外收钱不」 after 「四级学费多少」, 「那怎么转人工」 after a refund, 「测试完可以直接报三级吗」 after a level's
    audience): it has its own subject and its own asking, so nothing is missing to take from the previous question —
    a new question, even when it opens with 那 or ends with 呢, and even when the gate refuses it alone (then it is
    refused as the student wrote it). Pointing back (「线上班也是吗」) is never one."""
    if not asks(message) or find(message, words("anaphor")) or _told(message, facts) or _leads_with_swap(message,
                                                                                                        previous):
        return False
    if _owned_by_previous(message, previous, facts):
        return False  # 「证明要几级医院开的」 after 「保留学籍要交什么材料」: whose certificate is the previous matter's
    return bool(new_subjects(message, previous, facts))


def _owned_by_previous(message: str, previous: str, facts: SchoolFacts) -> bool:
    """The message asks about a thing that needs an owner (`relational`: 证明, 材料 …), names no matter, matter verb or
    level of its own, and the previous question names a matter: the thing is that matter's, whatever else the message
    names about it (「证明要哪种医院开的」)."""
    groups = dict(slot_groups())
    matters = groups.get("matter", ())
    named = without(message, tuple(w for w in read_asked(message).words if w))  # 「多少钱」 asks; its 钱 is no thing
    if not find(named, words("relational")) or find(message, matters + groups.get("fee", ())) \
            or find(message, words("matter_verb")):
        return False
    return not level_spans(message, facts) and bool(find(previous, matters) or find(previous, words("matter_verb")))


def full_question(message: str, stands_alone: bool, previous: str, facts: SchoolFacts = NO_FACTS) -> bool:
    """The gate answers it alone, it names a thing or a level (even one the previous question names) and asks a kind
    of thing the previous question did not ask (core.case.asked): 「那线下班一个班几个人」 after 「线上班是不是比线下
    便宜」, 「四级学费多少来着」 after 「二级转三级怎么补钱」. A level asked the previous question's way (「三级能退多少」
    after 「我交了4800上了4节能退多少」) is still a follow-up."""
    if not stands_alone or not asks(message) or find(message, words("anaphor")):
        return False
    if not subjects(message, facts) and not level_spans(message, facts) or _owned_by_previous(message, previous, facts):
        return False
    mine, theirs = set(read_asked(message).kinds) - {"yes_no"}, set(read_asked(previous).kinds) - {"yes_no"}
    return bool(mine) and not mine & theirs


def topic_opener(message: str, stands_alone: bool, _previous: str, _facts: SchoolFacts = NO_FACTS) -> bool:
    """It opens with a word that turns to another matter (`topic_opener`: 对了, 顺便问一下), asks, and the gate answers
    it alone or names more of its own than a bare asking (「对了，能先试听一节不」): 「对了 你们一周上几次课」 after
    「四级的教材费是多少」 is a question of its own, however short; 「对了」 alone asks nothing, and 「对了 要多久」
    names nothing the documents could be searched for."""
    body = _bare(message).lstrip()
    opener = next((w for w in words("topic_opener") if body.startswith(w)), "")
    # 「还有，因病保留学籍要什么证明」: 还有 set off by a comma (or a space: 「还有 退的钱几天能到啊」) turns to a question of
    # its own when it asks more than a closing 呢 (「还有教材费呢」「还有 教材费呢」 do not)
    set_off = "" if opener else next(
        (w for w in words("comma_opener") if re.match(rf"{w}(?:\s*[，,]|\s+)", message.lstrip())), "")
    opener = opener or set_off
    rest = body[len(opener):]
    if not opener or not asks_any(strip_marks(rest, (), words("closer")) if set_off else rest):
        return False
    # the gate answers it, or it names more of its own than a bare asking does (「对了，能先试听一节不」: the gate refuses
    # it, as a question of its own, not as one about the previous question's matter)
    return stands_alone or len(own_words(rest)) > number("bare_ask")


STAY_RULES: tuple[tuple[str, Callable[[str, bool, str, SchoolFacts], bool]], ...] = (
    ("topic_opener", topic_opener),
    ("own_subject", own_subject),
    ("own_level", own_level),
    ("new_subject", new_subject),
    ("full_question", full_question),
)


# -- is it a follow-up? ---------------------------------------------------------------------------------------------

def short_marker(message: str, _stands_alone: bool, _facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """Short, and opens with 那/那么/还有/这个/那个 or ends with 呢: 「那三级呢」「还有教材费」."""
    bare = _bare(message)
    if len(bare) > number("short"):
        return False
    return bare.startswith(words("opener")) or bare.endswith(tuple(_bare(w) for w in words("closer")))


def points_back(message: str, _stands_alone: bool, _facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """Short, and points back with 也/同样/照样: 「线上班也是吗」「前台也行吗」「第三次也收？」."""
    return len(_bare(message)) <= number("short") and bool(find(message, words("anaphor")))


def bare_ask(message: str, _stands_alone: bool, _facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """It asks and names almost nothing of its own (asking, predicate and filler words aside): 「多久到账？」 after a
    refund answer, 「要什么证明」 after a question about keeping one's place, even when the gate finds a passage."""
    return asks(message) and len(own_words(message)) <= number("bare_ask")


def relational(message: str, _stands_alone: bool, facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """It asks about a thing that only exists in relation to a matter (`relational` words: 证明, 差价, 手续费, 总课时,
    到账) and names no matter or level of its own: 「要开什么证明」「差价是多少」 ask about the previous question's
    matter, even when the gate answers them alone; 「教材费能退吗」 names a thing of its own and stays."""
    matters = dict(slot_groups()).get("matter", ())
    if not asks_any(message) or not find(message, words("relational")) or find(message, matters):
        return False
    if level_spans(message, facts):
        return False
    return len(own_words(message, words("relational") + words("closer"))) <= number("bare_ask") \
        or _owned_by_previous(message, previous, facts)


def situation(message: str, _stands_alone: bool, facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """It asks nothing and only tells the student's situation with a figure the case reader reads (「医生说可能要半年」
    「我之前已经转过一次了」「要是其实只付了5000呢」: a closing 呢 asks nothing): the figure goes into the previous
    question."""
    if any(asks_any(strip_marks(clause, (), words("closer"))) for clause in _CLAUSES.split(message) if clause):
        return False  # 「要是我付的是3300呢，用了券」: each clause's closing 呢 asks nothing
    return any(f.kind != LEVEL for f in figure_spans(message, facts.level_numbers or None))


def no_subject(message: str, _stands_alone: bool, facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """It asks and names no thing of its own (core.conversations.subjects): only what is asked, the steps of a matter
    or its figures (「审核要几天」「互转要钱不」「去哪里申请」「收费不」). After a question that names something, it asks
    about that, even when the gate answers it alone. The student's figures asked with a matter's verb are a question of
    their own (「我交了4800上了4节能退多少」 after 「保留学籍最长多久」, 「我上了6节能退吗」 after 「退费怎么申请」) unless the
    previous question told the student's figures about the same matter: then they add to that case."""
    if not asks_any(message) or new_subjects(message, previous, facts) or not subjects(previous, facts) and not level_spans(
            previous, facts):
        return False
    verbs = [verb for _, _, verb in find(message, words("matter_verb"))]
    if not _told(message, facts) or not verbs:
        return True
    # figures of the student's asked with a matter's verb: a case of its own, unless it adds to the case the previous
    # question told about the same matter, with figures or with the reason for it (「交了5600 能退多少」 after
    # 「我上了7节了，退费……」, 「要走8个月能保留吗」 after 「工作调动申请保留学籍要交什么证明」)
    told = _told(previous, facts) or bool(find(previous, dict(slot_groups()).get("reason", ())))
    return told and all(verb in previous for verb in verbs)


def lead_swap(message: str, _stands_alone: bool, _facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """It opens with a clause 「X呢，」 naming a word that takes the place of one the previous question names (see
    `_leads_with_swap`): 「退费呢，能帮我办不」 after 「小E能帮我直接报名吗」, even when the gate answers it alone."""
    return _leads_with_swap(message, previous)


def not_alone(_message: str, stands_alone: bool, _facts: SchoolFacts = NO_FACTS, previous: str = "") -> bool:
    """The gate would not answer it alone: 「第二次呢」 names nothing the documents could be searched for."""
    return not stands_alone


FOLLOW_UP_RULES: tuple[tuple[str, Callable[..., bool]], ...] = (
    ("short_marker", short_marker),
    ("points_back", points_back),
    ("bare_ask", bare_ask),
    ("relational", relational),
    ("situation", situation),
    ("no_subject", no_subject),
    ("lead_swap", lead_swap),
    ("not_alone", not_alone),
)
CONDITION = "condition"  # another situation (「那要是…呢」) in place of the previous question's situation clauses
SEQUEL = "sequel"  # a later step of the previous question's subject (「审核通过以后呢」) asked the previous question's way
REVERSE = "reverse"  # 「反过来呢」: the previous question's two levels (or two words of a group) swapped
REFER = "refer"  # a phrase pointing back (「这个级别」) is the one word of its group the previous question names
KEEPS_SUBJECT = "keeps_subject"  # a rewrite that drops a thing the message names is no rewrite (「测试完可以直接报三级吗」)
SWAP_OPENER = "swap_opener"  # a message opening with 换成/改成 changes the previous question: no stay rule applies
MISSPELT = "misspelt"  # a place asked with 那 for 哪 (「在那办」) read as 哪, when the message asks nothing else
RELATIVE = "relative"  # a level named relative to the previous question's (往上一级, 最高那级) is that level
WITHIN = "within_answer"  # a thing the previous answer brought in (「是原路退吗」) is asked in the previous subject
ANSWER_MATTER = "answer_matter"  # the matter the previous answer named, when neither question names one
QUALIFIED = "qualified"  # 「没拆封的也不退？」: a kind of the previous question's thing, asked the same way
FRONT = "front"  # the last resort: a short word no swap knows goes in front of the previous question (「那雅思班呢」)
RULE_NAMES = ((MISSPELT, RELATIVE, REFER, REVERSE, SWAP_OPENER) + tuple(name for name, _ in STAY_RULES) + tuple(name for name, _ in FOLLOW_UP_RULES)
              + tuple(name for name, _ in SWAPS) + (CONDITION, SEQUEL, FRONT, KEEPS_SUBJECT, WITHIN, ANSWER_MATTER,
                 QUALIFIED))


def parse_rules(spec: str | None) -> frozenset[str]:
    """XIAOE_FOLLOWUP_RULES: "" every rule, "none" no follow-up at all, "-asked,-slots" all but these, or the ones to keep."""
    text = (spec or "").strip()
    if not text:
        return frozenset(RULE_NAMES)
    if text == "none":
        return frozenset()
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n.lstrip("-") for n in names if n.lstrip("-") not in RULE_NAMES]
    if unknown:
        raise ConfigError(f"XIAOE_FOLLOWUP_RULES 里有不认识的规则：{'、'.join(unknown)}。可用的有：{'、'.join(RULE_NAMES)}。")
    off = [n[1:] for n in names if n.startswith("-")]
    if off and len(off) != len(names):
        raise ConfigError("XIAOE_FOLLOWUP_RULES 要么全部带 -（关掉这些），要么一个都不带（只启用这些）。")
    return frozenset(RULE_NAMES) - set(off) if off else frozenset(names)


# -- pointing back at one thing of the previous question ---------------------------------------------------------

def refer_back(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> str:
    """`message` with a phrase pointing back at one group's word (`refer.<group>`: 这个级别, 这种班型) replaced by the
    one word of that group the previous question names: 「那这个级别每周要上几节」 after 「八周能学完一级吗」 →
    「一级每周要上几节」. "" when it has no such phrase, or the previous question names none or several of them
    (「二级转三级」: which one is meant cannot be told). 「在里面」 (`refer.subject`) is the previous question's subject
    (core.conversations.swaps.subject): 「教材含在里面不」 after 「三级学费多少呀」 → 「教材含在三级学费里面不」. The 人 of
    「还有人吗」 (`refer.staff`) is the staff the previous question names (`staff`: 人工客服, 人工 …)."""
    groups = dict(slot_groups())
    for name, phrases in words_starting("refer."):
        spans = find(message, phrases)
        if not spans:
            continue
        start, end, phrase = spans[0]
        if name == "subject":  # 「在里面」 → 在 + the previous question's subject + 里面
            topic = subject(previous, facts)
            if no_topic(topic):
                return ""
            resolved = message[:start] + phrase[0] + topic + phrase[1:] + message[end:]
            return strip_marks(resolved, words("opener"), ()).strip()
        if name == "staff":  # 「还有人吗」: the 人 is the staff the previous question names (人工客服)
            named = find(previous, words("staff"))
            replaced = phrase.replace("人", named[0][2], 1) if len({w for _, _, w in named}) == 1 else ""
        else:
            if name == "level" and level_spans(phrase, facts) and not compact(without(
                    message[:start] + message[end:], words("opener") + words("closer"))):
                return ""  # 「那一级呢」 alone asks of 一级, not of the level just named: a pointer asking nothing
            named = level_spans(previous, facts) if name == "level" else find(previous, groups.get(name, ()))
            replaced = named[0][2] if len({word for _, _, word in named}) == 1 else ""
        if not replaced:
            return ""
        resolved = message[:start] + replaced + message[end:]
        return strip_marks(resolved, words("opener"), ()).strip()
    return ""


# -- a level named relative to the previous question's ------------------------------------------------------------

def relative_level(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> str:
    """`message` with a level named relative to the previous question's (`relative.<direction>`: 往上一级, 低一级,
    最高那级) replaced by that level's name from the documents: 「往上一级的呢」 after 「进阶级适合什么人」 →
    「流利级的呢」, read on as any follow-up naming a level. Up and down need the previous question to name one level
    and the message none; the highest and the lowest need the previous question to speak of levels (级). The message
    as it is when nothing applies (「转到高一级呢」 after 「转到低一级的班会退钱吗」 names no level to count from)."""
    levels = sorted(facts.levels, key=lambda lv: lv.number)
    relative = find(message, tuple(w for _, phrases in words_starting("relative.") for w in phrases))
    # a level named inside a relative phrase (一级 of 「最高那一级」) is the phrase's, not a level of the message's own
    own = [(s, e) for s, e, _ in level_spans(message, facts) if not any(rs <= s and e <= re_ for rs, re_, _ in relative)]
    if not levels or own or find(message, words("relative_asks_name")):
        return message  # 「最高那级叫啥」 asks which level it is: naming it would answer the question
    named = {n for _, _, word in level_spans(previous, facts) if (n := level_number(word, facts)) is not None}
    for direction, phrases in words_starting("relative."):
        spans = find(message, phrases)
        if not spans:
            continue
        found: Level | None
        if direction in ("top", "bottom"):
            found = (levels[-1] if direction == "top" else levels[0]) if "级" in previous else None
        else:
            wanted = next(iter(named)) + (1 if direction == "up" else -1) if len(named) == 1 else None
            found = next((lv for lv in levels if lv.number == wanted), None)
        if found is None:
            return message
        start, end, _ = spans[0]
        return message[:start] + found.name + message[end:]
    return message


# -- another situation for the same question --------------------------------------------------------------------

_CLAUSES = re.compile(r"[，,；;。\s]+")


def _described(message: str) -> bool:
    """It ends as a description of the student (「…的呢」「…的话呢」): 几 in it is 「a few」, not an asking."""
    return message.rstrip(END + " ").endswith(tuple("的" + _bare(w) for w in words("closer")))


def condition_swap(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> str:
    """A follow-up that only sets another situation (「那要是能简单日常对话了呢」「如果是公司派我去外地呢」: a `condition`
    word, no asking) put in place of the previous question's clauses that ask nothing: 「孩子完全零基础 该报哪一级」 →
    「能简单日常对话了，该报哪一级」. "" when the message asks, names no situation, or the previous question has no
    clause that asks nothing, or none that asks, or one of its clauses that ask nothing tells the student's figures."""
    body = strip_marks(message, (), words("closer")).strip()
    condition = next((w for w in words("condition") if body.startswith(w)), "")
    # 「能进行简单日常对话的呢」: a description of the student ending in 的 sets a situation without 要是 too
    described = _described(message)
    situation = compact(body[len(condition):]).removeprefix("是") if condition or described else ""
    # 「能说几句日常对话的呢」 describes the student: 几 there is 「a few」, asked only when the what-is-asked reader reads it
    if not situation or (asks(situation) if described else asks_any(situation)):
        return ""
    clauses = [c for c in _CLAUSES.split(strip_marks(previous, words("opener"), ()).strip()) if c]
    asking = [c for c in clauses if asks_any(c)]
    if len(clauses) == 1 and asking and described:
        # one clause (「零基础该报哪级」): its subject is the situation the description takes the place of
        kept = subject(clauses[0], facts)
        rest = clauses[0][len(kept):] if kept and clauses[0].startswith(kept) else ""
        return situation + "，" + rest if rest and asks_any(rest) and not _told(kept, facts) else ""
    if not asking or len(asking) == len(clauses) or any(_told(c, facts) for c in clauses if c not in asking):
        return ""  # a clause telling the student's figures (「我付了4200上了4节」) is theirs to keep, not a situation
    return situation + "，" + "，".join(asking)


def sequel(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> str:
    """A follow-up that only tells a later step (a `sequel` word: 以后, 完, 过了) of a word the previous question's
    subject names, asking nothing: the previous question's asking, asked of that step, with the subject's matter in
    front — 「退费审核要几天」 + 「审核通过以后呢」 → 「退费审核通过以后要几天？」. "" otherwise (the message asks, tells a
    figure, names no sequel or shares no word with the previous subject)."""
    body = compact(strip_marks(message, words("opener"), words("closer")))
    if not body or asks_any(body) or not find(body, words("sequel")) or _told(body, facts):
        return ""
    last = next(reversed([c for c in _CLAUSES.split(strip_marks(previous, words("opener"), ()).rstrip(END + " ")) if c]),
                "")
    kept = subject(last, facts) if last else ""
    # the subject as said (「退费审核」 of 「退费审核要几个工作日」, whose subject also names the 工作日 counted)
    said = next((kept[:n] for n in range(len(kept), 1, -1) if kept[:n] in last), "")
    if not said or not any(body[i:i + 2] in said for i in range(len(body) - 1)):
        return ""
    asking = last[last.find(said) + len(said):]
    if not asks_any(asking):
        return ""
    matters = [w for _, _, w in find(said, dict(slot_groups()).get("matter", ())) if w not in body]
    return "".join(matters[:1]) + body + asking + "？"


def reverse(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> str:
    """A message that only says the other way round (`reverse`: 「反过来呢」) after a question naming two levels (or two
    words of one group) in order: the previous question with the two swapped (「从二级转到三级要补多少钱」 →
    「从三级转到二级要补多少钱」; 「线下转线上收费吗」 + 「反过来转要钱不」 → 「线上转线下收费吗」). "" otherwise."""
    rest = compact(without(strip_marks(message, words("opener"), words("closer")), words("reverse")))
    # what is left may only ask yes or no as the previous question did (「反过来转要钱不」), nothing of its own
    asks_more = rest and (read_asked(rest).kinds not in ((), ("yes_no",)) or len(own_words(rest)) > number("bare_ask"))
    if asks_more or not find(message, words("reverse")):
        return ""
    for named in [level_spans(previous, facts), *(find(previous, listed) for _, listed in slot_groups())]:
        if len(named) == 2 and named[0][2] != named[1][2]:
            (s1, e1, w1), (s2, e2, w2) = named
            return previous[:s1] + w2 + previous[e1:s2] + w1 + previous[e2:]
    return ""


# -- a thing the previous answer brought in -------------------------------------------------------------------

_LATIN = re.compile(r"[A-Za-z]")


def within_answer(message: str, previous: Turn, facts: SchoolFacts = NO_FACTS) -> str:
    """A message that would stay as it is, asking about things of its own that the previous question never named but
    its answer did (core.conversations.answered: `previous.answer_words`), asks about them within the previous
    question's subject: 「退款多久能到账」 (answered 「…原路退回」) + 「是原路退吗」 → 「退款，是原路退吗」;
    「工作调动申请保留学籍要啥证明」 (answered 「…需提供单位证明」) + 「单位开的就行吗」 → 「工作调动保留学籍，单位开的
    就行吗」. "" when the previous turn kept no answer words, the message asks nothing, turns to another matter
    (「对了」), names a level, a matter the previous question does not name, or a word of the interchangeable groups
    (a swap's, not this rule's: 「教材费能退吗」 after a refund question that the answer mentions 教材费 in), or a Latin
    word (App, 小E: who or where it asks, a question of its own), or only asks how many there are (「一共有几个级别呢」),
    or when one of its things is not the answer's."""
    if not previous.answer_words or not asks_any(message) or topic_opener(message, True, previous.standalone, facts):
        return ""
    if level_spans(message, facts) or find(message, interchangeable()):
        return ""
    if read_asked(message).kinds == ("count",):  # 「一共有几个级别呢」: how many there are is asked of the documents
        return ""
    own = new_subjects(message, previous.standalone, facts)
    if not own or any(_LATIN.search(w) or not held_by_answer(w, message, previous.answer_words) for w in own):
        return ""
    topic = subject(previous.standalone, facts).rstrip("，,")
    body = strip_marks(message, words("opener"), words("closer")).strip()
    return f"{topic}，{body}" if topic and body else ""


def _answer_matters(previous: Turn, sentences: tuple[tuple[str, ...], ...]) -> set[str]:
    """The matters (slot.matter) `sentences` of the previous answer name that the previous question does not, not
    even in part (人工 of 转人工)."""
    return {w for sentence in sentences for phrase in sentence
            for _, _, w in find(phrase, dict(slot_groups()).get("matter", ()))
            if not any(w[i:i + 2] in previous.standalone for i in range(len(w) - 1))}


def answer_matter(message: str, question: str, previous: Turn, facts: SchoolFacts = NO_FACTS) -> str:
    """A follow-up about the matter the previous answer named and the previous question did not, the matter put in
    front: after 「生病来不了课咋整」 (answered with 保留学籍), 「最多能停多久」 read as 「生病来不了课最多能停多久」 becomes
    「保留学籍，生病来不了课最多能停多久」, when neither that rewrite nor the previous question names a matter, a fee or a
    class type of its own (「二级学费多少」 is about its fee, whatever else its answer mentions);
    after 「能跳级吗」 (answered with 分级测试), 「测一下要多久」 — a verb (`verb_like`) inside the answer's matter and not
    inside the previous question's — asks about that matter: 「分级测试，测一下要多久」. "" otherwise."""
    verbs = [w for _, _, w in find(message, words("verb_like"))
             if not any(w in m for m in named_matters(previous.standalone))]
    inside = {m for m in _answer_matters(previous, previous.answer_words) if any(v in m for v in verbs)}
    if len(inside) == 1:  # 「测一下要多久」 after an answer saying 分级测试: that matter, whichever sentence says it
        return f"{inside.pop()}，{strip_marks(message, words('opener'), words('closer')).strip()}"
    # the reply itself (the answer's first sentence) names one matter; a previous question naming a fee, a class type
    # or a matter (「二级学费多少」) is about that, whatever else its answer mentions (「…开课前申请退费…」)
    reply = _answer_matters(previous, previous.answer_words[:1])
    groups = dict(slot_groups())
    named = find(previous.standalone, tuple(w for name in ("fee", "class") for w in groups.get(name, ())))
    if len(reply) != 1 or named or level_spans(previous.standalone, facts) or named_matters(previous.standalone) \
            or named_matters(question):
        return ""
    return f"{reply.pop()}，{question}"


def qualified(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> str:
    """A message opening with a description ending in 的 that names nothing of its own (no thing, level, figure or
    interchangeable word: 「前台交的也一样吗」 swaps the channel),
    followed by a word pointing back (`anaphor`: 也, 还): the same asked of that kind of the previous question's last
    thing — 「教材费退不退啊」 + 「没拆封的也不退？」 → 「没拆封的教材费也不退？」. "" otherwise."""
    head, de, rest = strip_marks(message, words("opener"), ()).partition("的")
    if not de or not head.strip() or not rest.lstrip().startswith(words("anaphor")) or subjects(head, facts) \
            or level_spans(head, facts) or find(head, interchangeable()) or _told(head, facts) or asks_any(head):
        return ""
    things = subjects(previous, facts)
    return f"{head}的{things[-1]}{rest}" if things else ""


# -- reading a message in its conversation ----------------------------------------------------------------------

def _courtesy(message: str) -> bool:
    bare = _bare(message).lower()
    return bool(bare) and not compact(without(bare, words("courtesy")))


def _misspelt(message: str) -> str:
    """`message` with a place asked with 那 for 哪 (`misspelt`: 「在那办」「在那申请」) spelt with 哪, when it asks
    nothing else; the message as it is otherwise."""
    spans = find(message, words("misspelt"))
    if not spans or asks_any(message):
        return message
    for start, end, word in sorted(spans, reverse=True):
        message = message[:start] + word.replace("那", "哪", 1) + message[end:]
    return message


def read_in_context(message: str, previous: Turn | None, *, stands_alone: bool, facts: SchoolFacts = NO_FACTS,
                    rules: frozenset[str] = frozenset(RULE_NAMES)) -> Standalone:
    """The standalone question `message` stands for after `previous` (None: the first message, or the context expired):
    the rules above on the previous question without a clause that only turned to it (`_aside_dropped`); then, with
    the previous answer's words, `answer_matter` for a follow-up and `within_answer` for a message left as it is."""
    if previous is not None and (plain := _aside_dropped(previous.standalone)) != previous.standalone:
        previous = replace(previous, standalone=plain)  # 「还有个事，…」: what the previous question asked is the rest
    read = _read(message, previous, stands_alone=stands_alone, facts=facts, rules=rules)
    if previous is None or not previous.answer_words:
        return read
    if read.kind == FOLLOW_UP and ANSWER_MATTER in rules and (about := answer_matter(message, read.question, previous, facts)):
        return replace(read, question=about, rules=read.rules + (ANSWER_MATTER,))
    if read.kind not in (TOPIC_SWITCH, OWN_QUESTION) or read.rewritten or WITHIN not in rules:
        return read
    asked = within_answer(message, previous, facts)
    return Standalone(message, asked, FOLLOW_UP, (WITHIN,), previous.message_id) if asked else read


def _aside_dropped(question: str) -> str:
    """`question` without a first clause that only turns to it (`aside_clause`, `topic_opener`, `comma_opener`:
    「对了，」「还有个事，」), or as it is."""
    head, comma, rest = question.partition("，") if "，" in question else question.partition(",")
    asides = words("aside_clause") + words("topic_opener") + words("comma_opener")
    return rest.strip() if comma and rest.strip() and _bare(head).strip() in asides else question


def _read(message: str, previous: Turn | None, *, stands_alone: bool, facts: SchoolFacts,
          rules: frozenset[str]) -> Standalone:
    if previous is None:
        return Standalone(message, message, FIRST)
    if previous.refused:
        return Standalone(message, message, AFTER_REFUSAL)
    if _courtesy(message):
        return Standalone(message, message, COURTESY)
    said = message
    reread: tuple[str, ...] = ()  # the readings that changed the message before any rule (relative, misspelt)
    if MISSPELT in rules and (spelt := _misspelt(message)) != message:
        message, reread = spelt, (MISSPELT,)
    if RELATIVE in rules and (related := relative_level(message, previous.standalone, facts)) != message:
        message, reread = related, reread + (RELATIVE,)

    def stays(kind: str) -> Standalone:
        """The message as it reads on its own — with a relative level resolved, which is then the rewrite."""
        if message != said:
            return Standalone(said, message, FOLLOW_UP, reread, previous.message_id)
        return Standalone(said, message, kind)

    for name, point in ((REFER, refer_back), (REVERSE, reverse), (QUALIFIED, qualified)):  # pointing back
        pointed = point(message, previous.standalone, facts) if name in rules else ""
        if pointed:
            return Standalone(said, pointed, FOLLOW_UP, reread + (name,), previous.message_id)
    # 「换成三级转四级」 changes the previous question, whatever the stay rules say
    swapping = SWAP_OPENER in rules and _bare(message).lstrip().startswith(words("swap_opener"))
    if not swapping and any(name in rules and rule(message, stands_alone, previous.standalone, facts)
                            for name, rule in STAY_RULES):
        return stays(TOPIC_SWITCH)
    if not swapping and not any(name in rules and rule(message, stands_alone, facts, previous=previous.standalone)
                                for name, rule in FOLLOW_UP_RULES):
        return stays(TOPIC_SWITCH)
    if CONDITION in rules and _described(message) and not level_spans(message, facts) \
            and not find(message, interchangeable()) \
            and (situation := condition_swap(message, previous.standalone, facts)):
        # 「要是能简单聊几句日常的呢」 describes the student (its 几 asks nothing): before any swap reads 几 as asking;
        # a level or an interchangeable word (「四级的呢」「工作调动的呢」) is a swap's
        return Standalone(said, situation, FOLLOW_UP, reread + (CONDITION,), previous.message_id)
    draft = Draft(previous.standalone, strip_marks(message, words("opener"), words("closer")), facts)
    for name, swap in SWAPS:
        if name in rules:
            swap(draft)
    if draft.pending and draft.question == previous.standalone and not draft.front and CONDITION in rules \
            and (situation := condition_swap(message, previous.standalone, facts)):
        # 「如果是公司派我去外地呢」 after 「…住院了，课先停要开什么证明」: a reason with no reason to replace is another
        # situation in place of the previous one's
        return Standalone(said, situation, FOLLOW_UP, reread + (CONDITION,), previous.message_id)
    draft.pending = [w for w in draft.pending if not any(w in clause for clause in draft.front)]  # said in a clause
    if draft.pending:
        measured = compact(without(subject(draft.question, facts), words("asking_verb") + words("filler")))
        matters = dict(slot_groups()).get("matter", ())
        if not draft.front and no_topic(measured) and measured and measured in draft.question \
                and all(w in matters for w in draft.pending):
            # the previous question was about a measure only (「一节课上多久啊」): a matter asked instead takes its
            # place (「那分级测试呢」 → 「分级测试上多久啊」), not a place in front of it; a class type (线上) qualifies it
            draft.question = draft.question.replace(measured, "".join(draft.pending), 1)
        else:
            draft.front[:0] = draft.pending
        draft.rest = without(draft.rest, tuple(draft.pending))
    leftover = compact(without(draft.rest, words("filler") + words("anaphor")))
    for name, put in ((CONDITION, condition_swap), (SEQUEL, sequel)):  # another situation, or a later step
        swapped = put(message, previous.standalone, facts) if name in rules and not draft.rules else ""
        if swapped:
            return Standalone(said, swapped, FOLLOW_UP, reread + (name,), previous.message_id)
    if leftover and leftover not in draft.question and not draft.rules:
        if len(leftover) >= number("own_topic") or FRONT not in rules or find(leftover, words("asking") + words("asks")):
            return stays(OWN_QUESTION)  # 「每次多久」 asks its own thing: no word to put in front
        draft.front.append(leftover)
        draft.rules.append(FRONT)
    joiner = "，" if draft.clause else ""
    question = "".join(draft.front) + joiner + draft.question if draft.front else draft.question
    if KEEPS_SUBJECT in rules and asks(message) and any(word not in question for word in subjects(message, facts)):
        return stays(OWN_QUESTION)  # the rewrite lost what the message is about
    # nothing of the previous question was carried: the message comes back as itself, or without its 那 and 呢
    # (「那三级学费多少呢」 after 「二级学费多少」 stood on its own)
    plain = _bare(strip_marks(message, words("opener"), words("closer")))
    unmarked = _bare(without(strip_marks(message, words("opener"), ()), words("closer")))  # 「那转班呢 要钱吗」
    # 「那四级学费多少呢」 after 「二级学费多少钱」: the rewrite differs from a message that asks only in its asking word
    asking_only = asks_any(plain) and _asking_aside(question) == _asking_aside(plain)
    if not draft.rules or _bare(question) in (_bare(message), plain, unmarked) or asking_only:
        return stays(OWN_QUESTION)
    return Standalone(said, question, FOLLOW_UP, reread + tuple(draft.rules), previous.message_id)
