"""How much of one term a text holds: the one count the gate, the gate's rules and the offline answerer share.

Kept apart from the analyzer (core.answerability.terms) so that a rule the analyzer's registry lists
(core.answerability.asked) can count terms without importing the analyzer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from core.language.text import normalize
from core.values import Term


def credit(term: Term, texts: Sequence[str], *, graded: bool = False) -> float:
    """1 when a form of `term` (the word or a glossary canonical term) occurs in the texts
    (normalised chunks or sentences), else 0: what the gate counts as covered.

    With `graded` (the offline answerer choosing sentences, core.answering.offline; never the gate) a form also
    earns n/(n+1) with one character inserted (每级 in 每一级: 2/3) and, for a form of 3+
    characters the corpus uses, the share of its character pairs found (可退金额 in 「可退 3420 元」:
    1/3). The gate stopped giving this partial credit: switched off, no blind set got worse (v6, v7).
    """
    best = 0.0
    for form in (normalize(f) for f in term.forms):
        if not form:
            continue
        if any(form in text for text in texts):
            return 1.0
        if not graded:
            continue
        if len(form) >= 2 and any(_gapped(form).search(text) for text in texts):
            best = max(best, len(form) / (len(form) + 1))
        if len(form) >= 3 and term.known:
            pairs = {form[i:i + 2] for i in range(len(form) - 1)}
            best = max(best, sum(any(p in text for text in texts) for p in pairs) / len(pairs))
    return best


@functools.lru_cache(maxsize=4096)
def _gapped(form: str) -> re.Pattern[str]:
    """The form with exactly one character inserted somewhere inside it (每级 → 每.级)."""
    return re.compile("|".join(re.escape(form[:i]) + "." + re.escape(form[i:]) for i in range(1, len(form))))
