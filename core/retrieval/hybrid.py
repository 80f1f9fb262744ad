"""Hybrid retrieval (w·dense + (1−w)·lexical, clipped to [0, 1]) and the index builder that follows settings.

`build_index_for` picks lexical, dense or hybrid from `settings.retriever`; dense and hybrid
embed the chunks through the configured provider with the on-disk cache of core/retrieval/dense.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from core.endpoints import safe_url
from core.errors import ConfigError
from core.retrieval.dense import CachedEmbeddings
from core.retrieval.embeddings import make_embeddings
from core.retrieval.index import DenseRetriever, LexicalRetriever, Retriever, SearchIndex, build_index
from core.settings import Settings

DEFAULT_HYBRID_WEIGHT = 0.5
EMBED_CACHE_DIR = "embeddings"


@dataclass(frozen=True, eq=False)
class HybridRetriever:
    """Blends two retrievers' scores for the same chunks: weight·dense + (1 − weight)·lexical."""

    lexical: Retriever
    dense: Retriever
    weight: float = DEFAULT_HYBRID_WEIGHT
    name: str = "hybrid"

    def __post_init__(self) -> None:
        if not 0.0 <= self.weight <= 1.0:
            raise ConfigError(f"混合检索的向量权重（{self.weight}）必须在 0 到 1 之间。")

    def scores(self, query: str) -> np.ndarray:
        lexical = self.lexical.scores(query)
        dense = self.dense.scores(query)
        if lexical.shape != dense.shape:
            raise ValueError(f"lexical scores {lexical.shape} and dense scores {dense.shape} differ in shape")
        blended = self.weight * dense.astype(np.float32) + (1.0 - self.weight) * lexical.astype(np.float32)
        return np.clip(blended, 0.0, 1.0).astype(np.float32)


def model_key(settings: Settings) -> str:
    """Which vectors a cache row holds: the same model name on another server may differ."""
    return f"{settings.embed_model}@{safe_url(settings.embed_base_url)}"


def cached_embeddings(settings: Settings) -> CachedEmbeddings:
    """The configured provider's embeddings behind the disk cache under settings.index_dir."""
    return CachedEmbeddings(make_embeddings(settings), settings.index_dir / EMBED_CACHE_DIR, model_key(settings))


def build_index_for(settings: Settings, chunks: Sequence[Document], fingerprint: str = "", *,
                    weight: float = DEFAULT_HYBRID_WEIGHT, embeddings: Embeddings | None = None) -> SearchIndex:
    """The index `settings.retriever` asks for; `embeddings` overrides the configured provider."""
    chunks = tuple(chunks)
    if settings.retriever == "lexical":
        return build_index(chunks, fingerprint=fingerprint)
    if embeddings is None:
        if not settings.embed_configured:
            raise ConfigError(f"检索方式 XIAOE_RETRIEVER 设为 {settings.retriever}，需要向量模型："
                              "请设置 XIAOE_EMBED_BASE_URL 和 XIAOE_EMBED_MODEL（以及需要时的 XIAOE_EMBED_API_KEY），"
                              "或把 XIAOE_RETRIEVER 改回 lexical。")
        embeddings = cached_embeddings(settings)
    if settings.retriever == "dense" or not chunks:
        return build_index(chunks, embeddings, fingerprint=fingerprint)
    texts = [c.page_content for c in chunks]
    retriever = HybridRetriever(LexicalRetriever.fit(texts), DenseRetriever.fit(texts, embeddings), weight)
    return SearchIndex(chunks=chunks, retriever=retriever, fingerprint=fingerprint)
