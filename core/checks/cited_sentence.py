"""Which sentence of a cited chunk a claim rests on: the one sharing the most character pairs with it.

The answer's sentence before a [n] mark is compared with each sentence of chunk n by the
number of distinct character bigrams they share (punctuation and spaces ignored); ties go to
the earlier sentence. None when no sentence shares a single pair, so nothing is highlighted
rather than something wrong.
"""

from __future__ import annotations

import re

SENTENCE_END = re.compile(r"[。！？；!?;\n]+")
_IGNORED = re.compile(r"[\s\W_]+")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each non-blank sentence, its closing punctuation included."""
    spans, start = [], 0
    for end_mark in SENTENCE_END.finditer(text):
        spans.append((start, end_mark.end()))
        start = end_mark.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def bigrams(text: str) -> set[str]:
    plain = _IGNORED.sub("", text.lower())
    return {plain[i:i + 2] for i in range(len(plain) - 1)}


def best_sentence(chunk: str, claim: str) -> tuple[int, int] | None:
    """The span (in `chunk`) of the sentence sharing the most bigrams with `claim`, or None."""
    wanted = bigrams(claim)
    best, best_score = None, 0
    for start, end in sentences(chunk):
        score = len(wanted & bigrams(chunk[start:end]))
        if score > best_score:
            best, best_score = (start, end), score
    return best


def claim_before(text: str, position: int) -> str:
    """The sentence of `text` that ends at `position` (where a [n] mark starts), without earlier marks."""
    start = max((m.end() for m in SENTENCE_END.finditer(text, 0, position)), default=0)
    return re.sub(r"\[\d+\]", "", text[start:position]).strip()
