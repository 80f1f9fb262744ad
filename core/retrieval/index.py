"""The retrieval index: BM25-weighted character n-gram coverage by default, any Embeddings on request.

Default score of a chunk d for a query q, over the distinct n-grams t of q (1–2 characters,
question words removed, see core/language/text.py):

    score(q, d) = Σ_t idf(t)² · sat(t, d) / Σ_t idf(t)²        ∈ [0, 1]
    sat(t, d)   = tf / (tf + k1 · (1 − b + b · len(d) / avglen))  (BM25 saturation, divided by k1 + 1)
    idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))             (BM25 idf; df = 0 for unseen n-grams)

It is the share of the query's evidence found in the chunk. An n-gram the corpus has never
seen stays in the denominator with the highest idf: a question about 雅思 scores low on a
corpus without 雅思 instead of being judged on its remaining common characters alone. The
query side carries idf once more (idf², as in a TF-IDF dot product) so rare n-grams dominate.

Scoring touches only the postings of the query's n-grams (terms × chunks CSR), and top-k
uses argpartition with a stable tie-break on insertion order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from scipy import sparse

from core.clock import utcnow
from core.language.text import query_keys, term_key
from core.retrieval.postings import count_ngrams

if TYPE_CHECKING:
    from core.corpus.profile import CorpusProfile

NGRAM_RANGE = (1, 2)
K1 = 1.2   # the usual BM25 defaults, not tuned: over k1 0.8–2, b 0.2–0.75 CMRC dev hit@1 stays in 0.975–0.980
B = 0.75
SAT_BLOCK = 1 << 20  # postings entries weighted per step in fit


class Retriever(Protocol):
    """Scores every chunk for a query in one vectorised call (float32, one per chunk)."""

    @property
    def name(self) -> str: ...

    def scores(self, query: str) -> np.ndarray: ...


def index_text(chunk: Document) -> str:
    """What the retriever reads for a chunk: its section heading, then its text."""
    heading = str(chunk.metadata.get("heading") or "")
    return f"{heading}\n{chunk.page_content}" if heading else chunk.page_content


def bm25_idf(df: np.ndarray | int, n_chunks: int) -> np.ndarray:
    return np.log1p((n_chunks - np.asarray(df, dtype=np.float64) + 0.5) / (np.asarray(df, dtype=np.float64) + 0.5))


@dataclass(frozen=True, eq=False)
class LexicalRetriever:
    """BM25-saturated, idf²-weighted share of the query's character n-grams found in each chunk."""

    terms: np.ndarray            # sorted int64 n-gram keys (core.language.text.term_key)
    idf: np.ndarray              # float32, one per term
    postings: sparse.csr_matrix  # terms × chunks, float32 sat(t, d) in [0, 1)
    ngram_range: tuple[int, int] = NGRAM_RANGE
    k1: float = K1
    b: float = B
    name: str = "lexical"

    def __post_init__(self) -> None:
        if self.postings.shape[0] != self.terms.shape[0] or self.idf.shape != self.terms.shape:
            raise ValueError(f"terms ({self.terms.shape[0]}), idf ({self.idf.shape[0]}) and postings rows "
                             f"({self.postings.shape[0]}) must have the same length")

    @classmethod
    def fit(cls, texts: list[str], *, ngram_range: tuple[int, int] = NGRAM_RANGE,
            k1: float = K1, b: float = B) -> LexicalRetriever:
        """Count every n-gram of every text (core.retrieval.postings, slice by slice) and weight the postings."""
        if k1 <= 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"k1 ({k1}) must be positive and b ({b}) between 0 and 1")
        n = len(texts)
        terms, postings, counted = count_ngrams(texts, ngram_range)
        lengths = counted.astype(np.float32)
        del counted
        mean = float(lengths.mean()) if n else 0.0
        norm = k1 * (1.0 - b + b * lengths / mean) if mean > 0 else np.full(n, k1, dtype=np.float32)
        # sat = tf / (tf + norm[chunk]), in place and a block at a time: no temporary of the corpus's size
        tf, chunk = postings.data, postings.indices
        for start in range(0, tf.shape[0], SAT_BLOCK):
            part = tf[start:start + SAT_BLOCK]
            denominator = np.take(norm, chunk[start:start + SAT_BLOCK])
            np.add(part, denominator, out=denominator)
            np.divide(part, denominator, out=part)
        idf = bm25_idf(np.diff(postings.indptr), n).astype(np.float32)
        return cls(terms=terms, idf=idf, postings=postings,
                   ngram_range=cast("tuple[int, int]", tuple(ngram_range)), k1=k1, b=b)  # a list given too

    @property
    def n_chunks(self) -> int:
        return self.postings.shape[1]

    @property
    def unseen_idf(self) -> float:
        """The idf of an n-gram no chunk contains (the largest possible)."""
        return float(bm25_idf(0, self.n_chunks))

    def term_idf(self, term: str) -> float:
        """BM25 idf of one n-gram (1–3 characters, already folded); unseen n-grams get `unseen_idf`."""
        row = self._rows(np.array([term_key(term)], dtype=np.int64))[0]
        return float(self.idf[row]) if row >= 0 else self.unseen_idf

    def query_terms(self, query: str) -> tuple[np.ndarray, np.ndarray, float]:
        """(postings rows of the query's known n-grams, their weights idf², total weight incl. unseen)."""
        keys = query_keys(query, self.ngram_range)
        rows = self._rows(keys)
        known = rows[rows >= 0]
        weights = self.idf[known].astype(np.float64) ** 2
        total = float(weights.sum()) + int((rows < 0).sum()) * self.unseen_idf ** 2
        return known, weights, total

    def scores(self, query: str) -> np.ndarray:
        rows, weights, total = self.query_terms(query)
        if total <= 0.0 or rows.size == 0:
            return np.zeros(self.n_chunks, dtype=np.float32)
        touched = self.postings[rows]  # a copy of just the query's postings lists
        out = touched.T @ (weights / total).astype(np.float32)
        return np.clip(out, 0.0, 1.0, out=out)

    def memory_bytes(self) -> int:
        p = self.postings
        return int(self.terms.nbytes + self.idf.nbytes + p.data.nbytes + p.indices.nbytes + p.indptr.nbytes)

    def _rows(self, keys: np.ndarray) -> np.ndarray:
        """Row of each key in `terms`, −1 where absent."""
        if self.terms.shape[0] == 0:
            return np.full(keys.shape[0], -1, dtype=np.int64)
        pos = np.searchsorted(self.terms, keys)
        pos[pos >= self.terms.shape[0]] = 0
        return np.where(self.terms[pos] == keys, pos, -1)


