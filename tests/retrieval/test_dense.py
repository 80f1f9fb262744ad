"""CachedEmbeddings: disk cache keyed by sha256 + model, only new texts sent, queries in a small LRU."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from core.retrieval.dense import CACHE_FILE, CachedEmbeddings, content_key
from core.retrieval.embeddings import HashingEmbeddings


class CountingEmbeddings(Embeddings):
    """HashingEmbeddings that remembers every batch it was asked for."""

    def __init__(self) -> None:
        self.inner = HashingEmbeddings(dim=16)
        self.batches: list[list[str]] = []
        self.queries: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self.inner.embed_query(text)


TEXTS = ["每一级都是 16 课时。", "教材费每级 280 元。", "开课前申请退费，全额退还。"]


def test_content_key_is_sha256_of_utf8():
    assert content_key("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_cached_embeddings_returns_the_inner_vectors(tmp_path):
    inner = CountingEmbeddings()
    vectors = CachedEmbeddings(inner, tmp_path, "m").embed_documents(TEXTS)
    expected = np.asarray(HashingEmbeddings(dim=16).embed_documents(TEXTS), dtype=np.float32)
    assert np.array_equal(np.asarray(vectors, dtype=np.float32), expected)


def test_cached_embeddings_restart_embeds_nothing(tmp_path):
    first = CachedEmbeddings(CountingEmbeddings(), tmp_path, "m")
    before = first.embed_documents(TEXTS)
    inner = CountingEmbeddings()
    after = CachedEmbeddings(inner, tmp_path, "m").embed_documents(TEXTS)  # a new process, same folder
    assert inner.batches == []
    assert after == before


def test_cached_embeddings_sends_only_new_texts(tmp_path):
    CachedEmbeddings(CountingEmbeddings(), tmp_path, "m").embed_documents(TEXTS)
    inner = CountingEmbeddings()
    cache = CachedEmbeddings(inner, tmp_path, "m")
    cache.embed_documents([*TEXTS, "新增的一段。"])
    assert inner.batches == [["新增的一段。"]]
    assert cache.sent == 1


def test_cached_embeddings_sends_a_repeated_text_once(tmp_path):
    inner = CountingEmbeddings()
    vectors = CachedEmbeddings(inner, tmp_path, "m").embed_documents(["同一段。", "另一段。", "同一段。"])
    assert inner.batches == [["同一段。", "另一段。"]]
    assert vectors[0] == vectors[2]


def test_cached_embeddings_keeps_models_apart(tmp_path):
    CachedEmbeddings(CountingEmbeddings(), tmp_path, "model-a").embed_documents(TEXTS)
    inner = CountingEmbeddings()
    CachedEmbeddings(inner, tmp_path, "model-b").embed_documents(TEXTS)
    assert inner.batches == [TEXTS]


def test_cached_embeddings_stores_one_row_per_text_and_model(tmp_path):
    cache = CachedEmbeddings(CountingEmbeddings(), tmp_path, "m")
    cache.embed_documents(TEXTS)
    cache.embed_documents(TEXTS)
    assert cache.cached_count() == len(TEXTS)
    with sqlite3.connect(tmp_path / CACHE_FILE) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1


def test_cached_embeddings_does_not_write_queries_to_disk(tmp_path):
    cache = CachedEmbeddings(CountingEmbeddings(), tmp_path, "m")
    cache.embed_query("口语课有几级？")
    assert cache.cached_count() == 0


def test_cached_embeddings_query_lru_evicts_the_oldest(tmp_path):
    inner = CountingEmbeddings()
    cache = CachedEmbeddings(inner, tmp_path, "m", query_cache_size=2)
    for question in ["一", "二", "一", "三", "二"]:
        cache.embed_query(question)
    assert inner.queries == ["一", "二", "三", "二"]  # "二" was evicted by "三"; "一" was used more recently


def test_cached_embeddings_rejects_empty_model_key(tmp_path):
    with pytest.raises(ValueError, match="model_key"):
        CachedEmbeddings(CountingEmbeddings(), tmp_path, "")
