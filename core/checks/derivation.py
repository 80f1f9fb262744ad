"""Explain a figure as one arithmetic step from figures the answer shows: 「10 = 16 − 6」.

A student's own case yields figures that neither the question nor the references state (the
remaining lessons 10 of a student who took 6 of 16). Such a figure is supported when one operand
is the question's or a result the answer computed, the other is supported too (question, result or
cited reference), and both operands are written in the answer, so a reader can follow the step.
Left out: chains of two or more steps, and operands 0 and 1 (x + 0 and x × 1 explain anything).
A sum needs both operands from the question or the answer's own results: adding a rule's figure to the
student's (「8 = 2 + 6」, 2 lessons a week plus 6 taken) is an operation nobody made.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from core.checks.arithmetic import TOLERANCE
from core.language.figures import format_number
from core.values import Figure


def _label(figure: Figure) -> str:
    return format_number(figure.value) + ("%" if figure.percent else "")


def operands(figures: Iterable[Figure]) -> dict[float, str]:
    """Value to calculate with → how the answer writes it (5% → 0.05 → "5%"), first writing wins."""
    found: dict[float, str] = {}
    for figure in figures:
        if math.isfinite(figure.amount):
            found.setdefault(round(figure.amount, 6), _label(figure))
    return found


def derive(target: Figure, shown: dict[float, str], sources: set[float], supported: set[float]) -> str | None:
    """「10 = 16 − 6」 when `target` is one step from a value in `sources` (question, computed) and
    one in `supported` (also references), both in `shown` (written in the answer); else None."""
    goal = target.amount
    if not math.isfinite(goal):
        return None
    firsts = [v for v in shown if v in sources and v not in (0, 1)]
    seconds = [v for v in shown if (v in supported or v in sources) and v not in (0, 1)]
    for a in firsts:
        for b in seconds:
            steps = [(a - b, f"{shown[a]} − {shown[b]}"), (b - a, f"{shown[b]} − {shown[a]}"),
                     (a * b, f"{shown[a]} × {shown[b]}"), (a / b, f"{shown[a]} ÷ {shown[b]}"),
                     (b / a, f"{shown[b]} ÷ {shown[a]}")]
            if b in sources:
                steps.insert(0, (a + b, f"{shown[a]} + {shown[b]}"))
            for value, text in steps:
                if abs(value - goal) <= TOLERANCE:
                    return f"{_label(target)} = {text}"
    return None
