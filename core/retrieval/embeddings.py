"""HashingEmbeddings: the seed's deterministic, offline vectoriser behind langchain's Embeddings.

Character 1..max_n grams are hashed with blake2b (never `hash()`, which changes with
PYTHONHASHSEED) into `dim` buckets, counted, and L2-normalised. It knows letters, not meaning.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
from langchain_core.embeddings import Embeddings

from core.corpus.text import char_ngrams

DEFAULT_DIM = 512


@lru_cache(maxsize=262_144)
def _bucket(gram: str, dim: int) -> int:
    digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") % dim


def embed_matrix(texts: list[str], *, dim: int = DEFAULT_DIM, max_n: int = 2) -> np.ndarray:
    """A (len(texts), dim) float32 matrix of L2-normalised hashed n-gram counts."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        grams = char_ngrams(text, max_n)
        if grams:
            buckets = np.fromiter((_bucket(g, dim) for g in grams), dtype=np.int64, count=len(grams))
            out[row] = np.bincount(buckets, minlength=dim)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def cosine_similarity(a: list[float], b: list[float]) -> float:
    """Cosine of two equal-length vectors; 0.0 when either is all zeros."""
    if len(a) != len(b):
        raise ValueError(f"vector lengths differ: {len(a)} vs {len(b)}")
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb / denom) if denom else 0.0


class HashingEmbeddings(Embeddings):
    """Deterministic hashed character n-gram embeddings; empty text gives the zero vector."""

    def __init__(self, dim: int = DEFAULT_DIM, max_n: int = 2) -> None:
        if dim <= 0 or max_n <= 0:
            raise ValueError(f"dim ({dim}) and max_n ({max_n}) must be positive")
        self.dim = dim
        self.max_n = max_n

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return embed_matrix(list(texts), dim=self.dim, max_n=self.max_n).tolist()

    def embed_query(self, text: str) -> list[float]:
        return embed_matrix([text], dim=self.dim, max_n=self.max_n)[0].tolist()
