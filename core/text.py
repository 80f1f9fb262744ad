"""Text normalisation shared by every retriever: lowercase, drop whitespace and punctuation."""

from __future__ import annotations

import re
import unicodedata

_DROP_RE = re.compile(r"[\s\W_]+", re.UNICODE)


def normalize(text: str) -> str:
    """NFKC-fold (全角→半角), lowercase, remove whitespace and punctuation."""
    return _DROP_RE.sub("", unicodedata.normalize("NFKC", text).lower())


def char_ngrams(text: str, max_n: int, min_n: int = 1) -> list[str]:
    """Character n-grams of the normalised text, n from min_n to max_n."""
    clean = normalize(text)
    return [clean[i:i + n] for n in range(min_n, max_n + 1) for i in range(len(clean) - n + 1)]
