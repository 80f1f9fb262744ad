"""Where the student's own figures stand in a question, for every kind the case reader reads with a number: what
`question_figures` reads (amount, level, lessons taken or left, weeks, days, which time) and the kinds read by
core.case.kinds' own patterns (a span in months or years, an age, the transfers made so far) — so a follow-up
(「那要是8个月呢」) can swap its figure into the previous question in place.

Same patterns as the reader (no copy): a figure found here is one the reader reads. Left out: what the figure means
for the answer (core.case.reader) and figures without a number (「还没开课」 is a stage word, core.case.words).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from core.case.figures import question_figures
from core.case.kinds import _AGE_RE, _BEFORE_COUNT_RE, _SPAN_RE

SPAN, AGE, MOVED = "span", "age", "moved"  # the kinds read by pattern: 3个月 / 半年, 12岁, 转过一次
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = ((SPAN, _SPAN_RE), (AGE, _AGE_RE), (MOVED, _BEFORE_COUNT_RE))


@dataclass(frozen=True)
class FigureSpan:
    """One figure of the student's, where it stands: its kind (and role, 「remaining」 for lessons left)."""

    kind: str
    role: str
    start: int
    end: int
    text: str


def figure_spans(text: str, levels: Collection[int] | None = None) -> tuple[FigureSpan, ...]:
    """Every figure of the student's `text` states, in text order; a pattern kind never overlaps a figure read first."""
    found = [FigureSpan(k.kind, k.role, k.figure.span[0], k.figure.span[1], k.figure.text)
             for k in question_figures(text, levels)]
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if all(end <= f.start or start >= f.end for f in found):
                found.append(FigureSpan(kind, "", start, end, match.group(0)))
    return tuple(sorted(found, key=lambda f: f.start))
