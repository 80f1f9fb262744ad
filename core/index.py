"""The retrieval index: IDF-weighted character n-gram cosine by default, any Embeddings on request.

Scoring touches only the postings of the query's n-grams (a sparse product over the
term→chunk matrix), and top-k uses argpartition with a stable tie-break on insertion order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Protocol

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from core.text import normalize

NGRAM_RANGE = (1, 2)


class Retriever(Protocol):
    """Scores every chunk for a query in one vectorised call."""

    name: str

    def scores(self, query: str) -> np.ndarray: ...


def make_vectorizer(vocabulary: dict[str, int] | None = None) -> TfidfVectorizer:
    return TfidfVectorizer(analyzer="char", preprocessor=normalize, lowercase=False,
                           ngram_range=NGRAM_RANGE, sublinear_tf=True, norm="l2",
                           dtype=np.float32, vocabulary=vocabulary)


@dataclass(frozen=True, eq=False)
class LexicalRetriever:
    """TF-IDF (sublinear tf, smooth idf, l2) over character 1–2-grams; scores lie in [0, 1]."""

    vectorizer: TfidfVectorizer
    postings: sparse.csr_matrix  # terms × chunks
    name: str = "lexical"

    @classmethod
    def fit(cls, texts: list[str]) -> "LexicalRetriever":
        vectorizer = make_vectorizer()
        matrix = vectorizer.fit_transform(texts)
        return cls(vectorizer=vectorizer, postings=matrix.T.tocsr())

    def scores(self, query: str) -> np.ndarray:
        n_chunks = self.postings.shape[1]
        q = self.vectorizer.transform([query])
        if q.nnz == 0:
            return np.zeros(n_chunks, dtype=np.float32)
        rows = self.postings[q.indices]  # only the postings lists of the query's n-grams
        return np.clip(rows.T @ q.data, 0.0, 1.0).astype(np.float32)


@dataclass(frozen=True, eq=False)
class DenseRetriever:
    """Cosine over one float32 matrix of L2-normalised embeddings from any `Embeddings`."""

    embeddings: Embeddings
    matrix: np.ndarray  # chunks × dim, rows L2-normalised
    name: str = "dense"

    @classmethod
    def fit(cls, texts: list[str], embeddings: Embeddings) -> "DenseRetriever":
        vectors = embeddings.embed_documents(list(texts)) if texts else []
        return cls(embeddings=embeddings, matrix=_normalize_rows(np.asarray(vectors, dtype=np.float32)))

    def scores(self, query: str) -> np.ndarray:
        if self.matrix.size == 0:
            return np.zeros(self.matrix.shape[0], dtype=np.float32)
        q = np.asarray(self.embeddings.embed_query(query), dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return np.zeros(self.matrix.shape[0], dtype=np.float32)
        return self.matrix @ (q / norm)


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
    built_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    def __len__(self) -> int:
        return len(self.chunks)


def build_index(chunks: list[Document] | tuple[Document, ...], embeddings: Embeddings | None = None,
                *, fingerprint: str = "") -> SearchIndex:
    """Index `chunks`; with `embeddings` the dense cosine is used instead of the default TF-IDF."""
    chunks = tuple(chunks)
    texts = [c.page_content for c in chunks]
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
    if k < n:
        kth = scores[np.argpartition(-scores, k - 1)[:k]].min()
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(n)
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:k]


def search_with_score(index: SearchIndex, query: str, k: int) -> list[tuple[Document, float]]:
    """The k best chunks with their scores, best first; an empty index gives []."""
    if index.retriever is None or not index.chunks:
        return []
    scores = index.retriever.scores(query)
    return [(index.chunks[i], float(scores[i])) for i in top_k(scores, k)]
