"""A student's message read in its conversation, without a model: is it a follow-up, and if so, which standalone
question does it stand for?

A message is a follow-up only when it does not stand on its own (`FOLLOW_UP_RULES`): it is short and opens with
那/那么/还有/这个/那个 or ends with 呢, or it only asks and names at most two characters of its own (「多久到账？」),
or it would not pass the gate alone (the caller says; this module runs no gate). A message that passes the gate alone is a topic switch and is never rewritten; after a refused turn nothing
is carried over; courtesy (「好的谢谢」) is left as it is.

A follow-up becomes a standalone question by swapping its changed part into the previous standalone question.
`SWAPS` is the program, in this order: the level (named as the documents name it, core.facts, or 「N级」), each
group of interchangeable words (fee type, class type, matter, reason: core/data/followup_words.txt), the student's
figures (amount, lessons taken, lessons left, weeks: the student-case reader's kinds, core.case), and last what is
asked (core.case.asked): a rest that asks something replaces the previous question's asking words
(「退费怎么申请？」 + 「多久到账？」 → 「退费申请多久到账？」). A part with no counterpart in the previous question
is put in front of it (「学费多少」 + 「那三级呢」 → 「三级学费多少」). Each swap is named and can be switched off
(XIAOE_FOLLOWUP_RULES), so its worth can be measured.

Left out: the gate itself, any model (the optional guarded model rewrite is core.conversations.model_rewrite's), storage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from core.case import question_figures
from core.case.asked import read_asked
from core.case.figures import LESSONS, LEVEL, MONEY, REMAINING, WEEKS
from core.conversations.words import number, slot_groups, words
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
from core.values.facts import NO_FACTS, SchoolFacts

_PUNCT = "？?。！!，,；;、 \t"
_END = "？?。！!"


def _bare(text: str) -> str:
    return re.sub(rf"[{re.escape(_PUNCT)}]", "", text)


# -- is it a follow-up? ---------------------------------------------------------------------------------------------

def short_marker(message: str, _stands_alone: bool) -> bool:
    """Short, and opens with 那/那么/还有/这个/那个 or ends with 呢: 「那三级呢」「还有教材费」."""
    bare = _bare(message)
    if len(bare) > number("short"):
        return False
    return bare.startswith(words("opener")) or bare.endswith(tuple(_bare(w) for w in words("closer")))


def not_alone(_message: str, stands_alone: bool) -> bool:
    """The gate would not answer it alone: 「多久到账？」 names nothing the documents could be searched for."""
    return not stands_alone


def bare_ask(message: str, _stands_alone: bool) -> bool:
    """It asks (core.case.asked) and names almost nothing else: 「多久到账？」 after a refund answer is about that
    refund even when the gate finds a passage for it alone."""
    if not read_asked(message):
        return False
    rest = re.sub(r"\s+", "", _without(_without(message, words("asking") + read_asked(message).words), words("filler")))
    return len(rest.strip(_PUNCT)) <= number("bare_ask")


FOLLOW_UP_RULES: tuple[tuple[str, Callable[[str, bool], bool]], ...] = (
    ("short_marker", short_marker),
    ("bare_ask", bare_ask),
    ("not_alone", not_alone),
)


# -- the swaps -----------------------------------------------------------------------------------------------------

Span = tuple[int, int, str]


@dataclass
class Draft:
    """One rewrite under way: the previous question being edited, what is left of the message, what goes in front."""

    question: str
    rest: str
    facts: SchoolFacts
    front: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    clause: bool = False  # the front is a clause of the student's own (「我上了6节」), not a word


def _find(text: str, candidates: tuple[str, ...]) -> list[Span]:
    """Where the words stand in `text`, longest first, never overlapping, in text order."""
    taken: list[Span] = []
    for word in sorted({w for w in candidates if w}, key=len, reverse=True):  # an empty word would match forever
        start = text.find(word)
        while start >= 0:
            end = start + len(word)
            if all(end <= s or start >= e for s, e, _ in taken):
                taken.append((start, end, word))
            start = text.find(word, end)
    return sorted(taken)


def _replace(text: str, old: list[Span], new: list[str]) -> str:
    """`old` spans replaced by `new` words: pairwise when they are as many, else the last old one by the last new."""
    pairs = list(zip(old, new, strict=True)) if len(old) == len(new) else [(old[-1], new[-1])]
    for (start, end, _), word in sorted(pairs, reverse=True):
        text = text[:start] + word + text[end:]
    return text


def _blank(text: str, spans: list[Span]) -> str:
    for start, end, _ in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _swap_words(draft: Draft, name: str, in_message: list[Span], in_question: list[Span]) -> None:
    new = [word for _, _, word in in_message]
    if not new:
        return
    draft.rest = _blank(draft.rest, in_message)
    if in_question:
        if [w for _, _, w in in_question] != new:
            draft.question = _replace(draft.question, in_question, new)
    else:
        draft.front.extend(new)
    draft.rules.append(name)


def level_spans(text: str, facts: SchoolFacts) -> list[Span]:
    """The levels `text` names: the documents' names (and their aliases), or 「N级」 of a level the documents have."""
    names = tuple(w for lv in facts.levels for w in lv.words)
    spans = _find(text, names)
    numbered = [(k.figure.span[0], k.figure.span[1], k.figure.text) for k in
                question_figures(text, facts.level_numbers or None) if k.kind == LEVEL]
    return sorted(spans + [s for s in numbered if all(s[1] <= a or s[0] >= b for a, b, _ in spans)])


