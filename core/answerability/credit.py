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
    text = texts[0] if len(texts) == 1 else "\0".join(texts)  # normalised texts hold no NUL: no form spans two
    best = 0.0
    for form, gapped, pairs in _prepared(term.forms):
        if form in text:
            return 1.0
        if not graded:
            continue
        if gapped is not None and gapped.search(text):
            best = max(best, len(form) / (len(form) + 1))
        if pairs and term.known:
            best = max(best, sum(1 for p in pairs if p in text) / len(pairs))
    return best


@functools.lru_cache(maxsize=16384)
def _prepared(forms: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str] | None, frozenset[str]], ...]:
    """Each non-empty form of a term normalised, with what graded credit looks for: the form with one character
    inserted (每级 → 每.级, any character but the NUL that parts two texts; 2+ characters) and its character pairs
    (3+ characters). The same few thousand terms are counted in text after text: read once per term."""
    prepared = []
    for form in (normalize(f) for f in forms):
        if not form:
            continue
        inserted = (re.escape(form[:i]) + "[^\0]" + re.escape(form[i:]) for i in range(1, len(form)))
        gapped = re.compile("|".join(inserted)) if len(form) >= 2 else None
        pairs = frozenset(form[i:i + 2] for i in range(len(form) - 1)) if len(form) >= 3 else frozenset()
        prepared.append((form, gapped, pairs))
    return tuple(prepared)
