"""HybridRetriever by hand, and build_index_for through the fake provider with the embedding cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from core import answer
from core.errors import ConfigError, ModelError
from core.retrieval.embeddings import HashingEmbeddings
from core.retrieval.hybrid import HybridRetriever, build_index_for, model_key
from core.retrieval.index import search_with_score
from core.settings import Settings

EMBED_KEY = "sk-embed-9876543210fedcbaSECRET"


@dataclass(frozen=True)
class FixedRetriever:
    values: tuple[float, ...]
    name: str = "fixed"

    def scores(self, query: str) -> np.ndarray:
        return np.asarray(self.values, dtype=np.float32)


def embed_settings(server, tmp_path, **changes) -> Settings:
    values = dict(data_dir=tmp_path, retriever="hybrid", embed_base_url=server.base_url,
                  embed_model="fake-embed", embed_api_key=EMBED_KEY, llm_timeout=0.5, llm_max_retries=0)
    values.update(changes)
    return Settings(**values)


def test_hybrid_scores_worked_by_hand():
    lexical = FixedRetriever((0.2, 0.8, 0.0, 1.0))
    dense = FixedRetriever((0.6, -0.4, 1.0, 1.0))
    scores = HybridRetriever(lexical, dense, weight=0.25).scores("q")
    # 0.25·0.6 + 0.75·0.2 = 0.30;  0.25·(−0.4) + 0.75·0.8 = 0.50;  0.25·1 + 0 = 0.25;  1.0
    assert np.allclose(scores, [0.30, 0.50, 0.25, 1.0])


def test_hybrid_scores_are_clipped_at_zero():
    scores = HybridRetriever(FixedRetriever((0.0,)), FixedRetriever((-0.9,)), weight=0.5).scores("q")
    assert scores.tolist() == [0.0]


@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_hybrid_retriever_rejects_weight_outside_unit_interval(weight):
    with pytest.raises(ConfigError, match=str(weight)):
        HybridRetriever(FixedRetriever((0.0,)), FixedRetriever((0.0,)), weight=weight)


def test_hybrid_retriever_rejects_different_chunk_counts():
    with pytest.raises(ValueError, match="shape"):
        HybridRetriever(FixedRetriever((0.0,)), FixedRetriever((0.0, 1.0))).scores("q")


def test_build_index_for_lexical_needs_no_provider(tmp_path, corpus_chunks):
    index = build_index_for(Settings(data_dir=tmp_path), corpus_chunks, "fp")
    assert index.retriever.name == "lexical" and index.fingerprint == "fp"


@pytest.mark.parametrize("retriever", ["dense", "hybrid"])
def test_build_index_for_without_embed_settings_raises_config_error(tmp_path, corpus_chunks, retriever):
    with pytest.raises(ConfigError, match="XIAOE_EMBED_BASE_URL"):
        build_index_for(Settings(data_dir=tmp_path, retriever=retriever), corpus_chunks, "fp")


def test_build_index_for_hybrid_accepts_offline_embeddings(tmp_path, corpus_chunks):
    index = build_index_for(Settings(data_dir=tmp_path, retriever="hybrid"), corpus_chunks, "fp",
                            embeddings=HashingEmbeddings())
    assert index.retriever.name == "hybrid"


def test_build_index_for_dense_through_the_server(fake_openai, tmp_path, corpus_chunks):
    index = build_index_for(embed_settings(fake_openai, tmp_path, retriever="dense"), corpus_chunks, "fp")
    (doc, score), *_ = search_with_score(index, "教材费多少钱", 3)
    assert index.retriever.name == "dense" and 0.0 < score <= 1.0 + 1e-6
    first = fake_openai.requests[0]
    assert first.headers["authorization"] == f"Bearer {EMBED_KEY}"
    assert first.body["encoding_format"] == "float" and all(isinstance(t, str) for t in first.body["input"])
    assert max(len(r.body["input"]) for r in fake_openai.requests) <= 10


def test_build_index_for_second_build_hits_the_cache(fake_openai, tmp_path, corpus_chunks):
    settings = embed_settings(fake_openai, tmp_path)
    build_index_for(settings, corpus_chunks, "fp")
    sent = fake_openai.count("/v1/embeddings")
    build_index_for(settings, corpus_chunks, "fp")
    assert sent > 0 and fake_openai.count("/v1/embeddings") == sent


def test_build_index_for_cache_is_per_model(fake_openai, tmp_path, corpus_chunks):
    build_index_for(embed_settings(fake_openai, tmp_path), corpus_chunks[:3], "fp")
    sent = fake_openai.count("/v1/embeddings")
    build_index_for(embed_settings(fake_openai, tmp_path, embed_model="other"), corpus_chunks[:3], "fp")
    assert fake_openai.count("/v1/embeddings") > sent


def test_model_key_names_model_and_server_without_credentials():
    settings = Settings(embed_base_url="https://u:pw@api.example.com/v1", embed_model="bge-m3")
    assert model_key(settings) == "bge-m3@https://api.example.com/v1"


def test_hybrid_scores_through_the_server_lie_in_unit_interval(fake_openai, tmp_path, corpus_chunks):
    index = build_index_for(embed_settings(fake_openai, tmp_path), corpus_chunks, "fp")
    for question in ["口语课一共有几级？", "退费怎么算", "今天天气怎么样"]:
        scores = index.retriever.scores(question)
        assert scores.shape == (len(corpus_chunks),)
        assert scores.min() >= 0.0 and scores.max() <= 1.0


def test_hybrid_answer_through_the_server(fake_openai, tmp_path, corpus_chunks):
    index = build_index_for(embed_settings(fake_openai, tmp_path), corpus_chunks, "fp")
    result = answer("口语课一共有几级？", index, min_score=0.05)
    assert not result.refused and result.model_called


def test_query_embedding_failure_is_a_model_error_naming_embed_key(fake_openai, tmp_path, corpus_chunks):
    index = build_index_for(embed_settings(fake_openai, tmp_path), corpus_chunks, "fp")
    fake_openai.status = 401
    with pytest.raises(ModelError) as info:
        answer("口语课一共有几级？", index)
    assert info.value.kind == "auth"
    assert "XIAOE_EMBED_API_KEY" in str(info.value) and EMBED_KEY not in str(info.value)


def test_index_build_failure_says_the_index_was_not_built(fake_openai, tmp_path, corpus_chunks):
    fake_openai.garbage = True
    with pytest.raises(ModelError, match="索引没有建成") as info:
        build_index_for(embed_settings(fake_openai, tmp_path), corpus_chunks, "fp")
    assert info.value.kind == "bad_response"
