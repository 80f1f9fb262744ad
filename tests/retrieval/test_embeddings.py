"""HashingEmbeddings (the seed's vectoriser) and the cosine helper."""

from __future__ import annotations

import numpy as np
import pytest

from core.retrieval.embeddings import HashingEmbeddings


@pytest.mark.parametrize("dim", [8, 64, 512])
def test_hashing_embeddings_have_fixed_dimension(dim):
    embedder = HashingEmbeddings(dim=dim)
    assert len(embedder.embed_query("口语课一共分为四级")) == dim
    assert {len(v) for v in embedder.embed_documents(["退费", "转班规则", "a"])} == {dim}


@pytest.mark.parametrize("text", ["口语课一共分为四级", "Refund policy", "退"])
def test_hashing_embeddings_are_l2_normalised(text):
    assert np.linalg.norm(HashingEmbeddings().embed_query(text)) == pytest.approx(1.0, abs=1e-6)


def test_hashing_embeddings_batch_equals_single():
    embedder = HashingEmbeddings()
    texts = ["开课前申请退费的，学费全额退还。", "每班不超过 8 人", ""]
    assert embedder.embed_documents(texts) == [embedder.embed_query(t) for t in texts]


def test_hashing_embeddings_are_reproducible_across_instances():
    assert HashingEmbeddings().embed_query("转班手续费") == HashingEmbeddings().embed_query("转班手续费")


@pytest.mark.parametrize("variant", ["退费，怎么算？", "退费怎么算", " 退费 怎么算！ ", "退费怎么算?"])
def test_hashing_embeddings_ignore_punctuation_and_spacing(variant):
    assert HashingEmbeddings().embed_query(variant) == HashingEmbeddings().embed_query("退费怎么算")


def test_hashing_embeddings_ignore_case_and_full_width():
    assert HashingEmbeddings().embed_query("ＡＰＰ") == HashingEmbeddings().embed_query("app")


@pytest.mark.parametrize("text", ["", "   ", "，。！？"])
def test_hashing_embeddings_of_empty_text_is_zero_vector(text):
    assert HashingEmbeddings(dim=16).embed_query(text) == [0.0] * 16


@pytest.mark.parametrize(("dim", "max_n"), [(0, 2), (16, 0)])
def test_hashing_embeddings_reject_non_positive_settings(dim, max_n):
    with pytest.raises(ValueError, match=f"dim \\({dim}\\)"):
        HashingEmbeddings(dim=dim, max_n=max_n)


