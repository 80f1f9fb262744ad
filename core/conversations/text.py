"""Small text helpers the follow-up reader shares (core.conversations.swaps, .subjects, .standalone): where words stand
in a message, blanking them out, and the levels it names (core.facts). Left out: any decision or rewrite."""

from __future__ import annotations

import re

from core.case import question_figures
from core.case.figures import LEVEL
from core.values.facts import SchoolFacts

PUNCT = "？?。！!，,；;、 \t"

Span = tuple[int, int, str]


def compact(text: str) -> str:
    return re.sub(r"\s+", "", text).strip(PUNCT)


def find(text: str, candidates: tuple[str, ...]) -> list[Span]:
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


def without(text: str, listed: tuple[str, ...]) -> str:
    return blank(text, find(text, listed))


def blank(text: str, spans: list[Span]) -> str:
    for start, end, _ in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def without_levels(text: str, facts: SchoolFacts) -> str:
    """`text` without the levels it names (`level_spans`): 「流利级多少课时」 → 「多少课时」; 「每一级」 names none."""
    for start, end, _ in reversed(level_spans(text, facts)):
        text = text[:start] + text[end:]
    return text


def level_spans(text: str, facts: SchoolFacts) -> list[Span]:
    """The levels `text` names: the documents' names (and their aliases), or 「N级」 of a level the documents have."""
    names = tuple(w for lv in facts.levels for w in lv.words)
    spans = find(text, names)
    numbered = [(k.figure.span[0], k.figure.span[1], k.figure.text) for k in
                question_figures(text, facts.level_numbers or None) if k.kind == LEVEL]
    return sorted(spans + [s for s in numbered if all(s[1] <= a or s[0] >= b for a, b, _ in spans)])