def level(draft: Draft) -> None:
    """「二级学费多少？」 + 「那三级呢」 → 「三级学费多少？」."""
    _swap_words(draft, "level", level_spans(draft.rest, draft.facts), level_spans(draft.question, draft.facts))


def slots(draft: Draft) -> None:
    """Each group of interchangeable words: 「三级学费多少」 + 「教材费呢」 → 「三级教材费多少」."""
    for group, listed in slot_groups():
        _swap_words(draft, f"slot.{group}", _find(draft.rest, listed), _find(draft.question, listed))


_FIGURE_KINDS = ((MONEY, ""), (LESSONS, ""), (LESSONS, REMAINING), (WEEKS, ""))


def _figures(text: str, facts: SchoolFacts, kind: str, role: str) -> list[Span]:
    return [(k.figure.span[0], k.figure.span[1], k.figure.text) for k in
            question_figures(text, facts.level_numbers or None) if k.kind == kind and k.role == role]


def figures(draft: Draft) -> None:
    """The student's own figures: 「我报了二级，上了4节课，能退多少？」 + 「那我上了6节呢」 → 「…上了6节课…」; a
    figure the previous question lacks brings the student's clause in front (「我上了6节，退费怎么算」)."""
    for kind, role in _FIGURE_KINDS:
        in_message = _figures(draft.rest, draft.facts, kind, role)
        if not in_message:
            continue
        in_question = _figures(draft.question, draft.facts, kind, role)
        if in_question:
            draft.question = _replace(draft.question, in_question, [w for _, _, w in in_message])
            draft.rest = _blank(draft.rest, in_message)
        else:
            clause = _strip(draft.rest, words("opener"), words("closer")).strip(_PUNCT)
            draft.front.append(clause)
            draft.clause = True
            draft.rest = ""
        draft.rules.append(f"figures.{kind}" + (f".{role}" if role else ""))


def _without(text: str, listed: tuple[str, ...]) -> str:
    return _blank(text, _find(text, listed))


def subject(question: str) -> str:
    """The previous question without its asking words and end marks: what it was about (「退费怎么申请？」 → 「退费申请」)."""
    return re.sub(r"\s+", "", _without(question, words("asking"))).strip(_PUNCT)


def asked(draft: Draft) -> None:
    """A rest that asks something replaces what the previous question asked: 「多久到账？」 after 「退费怎么申请？」."""
    rest = re.sub(r"\s+", "", _strip(draft.rest, words("opener"), ())).strip(_PUNCT)
    if not rest or not read_asked(rest):
        return
    kept = subject(draft.question)
    draft.question = kept + rest.rstrip(_END) + "？"
    draft.rest = ""
    draft.rules.append("asked")


SWAPS: tuple[tuple[str, Callable[[Draft], None]], ...] = (
    ("level", level),
    ("slots", slots),
    ("figures", figures),
    ("asked", asked),
)
RULE_NAMES = tuple(name for name, _ in FOLLOW_UP_RULES) + tuple(name for name, _ in SWAPS)


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


# -- reading a message in its conversation ----------------------------------------------------------------------

def _strip(text: str, openers: tuple[str, ...], closers: tuple[str, ...]) -> str:
    body = text.strip().strip("，,")
    for word in openers:
        if body.startswith(word):
            body = body[len(word):].lstrip("，, ")
            break
    trimmed = body.rstrip(_END + " ")
    for word in closers:
        if trimmed.endswith(word):
            return trimmed[:-len(word)]
    return body


def _courtesy(message: str) -> bool:
    bare = _bare(message).lower()
    return bool(bare) and not re.sub(r"\s+", "", _without(bare, words("courtesy")))


def read_in_context(message: str, previous: Turn | None, *, stands_alone: bool, facts: SchoolFacts = NO_FACTS,
                    rules: frozenset[str] = frozenset(RULE_NAMES)) -> Standalone:
    """The standalone question `message` stands for after `previous` (None: the first message, or the context expired)."""
    if previous is None:
        return Standalone(message, message, FIRST)
    if previous.refused:
        return Standalone(message, message, AFTER_REFUSAL)
    if _courtesy(message):
        return Standalone(message, message, COURTESY)
    if not any(name in rules and rule(message, stands_alone) for name, rule in FOLLOW_UP_RULES):
        return Standalone(message, message, TOPIC_SWITCH)
    draft = Draft(previous.standalone, _strip(message, words("opener"), words("closer")), facts)
    for name, swap in SWAPS:
        if name in rules:
            swap(draft)
    leftover = re.sub(r"\s+", "", _without(draft.rest, words("filler"))).strip(_PUNCT)
    if leftover and leftover not in draft.question:
        if not draft.rules and len(leftover) >= number("own_topic") and not short_marker(message, stands_alone):
            return Standalone(message, message, OWN_QUESTION)
        if not draft.rules:
            draft.front.append(leftover)
            draft.rules.append("front")
    if not draft.rules:
        return Standalone(message, message, OWN_QUESTION)
    joiner = "，" if draft.clause else ""
    question = "".join(draft.front) + joiner + draft.question if draft.front else draft.question
    return Standalone(message, question, FOLLOW_UP, tuple(draft.rules), previous.message_id)
