"""Embeddings behind langchain's interface: the seed's offline HashingEmbeddings and the configured provider's.

Character 1..max_n grams are hashed with blake2b (never `hash()`, which changes with
PYTHONHASHSEED) into `dim` buckets, counted, and L2-normalised. It knows letters, not meaning.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

from core.endpoints import PLACEHOLDER_KEY, check_base_url, check_call_limits
from core.errors import ConfigError, ModelError
from core.language.text import char_ngrams
from core.provider_errors import as_model_error, register_secret
from core.settings import Settings

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


# --- the configured provider's embeddings ---------------------------------------------------

# DashScope's compatible mode accepts at most 10 texts per embeddings request; the others more.
EMBED_BATCH = 10


def make_embeddings(settings: Settings) -> ProviderEmbeddings:
    """OpenAIEmbeddings for the configured server, wrapped so every failure is a ModelError.

    Raw strings are sent (no tiktoken, which only knows OpenAI's models), vectors come back as
    floats (some servers cannot encode base64), EMBED_BATCH texts a request, and the chat
    model's timeout and retry settings apply.
    """
    if not settings.embed_configured:
        raise ConfigError("还没有配置向量模型：请设置 XIAOE_EMBED_BASE_URL 和 XIAOE_EMBED_MODEL，"
                          "或把检索方式 XIAOE_RETRIEVER 改回 lexical。")
    check_base_url(settings.embed_base_url, "XIAOE_EMBED_BASE_URL")
    check_call_limits(settings)
    register_secret(settings.embed_api_key)
    from langchain_openai import OpenAIEmbeddings  # late, as in make_chat_model

    inner = OpenAIEmbeddings(base_url=settings.embed_base_url, model=settings.embed_model,
                             api_key=SecretStr(settings.embed_api_key or PLACEHOLDER_KEY),
                             check_embedding_ctx_length=False,
                             chunk_size=EMBED_BATCH, timeout=settings.llm_timeout,
                             max_retries=settings.llm_max_retries,
                             model_kwargs={"encoding_format": "float"})
    return ProviderEmbeddings(inner)


class ProviderEmbeddings(Embeddings):
    """Wraps a provider's Embeddings: failures become ModelError, malformed replies are caught."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        try:
            vectors = self.inner.embed_documents(list(texts))
        except Exception as error:  # noqa: BLE001 - every provider failure becomes a ModelError
            raise as_model_error(error, source="embed", outcome="索引没有建成") from error
        return checked_vectors(vectors, len(texts), outcome="索引没有建成")

    def embed_query(self, text: str) -> list[float]:
        outcome = "本次没有检索资料，也没有生成回答"
        try:
            vector = self.inner.embed_query(text)
        except Exception as error:  # noqa: BLE001 - every provider failure becomes a ModelError
            raise as_model_error(error, source="embed", outcome=outcome) from error
        return checked_vectors([vector], 1, outcome=outcome)[0]


def checked_vectors(vectors: list[list[float]], expected: int, *, outcome: str) -> list[list[float]]:
    """The vectors if there is one per text and they share one non-zero length."""
    lengths = {len(v) for v in vectors}
    if len(vectors) != expected or len(lengths) > 1 or 0 in lengths:
        raise ModelError(f"向量模型返回的结果不对：发来 {expected} 段文字，收到 {len(vectors)} 个向量，"
                         f"长度为 {sorted(lengths)}，{outcome}。请检查 XIAOE_EMBED_MODEL 是否是向量（embedding）模型。",
                         kind="bad_response")
    return vectors