@dataclass(frozen=True, eq=False)
class DenseRetriever:
    """Cosine over one float32 matrix of L2-normalised embeddings from any `Embeddings`."""

    embeddings: Embeddings
    matrix: np.ndarray  # chunks × dim, rows L2-normalised
    name: str = "dense"

    @classmethod
    def fit(cls, texts: list[str], embeddings: Embeddings) -> DenseRetriever:
        vectors = embeddings.embed_documents(list(texts)) if texts else []
        return cls(embeddings=embeddings, matrix=_normalize_rows(np.asarray(vectors, dtype=np.float32)))

    def scores(self, query: str) -> np.ndarray:
        """Cosine clipped to [0, 1]: a negative cosine is no evidence, like zero overlap."""
        if self.matrix.size == 0:
            return np.zeros(self.matrix.shape[0], dtype=np.float32)
        q = np.asarray(self.embeddings.embed_query(query), dtype=np.float32)
        if q.shape != (self.matrix.shape[1],):
            raise ValueError(f"query vector has {q.size} dimensions, the index has {self.matrix.shape[1]}")
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return np.zeros(self.matrix.shape[0], dtype=np.float32)
        return np.clip(self.matrix @ (q / norm), 0.0, 1.0).astype(np.float32)

    def memory_bytes(self) -> int:
        return int(self.matrix.nbytes)


def _normalize_rows(matrix: np.ndarray) -> np.ndarray:
    if matrix.ndim != 2:
        return matrix.reshape(0, 0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


@dataclass(frozen=True, eq=False)
class SearchIndex:
    """Chunks in insertion order plus the retriever that scores them."""

    chunks: tuple[Document, ...]
    retriever: Retriever | None
    fingerprint: str = ""
    built_at: str = field(default_factory=lambda: utcnow().isoformat(timespec="seconds"))
    profile: CorpusProfile | None = None  # built with the index by core.retrieval.store (answerability's view)

    def __len__(self) -> int:
        return len(self.chunks)

    def memory_bytes(self) -> int:
        """Bytes of the retriever's arrays (postings or vectors); chunk text is not counted."""
        measure = getattr(self.retriever, "memory_bytes", None)
        return int(measure()) if measure else 0


def build_index(chunks: list[Document] | tuple[Document, ...], embeddings: Embeddings | None = None,
                *, fingerprint: str = "") -> SearchIndex:
    """Index `chunks` (heading + text); with `embeddings` the dense cosine replaces the default."""
    chunks = tuple(chunks)
    texts = [index_text(c) for c in chunks]
    retriever: Retriever | None
    if not chunks:
        retriever = None
    elif embeddings is None:
        retriever = LexicalRetriever.fit(texts)
    else:
        retriever = DenseRetriever.fit(texts, embeddings)
    return SearchIndex(chunks=chunks, retriever=retriever, fingerprint=fingerprint)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k best scores, descending, ties broken by lower index first."""
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    candidates = np.arange(n)
    if k < n:
        best = float(scores.max())
        for fraction in (0.5, 0.25, 0.125):  # cheap cuts first: if k chunks reach a share of the best,
            if best > 0 and np.count_nonzero(scores >= fraction * best) >= k:  # nothing below can win
                candidates = np.flatnonzero(scores >= fraction * best)
                break
        part = scores[candidates]
        kth = part[np.argpartition(part, part.shape[0] - k)[part.shape[0] - k:]].min()
        candidates = candidates[part >= kth]  # every chunk tied with the k-th stays in the race
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:k]


def search_with_score(index: SearchIndex, query: str, k: int) -> list[tuple[Document, float]]:
    """The k best chunks with their scores, best first; an empty index gives []."""
    if index.retriever is None or not index.chunks:
        return []
    scores = index.retriever.scores(query)
    return [(index.chunks[i], float(scores[i])) for i in top_k(scores, k)]
