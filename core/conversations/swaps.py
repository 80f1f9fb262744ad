"""The swaps that turn a follow-up into a standalone question: each puts the message's changed part into the previous
standalone question, in the order of `SWAPS` (core.conversations.standalone runs them).

- `level`: the level, named as the documents name it (core.facts) or 「N级」 of a level they have;
- `slots`: each group of interchangeable words (fee type, class type, matter, kind of transfer, channel, reason:
  core/data/followup_words.txt) and the course's stage (「开课前」/「开课后」, core.case's words). When the previous
  question compares two words of a group (「线上班和线下班价格一样吗」), naming one of them swaps nothing;
- `figures`: the student's own figures, every kind the student-case reader reads with a number (amount, lessons
  taken or left, weeks, days, which time, months, age, transfers made: core.case.spans); how far the course is
  (lessons taken, weeks, days) with no such figure before replaces the stage word (「还没开课」 + 「那上了3节呢」,
  「开课前退费能全退吗」 + 「开课第二天呢」), else the student's clause goes in front;
- `counts`: a count in the measure of one of the previous question's (「报两个级别」 + 「三个级别呢」), or added to it
  (「上了8节」 + 「再上一节呢」 → 「上了9节」);
- `asked`: a rest that only asks (it names at most `bare_ask` characters besides asking, predicate and filler words)
  keeps the previous question's subject and asks its own thing (「退费怎么申请？」 + 「多久到账？」 → 「退费多久到账？」);
  a rest that points back (「也是吗」) keeps what the previous question asked.
A word with no counterpart in the previous question waits (`pending`): `asked` takes it with the rest, else it goes in
front (「学费多少」 + 「那三级呢」 → 「三级学费多少」).

Left out: whether the message is a follow-up at all (core.conversations.standalone), any model, storage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from core.case.asked import read_asked
from core.case.figures import DAYS, LESSONS, LEVEL, WEEKS
from core.case.spans import AGE, figure_spans
from core.case.words import words as case_words
from core.conversations.subjects import subjects
from core.conversations.text import Span, blank, compact, find, level_spans, without
from core.conversations.words import STARTED, interchangeable, slot_groups, words
from core.language.figures import format_number, parse_chinese_numeral
from core.values.facts import SchoolFacts

END = "？?。！!"
_YES_NO_TAIL = re.compile(r"(?:不|没|没有)$")
# A space between two Chinese clauses (「孩子报了一级 交了3600 上了7节了还能退吗」) separates them as a comma would;
# a space around a Latin word (「在 App 内」) does not.
_CLAUSE_SPACE = re.compile(r"(?<=[\u4e00-\u9fff\d])\s+(?=[\u4e00-\u9fff])")
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])不\1")  # 「是不是」「贵不贵」: an asking (and no filler before one)



@dataclass
class Draft:
    """One rewrite under way: the previous question being edited, what is left of the message, what goes in front."""

    question: str
    rest: str
    facts: SchoolFacts
    front: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # words with no counterpart: in front, unless `asked` takes them
    rules: list[str] = field(default_factory=list)
    clause: bool = False  # the front is a clause of the student's own (「我上了6节」), not a word
    replaced: list[str] = field(default_factory=list)  # the previous question's words swapped out (二级 of 「四级呢」)


def strip_marks(text: str, openers: tuple[str, ...], closers: tuple[str, ...]) -> str:
    """`text` without one opening word (那, 那么 …) and one closing word (呢 …)."""
    body = text.strip().strip("，,")
    for word in openers:
        if body.startswith(word):
            body = body[len(word):].lstrip("，, ")
            break
    trimmed = body.rstrip(END + " ")
    for word in closers:
        if trimmed.endswith(word):
            return trimmed[:-len(word)]
    return body


def _replace(text: str, old: list[Span], new: list[str]) -> str:
    """`old` spans replaced by `new` words: pairwise when they are as many, else the last old one by the last new."""
    pairs = list(zip(old, new, strict=True)) if len(old) == len(new) else [(old[-1], new[-1])]
    for (start, end, _), word in sorted(pairs, reverse=True):
        text = text[:start] + word + text[end:]
    return text


def asks(text: str) -> bool:
    """`text` asks something: a kind the what-is-asked reader reads (core.case.asked), or an asking word it gives
    no kind (「要什么证明」)."""
    return bool(read_asked(text).words) or bool(find(text, words("asks")))


def asks_any(text: str) -> bool:
    """`text` asks, or carries one of the generic asking words (「手续费是多少」: 多少 names no kind alone); a modal verb
    that is also a predicate (能, 可以: 「医生说可能要半年」) is no asking on its own."""
    asking = tuple(w for w in words("asking") if w not in words("predicate"))
    return asks(text) or bool(find(text, asking)) or bool(_A_NOT_A.search(text))  # 「贵不贵」 asks too


def own_words(text: str, also: tuple[str, ...] = ()) -> str:
    """What `text` names besides asking, predicate, pointing-back and filler words (and `also`): its own subject."""
    found = read_asked(text)
    listed = (words("asking") + words("asks") + words("predicate") + words("anaphor") + words("filler")
              + found.words + found.topic_words + also)
    rest = compact(without(text, listed))
    return _YES_NO_TAIL.sub("", rest) if "yes_no" in found.kinds else rest


def _swap_words(draft: Draft, name: str, in_message: list[Span], in_question: list[Span]) -> None:
    new = [word for _, _, word in in_message]
    if not new:
        return
    named = {w for _, _, w in in_question}
    old = [w for _, _, w in in_question]
    reversed_order = len(new) == len(old) >= 2 and new != old  # 「从二级转到四级…」 + 「反过来四级转二级呢」
    if len(named) >= 2 and set(new) <= named and not reversed_order:
        return  # the previous question compares them (「线上班和线下班价格一样吗」): nothing to swap
    if in_question:
        draft.rest = blank(draft.rest, in_message)
        if [w for _, _, w in in_question] != new:
            draft.replaced.extend(w for w in old if w not in new)
            draft.question = _replace(draft.question, in_question, new)
    else:
        draft.pending.extend(new)
    draft.rules.append(name)


def level(draft: Draft) -> None:
    """「二级学费多少？」 + 「那三级呢」 → 「三级学费多少？」; a level said as added (`increment`: 「再加上三级呢」 after
    「我想报一级和二级，学费一共多少」) joins the previous question's levels: 「我想报一级和二级、三级，…」; a level compared
    with (「比三级贵多少」) swaps nothing: `asked` asks it of the previous question's subject."""
    in_message = [span for span in level_spans(draft.rest, draft.facts) if not _compared_with(draft.rest, span[0])]
    in_question = level_spans(draft.question, draft.facts)
    if len(in_message) == 1 and in_question and _added(draft.rest, in_message[0][0]):
        start, end, word = in_question[-1]
        draft.question = draft.question[:end] + "、" + in_message[0][2] + draft.question[end:]
        draft.rest = blank(draft.rest, in_message)
        draft.rules.append("level.added")
        return
    _swap_words(draft, "level", in_message, in_question)


