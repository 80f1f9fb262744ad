"""What a message names of its own — its subjects — read without a model: the things it is about (「教材」「分级测试」
「人工」「学费」 in 「学费还没开课能全退不」), as opposed to what it asks about them (「要几天」「收钱不」「学费多少」),
the steps and actions of a matter (「审核」「互转」「申请」「上完」), the things that need an owner (`relational`: 证明,
手续费 …), the student's own figures and the levels (which a follow-up swaps: core.conversations.swaps).

`subjects` sets aside, in this order, the named matters (slot.matter: 退费, 转班 … — a subject whatever jieba tags them)
and the other interchangeable words, the levels (core.facts), the student's figures (core.case.spans), what the
what-is-asked reader reads as asked (core.case.asked: its words and its yes/no topics, 「学费多少」「要钱」), and the
asking, predicate, relational, pointing-back, filler and course-total (一共, 结课: how much of the course) words of
core/data/followup_words.txt; what is left is cut with
jieba's lexicon (core.language.lexicon, the dictionary the gate's terms come from). A word is a subject when jieba tags
it a noun (n…, or vn: 「测试」), or a piece of it is one (「转人工」 → 人工), or it is a Latin word (App, 小E); a single
character only when tagged n (「班」; 「哈」 is tagged nr and is no subject). Question and function words never are.

Left out: whether the message is a follow-up (core.conversations.standalone decides, with these subjects), any school
fact (the words are jieba's and the data file's), any model.
"""

from __future__ import annotations

import re
from functools import cache

from core.case.asked import read_asked
from core.case.spans import figure_spans
from core.conversations.text import Span, find, level_spans
from core.conversations.words import interchangeable, slot_groups, words
from core.language.lexicon import lexicon, new_tokenizer
from core.language.words import FUNCTION_TAGS, QUESTION_WORDS
from core.values.facts import NO_FACTS, SchoolFacts

_LATIN = re.compile(r"[A-Za-z]+")
_NOMINAL_TAGS = ("n", "vn")  # jieba's noun tags all start with n; vn is a verbal noun (测试, 服务)
_SETTLED_ASIDE = ("asking", "asks", "predicate", "relational", "anaphor", "filler", "opener", "closer", "condition", "course_total",
                  "asking_lead", "courtesy")


@cache
def tokenizer():
    return new_tokenizer((), ())


def _tag_nominal(word: str) -> bool:
    tag = lexicon().tags.get(word)
    if tag is None or tag in FUNCTION_TAGS or word in QUESTION_WORDS or word in words("verb_like"):
        return False
    if len(word) == 1:
        return tag == "n"
    return tag.startswith(_NOMINAL_TAGS[0]) or tag in _NOMINAL_TAGS


def nominal(word: str) -> bool:
    """Whether jieba reads `word` as naming a thing: a noun, a piece of it a noun (「转人工」), or a Latin word."""
    if _LATIN.fullmatch(word):
        return True
    if word in QUESTION_WORDS:
        return False
    if word in lexicon().tags:
        if lexicon().tags[word] == "m" and len(word) > 1:  # 「一个班」 is one 班: the thing counted
            return _tag_nominal(word[-1])
        return _tag_nominal(word)
    pieces = [p for p in tokenizer().cut(word, HMM=False) if p.strip()]
    return len(pieces) > 1 and any(_LATIN.fullmatch(p) or _tag_nominal(p) for p in pieces)


def _blank(text: str, spans: list[Span]) -> str:
    for start, end, _ in sorted(spans, reverse=True):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _asked_spans(text: str) -> list[Span]:
    """What the what-is-asked reader reads as asked, with a suffix closing it (`asking_suffix`: 「在哪儿」's 儿 is no
    thing)."""
    found = read_asked(text)
    spans = find(text, tuple(w for w in found.words + found.topic_words if w))
    closing = words("asking_suffix")
    return [(s, e + len(x), w + x) if (x := next((c for c in closing if text.startswith(c, e)), "")) else (s, e, w)
            for s, e, w in spans]


def _relational_spans(text: str) -> list[Span]:
    """The relational words and what qualifies them with 的 (「医院的证明」: whose certificate is still the matter's)."""
    spans = find(text, words("relational"))
    out: list[Span] = []
    for start, end, word in spans:
        qualified = re.search(r"[\u4e00-\u9fffA-Za-z]+的$", text[:start])
        out.append((qualified.start(), end, word) if qualified else (start, end, word))
    return out


@cache
def _asked_measure() -> re.Pattern[str]:
    """A measure asked with 几 or 多少 (「几个礼拜」「多少课时」): how much is asked, not a thing named."""
    measures = "|".join(sorted(map(re.escape, words("measure")), key=len, reverse=True))
    return re.compile(rf"(?:几|多少)个?(?:{measures})")


@cache
def _named_inside() -> tuple[str, ...]:
    """The words of the groups that name things (`subject_groups`), as found inside a longer interchangeable word."""
    naming = set(words("subject_groups"))
    return tuple(w for name, listed in slot_groups() if name in naming for w in listed)


def subjects(text: str, facts: SchoolFacts = NO_FACTS) -> tuple[str, ...]:
    """The things `text` names of its own, in text order (see the module doc)."""
    kept: list[Span] = []
    rest = _blank(text, _asked_spans(text) + [(m.start(), m.end(), m.group()) for m in _asked_measure().finditer(text)])
    rest = _blank(rest, _relational_spans(rest))
    matters = dict(slot_groups()).get("matter", ())
    naming = set(words("subject_groups"))
    grouped = interchangeable()
    for start, end, word in find(rest, grouped):
        group = next(name for name, listed in slot_groups() if word in listed)
        if word in matters or group in naming and nominal(word):
            kept.append((start, end, word))
        elif group not in naming:  # 「线上转线下」 is a kind of transfer naming two class types: they are things named
            kept.extend((start + at, start + at + len(w), w) for at, _, w in find(word, _named_inside())
                        if nominal(w))
    rest = _blank(rest, find(rest, grouped))
    rest = _blank(rest, level_spans(rest, facts))
    rest = _blank(rest, [(f.start, f.end, f.text) for f in figure_spans(rest, facts.level_numbers or None)])
    rest = _blank(rest, find(rest, tuple(w for name in _SETTLED_ASIDE for w in words(name))))
    for match in re.finditer(r"[^\s？?。！!，,；;、：:～~…]+", rest):
        at = match.start()
        for piece in tokenizer().cut(match.group(), HMM=False):
            if piece.strip() and nominal(piece.lower()):
                kept.append((at, at + len(piece), piece))
            at += len(piece)
    return tuple(word for _, _, word in sorted(kept))


def new_subjects(message: str, previous: str, facts: SchoolFacts = NO_FACTS) -> tuple[str, ...]:
    """The subjects of `message` the previous question does not name (「教材」 is named by 「教材费多少」)."""
    return tuple(word for word in subjects(message, facts) if word.lower() not in previous.lower())
