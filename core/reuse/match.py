"""How close two questions are, by the gate's own words: weighted coverage of each one's terms by the other.

Each question's terms come from the answerability analyzer (weights, glossary forms: core.values.Term). The
similarity is the smaller of the two directed coverages — the weighted share of A's terms found (as a word or
a glossary form) in B, and of B's in A — so that 「三级学费多少」 against 「三级教材费多少」 scores the weight of
三级 alone, while 「流利级的学费是多少」 against 「三级多少钱」 scores 1 when the glossary maps both pairs.
Worked example: A = {学费 0.9, 三级 0.6}, B = {学费 0.9, 三级 0.6, 分期 1.0}: A→B = 1.0, B→A = 1.5 / 2.5 = 0.6,
similarity 0.6. A question without weighted terms is similar to nothing (0). The gate's terms leave out question
words (weight 0), so what a question asks for (time, way, amount, place, reason) is compared apart (`asks_other`).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.language.text import normalize
from core.language.words import DATA
from core.values import Term


def _forms(terms: Sequence[Term]) -> set[str]:
    return {normalize(form) for term in terms for form in term.forms if normalize(form)}


def coverage(terms: Sequence[Term], other: Sequence[Term]) -> float:
    """The weighted share of `terms` of which some form is a form of a term of `other`."""
    total = sum(t.weight for t in terms)
    if total <= 0:
        return 0.0
    found = _forms(other)
    return sum(t.weight for t in terms if any(normalize(f) in found for f in t.forms)) / total


def similarity(a: Sequence[Term], b: Sequence[Term]) -> float:
    """min(coverage(a, b), coverage(b, a)), in [0, 1]; symmetric."""
    return round(min(coverage(a, b), coverage(b, a)), 4)


def _attributes() -> tuple[tuple[str, tuple[str, ...]], ...]:
    rows = []
    for line in (DATA / "asked_attributes.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#") and "：" in line:
            name, words = line.split("：", 1)
            rows.append((name.strip(), tuple(sorted(words.split(), key=len, reverse=True))))
    return tuple(rows)


ATTRIBUTES = _attributes()


def asked(question: str) -> frozenset[str]:
    """What the question asks for (时间, 方式, 金额 …: core/data/asked_attributes.txt), from its question words."""
    text = normalize(question)
    return frozenset(name for name, words in ATTRIBUTES if any(w in text for w in words))


def asks_other(a: str, b: str) -> frozenset[str] | None:
    """None when the two questions may ask the same thing; else what each asks, when they ask for different
    things (「几点到几点可以找人工」 时间 against 「怎么叫人工」 方式). A question with no such word asks anything."""
    x, y = asked(a), asked(b)
    return None if not x or not y or x & y else x | y