def _compared_with(text: str, start: int) -> bool:
    """The level at `start` is the other side of a comparison (`compare_with` right before it, and a comparative or
    差 in the text: 「比三级贵多少」「跟三级差多少」): what is compared stays the previous question's level."""
    before = text[:start].rstrip()
    return before.endswith(words("compare_with")) and bool(find(text, words("comparative") + words("compare_also")))


def _with_verb(text: str, span: Span) -> Span:
    """A lessons-taken figure with the verb before it (「上了」 of 「上了4节」: core.case's `lesson_before` words)."""
    start, end, _ = span
    verb = next((w for w in case_words("lesson_before") if text[:start].endswith(w)), "")
    return start - len(verb), end, text[start - len(verb):end]


BOUND = "bound"  # slot.bound (超过, 以内 …) and `bound_by_number` (以后, 内), swapped only next to a number
_NUMBER_BEFORE = re.compile(r"[\d一二两三四五六七八九十半][^\s，,；;。？?]{0,3}$")
_NUMBER_AFTER = re.compile(r"^[^\s，,；;。？?]{0,2}[\d一二两三四五六七八九十半]")


def _by_number(text: str, spans: list[Span]) -> list[Span]:
    """The bound words of `spans` said next to a number (「4课时内」「超过8节」)."""
    return [(start, end, word) for start, end, word in spans
            if _NUMBER_BEFORE.search(text[:start]) or _NUMBER_AFTER.match(text[end:])]


