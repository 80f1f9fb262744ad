"""The seed's retrieval, rebuilt for comparison: InMemoryVectorStore + HashingEmbeddings, ranked in Python.

The seed stored chunks in langchain's InMemoryVectorStore and ranked them with a Python loop:
one pure-Python cosine per stored record, then a sort on (−score, insertion order). Its scores
equal `DenseRetriever` over `HashingEmbeddings`; only the speed differs, which is what
bench/retrieval_speed.py measures. Not part of the product.
"""

from __future__ import annotations

import math

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from core.retrieval.embeddings import HashingEmbeddings


def build_store(chunks: list[Document], embeddings: HashingEmbeddings | None = None) -> InMemoryVectorStore:
    store = InMemoryVectorStore(embedding=embeddings or HashingEmbeddings())
    store.add_documents(chunks)
    return store


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def loop_search(store: InMemoryVectorStore, query: str, k: int) -> list[tuple[Document, float]]:
    """The seed's ranking: every record scored in a Python loop, ties kept in insertion order."""
    vector = store.embedding.embed_query(query)
    ranked = []
    for order, record in enumerate(store.store.values()):
        ranked.append((_cosine(vector, record["vector"]), order, record))
    ranked.sort(key=lambda row: (-row[0], row[1]))
    return [(Document(id=r["id"], page_content=r["text"], metadata=dict(r["metadata"])), score)
            for score, _, r in ranked[:k]]