def slots(draft: Draft) -> None:
    """Each group of interchangeable words: 「三级学费多少」 + 「教材费呢」 → 「三级教材费多少」; 「开课前退费能全退吗」 +
    「开课后呢」 → 「开课后退费能全退吗」; the course's stage also takes the place of the lessons taken (「上了4节」 +
    「那要是还没开课呢」)."""
    for group, listed in slot_groups():
        in_question = find(draft.question, listed)
        if group == STARTED and not in_question:
            # 「我付了4200上了4节…」 + 「那要是还没开课呢」: the stage of the course stands for the lessons taken
            in_question = [_with_verb(draft.question, (f.start, f.end, f.text))
                           for f in figure_spans(draft.question, draft.facts.level_numbers or None)
                           if f.kind == LESSONS and not f.role][-1:]
        if group in DECIDED_SLOTS.values() and not in_question:
            # 「孩子还没满18岁，退费得谁来申请」 + 「成年人呢」: the word takes the place of the clause telling the age
            in_question = _deciding_clause(draft.question, group, draft.facts)
        in_message = find(draft.rest, listed)
        if group == BOUND:  # 「过了4课时以后」: 以后 bounds a number; 「审核通过以后」 bounds nothing
            bounds = listed + words("bound_by_number")
            in_message = _by_number(draft.rest, find(draft.rest, bounds))
            in_question = _by_number(draft.question, find(draft.question, bounds))
        _swap_words(draft, f"slot.{group}", in_message, in_question)



def _figures(text: str, facts: SchoolFacts) -> dict[tuple[str, str], list[Span]]:
    out: dict[tuple[str, str], list[Span]] = {}
    for f in figure_spans(text, facts.level_numbers or None):
        if f.kind != LEVEL:  # levels are `level`'s
            out.setdefault((f.kind, f.role), []).append((f.start, f.end, f.text))
    return out


def figures(draft: Draft) -> None:
    """The student's own figures: 「我报了二级，上了4节课，能退多少？」 + 「那我上了6节呢」 → 「…上了6节课…」; a
    figure the previous question lacks brings the student's clause in front (「我上了6节，退费怎么算」)."""
    in_question = _figures(draft.question, draft.facts)
    told = {key: kept for key, spans in _figures(draft.rest, draft.facts).items()
            if not any(_added(draft.rest, start) for start, _, _ in spans)  # 「再上两节」 is counts' to add
            and (kept := [span for span in spans if not _denied(draft.rest, span[0])])}
    for (kind, role), in_message in told.items():
        name = f"figures.{kind}" + (f".{role}" if role else "")
        if (kind, role) in in_question:
            draft.question = _replace(draft.question, in_question[(kind, role)], [w for _, _, w in in_message])
            draft.rest = blank(draft.rest, in_message)
            draft.rules.append(name)
            continue
        other = [span for (k, r), spans in in_question.items() if k == kind == LESSONS and r != role for span in spans]
        if other:  # 「实付4800上了4课时」 + 「剩10课时的话呢」: the lessons left say what the lessons taken said
            start, end, _ = _with_verb(draft.question, other[-1])
            said = _with_verb(draft.rest, in_message[-1])
            draft.question = draft.question[:start] + said[2] + draft.question[end:]
            draft.rest = blank(draft.rest, [said])
            draft.rules.append(name)
            continue
        mine = set(read_asked(draft.rest).kinds)
        if mine - {"yes_no"}:
            return  # 「我交了3600上了2节 要扣多少手续费」 asks a thing of its own: no situation to put in front; `asked` keeps it
        if mine and "yes_no" not in read_asked(draft.question).kinds and find(draft.rest, words("matter_verb")):
            return  # 「要走8个月能保留吗」 after 「…要交什么证明」 asks yes or no of a matter where the previous asked a thing
        clause = compact(strip_marks(draft.rest, words("opener"), words("closer")))
        for word in words("condition"):  # 「要是上了5节」: the student's clause is 「上了5节」
            clause = clause.removeprefix(word)
        # how far the course is, in lessons, weeks or days (「开课第二天」), says what the stage word said
        stage = find(draft.question, dict(slot_groups())[STARTED]) if kind in _PROGRESS and not role else []
        decided = _decided_clause(draft.question, kind)
        if stage:  # 「还没开课」 was the lessons taken in words: the new count replaces it
            draft.question = _replace(draft.question, stage[-1:], [clause])
        elif decided:  # 「我已经成年了」 was the age in words: the student's clause with the age replaces it
            draft.question = draft.question.replace(decided, clause, 1)
        else:
            draft.front.append(clause)
            draft.clause = draft.clause or compact(without(clause, words("filler"))) != in_message[0][2]
        draft.rest = ""
        draft.rules.append(name)
        return


_PROGRESS = (LESSONS, WEEKS, DAYS)  # the figures telling how far the course is


def _denied(text: str, start: int) -> bool:
    """Whether the figure at `start` is said as not the student's (「我实际付的是3900 不是4200」: `denial` before it)."""
    return text[:start].rstrip().endswith(words("denial"))


# A figure that decides a slot said in words: an age decides whether the student is a minor (slot.minor: 成年 / 未成年).
DECIDED_SLOTS = {AGE: "minor"}


def _clause_spans(question: str) -> list[Span]:
    """The clauses of `question` (between commas, semicolons, spaces and end marks), as spans."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"[^，,；;\s？?。！!]+", question)]


def _deciding_clause(question: str, group: str, facts: SchoolFacts) -> list[Span]:
    """The clause of `question` telling a figure that decides the slot group `group` (an age for slot.minor), as one
    span, when the question has another clause; else []."""
    kinds = {kind for kind, slot in DECIDED_SLOTS.items() if slot == group}
    told = [f for f in figure_spans(question, facts.level_numbers or None) if f.kind in kinds]
    clauses = _clause_spans(question)
    held = [span for span in clauses if told and span[0] <= told[0].start < span[1]]
    return held if held and len(clauses) > 1 else []


def _decided_clause(question: str, kind: str) -> str:
    """The clause of `question` saying in words the slot a figure of `kind` decides (「我已经成年了」 for an age), the
    word alone when the question is that one clause (「未成年人」), or ""."""
    listed = dict(slot_groups()).get(DECIDED_SLOTS.get(kind, ""), ())
    clauses = [text for _, _, text in _clause_spans(question)]
    said = next((c for c in clauses if find(c, listed)), "") if listed else ""
    # a question of one clause (「未成年人退费谁来申请」) keeps its asking: only the word is replaced
    return find(said, listed)[0][2] if said and len(clauses) == 1 else said


# A count of something the student-case reader has no kind for (「两个级别」「3个人」): a numeral, then its measure —
# 个 and the character after it, or one character — that must be the same in the message and the previous question.
_COUNT = re.compile(r"(?<![第\d.])([一二两三四五六七八九十\d]+)\s*(个(?![全都])[\u4e00-\u9fff]|[\u4e00-\u9fff])")


def _counts(text: str, facts: SchoolFacts) -> list[tuple[Span, str]]:
    """((start, end, numeral), measure) of each count in `text` (_COUNT) that is no level (「三级」: `level`'s)."""
    taken = level_spans(text, facts)
    return [((m.start(1), m.end(1), m.group(1)), m.group(2)) for m in _COUNT.finditer(text)
            if all(m.end() <= start or m.start() >= end for start, end, _ in taken)]


def _added(text: str, start: int) -> bool:
    """Whether the count at `start` is said as added to the previous one (「再上一节」「又多上了两节」: `increment`)."""
    return any(text[:start].rstrip().endswith(w) for w in words("increment"))


def _numeral(text: str) -> float | None:
    return float(text) if text.isdigit() else (None if (n := parse_chinese_numeral(text)) is None else float(n))


def counts(draft: Draft) -> None:
    """A count in the same measure as one of the previous question's takes its numeral: 「我想报两个级别，教材费一共
    多少」 + 「报三个级别呢」 → 「我想报三个级别，教材费一共多少」; a count said as added (`increment`: 「再上一节呢」)
    adds to it: 「上了8节」 → 「上了9节」. A figure of the student's that `figures` reads is left to it unless said as
    added, and only a measure the previous question counts in once is swapped."""
    figures_told = [(f.start, f.end) for f in figure_spans(draft.rest, draft.facts.level_numbers or None)]
    in_question = _counts(draft.question, draft.facts)
    for (start, end, said), measure in _counts(draft.rest, draft.facts):
        added = _added(draft.rest, start)
        if not added and any(start < e and s < end + len(measure) for s, e in figures_told):
            continue  # the student's own figure: `figures`' to swap
        # 「报三个呢」 after 「我报两个级别」: a count of 个 with nothing after it counts what the previous one counts
        after = draft.rest[end + len(measure):].lstrip()
        bare = measure == "个" and (not re.match(r"[\u4e00-\u9fff]", after) or after.startswith(words("count_all")))
        same = [span for span, other in in_question if other == measure or bare and other.startswith("个")]
        if len(same) == 1 and not added and _clock_swapped(draft, same[0], (start, end, said), measure):
            return
        if len(same) != 1 or (same[0][2] == said and not added):
            continue
        if added:  # 「再上一节呢」 after 「上了8节」: one more, 9
            old, new = _numeral(same[0][2]), _numeral(said)
            if old is None or new is None:
                continue
            said = format_number(old + new)
        draft.question = _replace(draft.question, same, [said])
        draft.rest = blank(draft.rest, [(start, end + len(measure), said + measure)])
        draft.rules.append("counts")
        return


_CLOCK_TAIL = re.compile(r"半|[零〇一二两三四五六七八九十\d]+分")  # 「八点半」「8点30分」: the rest of a clock time


def _clock_swapped(draft: Draft, old: Span, new: Span, measure: str) -> bool:
    """A clock time swapped whole, its half or minutes with it: 「晚上十点还有人工吗」 + 「早上八点半呢」 →
    「…八点半…」, 「晚上8点能转人工吗」 + 「晚上8点半呢」 → 「晚上8点半能转人工吗」 (the hour alone is the same), and
    「晚上8点半…」 + 「9点呢」 → 「晚上9点…」."""
    if measure != "点":
        return False
    tail = _CLOCK_TAIL.match(draft.rest, new[1] + len(measure))
    old_tail = _CLOCK_TAIL.match(draft.question, old[1] + len(measure))
    said = new[2] + measure + (tail.group() if tail else "")
    if not (tail or old_tail) or said == old[2] + measure + (old_tail.group() if old_tail else ""):
        return False  # no half or minutes on either side (or the same time): the numeral swap as for any count
    end = old_tail.end() if old_tail else old[1] + len(measure)
    draft.question = draft.question[:old[0]] + said + draft.question[end:]
    draft.rest = blank(draft.rest, [(new[0], tail.end() if tail else new[1] + len(measure), said)])
    draft.rules.append("counts")
    return True


def _anchors(text: str, facts: SchoolFacts) -> list[Span]:
    """What a question names that a follow-up can swap: levels, interchangeable words, the student's figures."""
    groups = interchangeable()
    return sorted(level_spans(text, facts) + find(text, groups)
                  + [(f.start, f.end, f.text) for f in figure_spans(text, facts.level_numbers or None)])


def _cut_words(text: str) -> tuple[str, ...]:
    """Where a question's asking part begins: asking, predicate and what-is-asked words, and the words that lead an
    asking (`asking_lead`: 最长, 一共, 每周 … — 「保留学籍最长多久」 asks 「最长多久」 about 保留学籍)."""
    return words("asking") + words("asks") + words("predicate") + words("asking_lead") + read_asked(text).words


def _named(clause: str, facts: SchoolFacts) -> str:
    """A clause that names nothing a follow-up swaps: the clause without its asking and predicate words when it names
    a thing of its own (core.conversations.subjects: 「对话记录保存多久」 → 对话记录; 「退的钱几天能到」 → 退款的钱,
    the matter its verb begins kept in front), else the matter its verb names (「钱能全退吗」 → 退款: `matter_verb` 退
    begins the matter)."""
    if subjects(clause, facts):
        named = compact(without(clause, _cut_words(clause)))
        # 「退的钱几天能到」: the matter's verb is cut with the predicates; the matter it begins stays in front
        verb = _verb_matter(clause)
        return verb + named if verb and not named_matters(named) else named
    return _verb_matter(clause) or without(clause, _cut_words(clause))


def _clause_subject(clause: str, facts: SchoolFacts) -> str:
    """One clause's subject: up to the first predicate or asking word after the first thing it names (leading
    predicate words dropped: 「可以跳级吗」 → 「跳级」); with nothing named, the clause without those words."""
    anchors = _anchors(clause, facts)
    if not anchors:
        return _named(clause, facts)
    masked = "".join(" " if any(s <= i < e for s, e, _ in anchors) else c for i, c in enumerate(clause))
    cut = next((s for s, _, _ in find(masked, _cut_words(clause)) if s >= anchors[0][1]), len(clause))
    lead = [s for s in find(masked[:anchors[0][0]], _cut_words(clause))]
    start = lead[-1][1] if lead and not compact(masked[lead[-1][1]:anchors[0][0]]) else 0
    kept = clause[start:cut]
    for verb in words("asking_verb"):  # 「二级每周上几次课」: 上 goes with 几次, not with 二级 (nor is it 线上's)
        ends_anchor = any(s < start + len(kept) <= e for s, e, _ in anchors)
        if kept.endswith(verb) and len(kept) - len(verb) >= anchors[0][1] - start and not ends_anchor:
            return kept[:-len(verb)]
    return kept


_COUNTED = re.compile(r"(?:几|多少)个(.+)")  # 「几个级别」 counts 级别


def subject(question: str, facts: SchoolFacts) -> str:
    """What the previous question is about: its clauses but the last, then the last clause's subject
    (`_clause_subject`), with the matters named after the cut kept (「工作调动保留学籍要啥证明」 → 「工作调动保留学籍」;
    「在前台能申请退费吗」 → 「在前台退费」; 「我报的二级，交了4200，能退多少」 → 「我报的二级，交了4200」), and the
    thing a count counts (「口语一共分几个级别」 → 「口语…级别」)."""
    text = _CLAUSE_SPACE.sub("，", strip_marks(question, words("opener"), ()).rstrip(END + " "))
    parts = re.split(r"([，,；;])", text)
    head, last = "".join(parts[:-1]), parts[-1]
    kept = _clause_subject(last, facts)
    matters = [w for _, _, w in find(last, dict(slot_groups()).get("matter", ())) if w not in kept]
    # 「口语一共分几个级别」: what the count counts is what it is about (级别)
    counted = next((m.group(1) for w in read_asked(last).words if (m := _COUNTED.match(w))), "")
    # a thing named after the cut is what is asked of too (「报名前要先测试吗」 → 「报名前测试」), unless it is one of the
    # interchangeable words, the other end of what the question relates (「转班手续费包含在学费里吗」: 学费)
    after = last[last.find(kept) + len(kept):] if kept and kept in last else ""
    grouped = set(interchangeable())
    things = [w for w in subjects(after, facts) if w not in kept and w not in grouped and w != counted]
    kept = compact(kept + "".join(matters) + "".join(things) + (counted if counted not in kept else ""))
    return compact(head) + "，" if head and not kept else compact(head + kept)


def _verb_matters(text: str) -> list[tuple[str, str]]:
    """(verb, the matter it begins) for each `matter_verb` in `text`, the shortest matter (退 → 退费, 转 → 转班, not
    转人工); verbs beginning no matter left out."""
    matters = dict(slot_groups()).get("matter", ())
    begun = ((verb, min((m for m in matters if m.startswith(verb)), key=len, default=""))
             for _, _, verb in find(text, words("matter_verb")))
    return [(verb, matter) for verb, matter in begun if matter]


def named_matters(text: str) -> list[str]:
    """The matters `text` names (slot.matter: 退费, 保留学籍 …) or begins with a `matter_verb` (能退多少 → 退费)."""
    return [w for _, _, w in find(text, dict(slot_groups()).get("matter", ()))] + [m for _, m in _verb_matters(text)]


def _verb_matter(text: str) -> str:
    """The matter the first `matter_verb` in `text` begins (`_verb_matters`); "" when none."""
    return next((matter for _, matter in _verb_matters(text)), "")


def _matter_of_verb(rest: str, kept: str) -> str:
    """The matter a verb of two characters or more names in the follow-up (`matter_verb` 保留 → 保留学籍) when the kept
    subject does not name it: 「生病了不能上课怎么办？」 + 「最长能保留多久」 asks about keeping one's place. A verb of one
    character (退, 转) also means other things (退教材, 转人工) and names no matter alone."""
    return next((matter for verb, matter in _verb_matters(rest)
                 if len(verb) >= 2 and matter not in kept and matter not in rest), "")


_NUMERAL = re.compile(r"^[一二两三四五六七八九十百几每\d]+")


def no_topic(kept: str) -> bool:
    """A previous question's subject that names no topic: under two characters once filler and the verb that goes
    with an asking (`asking_verb`: 上) are out (「上」 of 「每周上几次课」), or only a numeral and measure words (`measure`:
    「一节课」 of 「一节课多久啊」, 「一节课上」 of 「一节课上多久啊」)."""
    bare = compact(without(kept, words("filler") + words("asking_verb")))
    return len(bare) < 2 or not compact(without(_NUMERAL.sub("", bare), words("measure")))


@cache
def _counted_measure() -> re.Pattern[str]:
    measures = "|".join(sorted(map(re.escape, words("measure")), key=len, reverse=True))
    return re.compile(rf"[一二两三四五六七八九十每\d]个?(?:{measures})")


def _scoped(text: str) -> bool:
    """`text` names a quantity of its own to count in (「一期一共几节」: 一期), not an asked one (「几周能上完」)."""
    return bool(_counted_measure().search(text))


_LEFT_CLOSER = re.compile(r"^(?:(?:呢|嘞|捏)[，,；;\s]+|的话[，,；;\s]*)")


def _lead_trimmed(rest: str) -> str:
    """`rest` without the one-character filler words it opens with (「我了第三次咋算」 once 转了两次 is swapped in →
    「第三次咋算」); a longer one may say whose case it is (「孩子的话谁去办」 keeps 孩子)."""
    fillers = tuple(w for w in words("filler") if len(w) == 1)
    while not _A_NOT_A.match(rest) and (lead := next((w for w in fillers if rest.startswith(w) and len(rest) > len(w)),
                                                       "")):
        rest = rest[len(lead):]
    return rest


def asked(draft: Draft) -> None:
    """A rest that only asks keeps the previous question's subject: 「多久到账？」 after 「退费怎么申请？」."""
    rest = compact(strip_marks(draft.rest, words("swap_opener") + words("opener"), ()))
    # 「退费呢，能帮我办不」 once 退费 is swapped in: the clause left asks; so does 「换成入门的话多少」's 「多少」
    rest = _LEFT_CLOSER.sub("", rest)
    if not rest or not asks_any(rest):
        return
    pointing = find(rest, words("anaphor"))
    if pointing and read_asked(blank(rest, pointing)).kinds in ((), ("yes_no",)):
        return  # 「线上班也是吗」「第三次还是这个价吗」: the previous question's asking stands
    owned = find(rest, words("relational")) and not find(rest, dict(slot_groups()).get("matter", ()))
    if not owned and any(word not in draft.pending for word in subjects(rest, draft.facts)):
        return  # it names a subject of its own (what qualifies a thing that needs an owner is no subject: 几级医院的证明)
    kept = subject(draft.question, draft.facts)
    if _repeats_asking(rest, draft.question, kept):
        return  # 「开课后要吗」 after 「开课前退费要手续费吗」: the previous question's asking stands
    if no_topic(kept) and draft.facts.levels and find(rest, words("course_total")) and not _scoped(rest):
        # 「一共要上几周」 after 「一节课上多久啊」: the measure was of the course, whose total is each level's
        kept = words("course_scope")[0]
    if no_topic(kept):
        return  # 「一周上几节」 after 「一节课多久啊」: nothing to ask it of
    fees = dict(slot_groups()).get("fee", ())
    asked_words = tuple(w for w in read_asked(rest).words if w)
    own = fees + words("fee_relational")
    if find(rest, words("fee_relational")) and not find(kept, fees) and (named := find(draft.question, fees)):
        kept += named[-1][2]  # 「按啥比例收」 after 「开课后退费要收手续费吗」: the fee's own proportion
    if set(read_asked(rest).kinds) & set(words("feeless_kinds")) and not find(rest, fees):
        kept = without(kept, fees).replace(" ", "")  # 「一共上几节课」 after 「流利级学费多少」 asks the level's lessons
    if any(w not in own for _, _, w in find(without(rest, asked_words), words("relational"))):
        kept = without(kept, fees).replace(" ", "")  # 「总课时是多少」 after 「三级学费多少」 asks the level's, not the fee's
        if no_topic(kept):  # 「学费到底能不能退」 + 「多久能到账」: the fee was all; its verb names the matter (退 → 退款)
            kept += _verb_matter(draft.question)
    channels = dict(slot_groups()).get("channel", ())
    where = find(draft.question, channels)
    if where and not find(kept, channels) and not find(rest, channels):
        # 「要带啥去不」 after 「退费可以在前台上申请吗」: what is asked is asked of the matter where it is done
        kept = where[-1][2] + kept
    # 「是不是更贵」: an asking of yes or no before the comparative stays before what is compared with
    compare_lead = next((w for w in words("compare_lead") if rest.startswith(w)), "")
    compared = rest[len(compare_lead):].removeprefix("更")
    if draft.replaced and compared.startswith(words("comparative")) and not compared.startswith(words("asking")):
        # 「四级贵多少」 after 「二级学费是多少」: how much more than the level swapped out
        kept = kept.removesuffix("是") + compare_lead + "比" + draft.replaced[-1]
        rest = rest[len(compare_lead):]
    draft.question = kept + _matter_of_verb(rest, kept) + _lead_trimmed(rest).rstrip(END) + "？"
    draft.rest = ""
    draft.pending.clear()
    draft.rules.append("asked")


def _repeats_asking(rest: str, question: str, kept: str) -> bool:
    """`rest` asks yes or no, or with a generic asking word, with nothing but predicate and asking words (`predicate`:
    要, 收; `asking`: 多少) the previous question asks with after its subject `kept`: 「要吗」 after 「开课后退费要手续费吗」
    and 「多少」 after 「三级线上多少钱一期」 ask the same (「能退吗」 does not: 退 is no part of 「要手续费吗」)."""
    if read_asked(rest).kinds not in ((), ("yes_no",)) or not kept or kept not in question:
        return False
    said = _YES_NO_TAIL.sub("", compact(without(rest, words("filler") + words("anaphor"))))
    verbs = [w for _, _, w in find(said, words("predicate") + words("asking"))]  # 「多少」 after 「…多少钱一期」 too
    asking = question[question.find(kept) + len(kept):]
    return bool(verbs) and not compact(without(said, tuple(verbs))) and all(v in asking for v in verbs)


SWAPS: tuple[tuple[str, Callable[[Draft], None]], ...] = (
    ("level", level),
    ("slots", slots),
    ("figures", figures),
    ("counts", counts),
    ("asked", asked),
)
