"""The index: default lexical scores, dense cosine through any Embeddings, top-k and its tie-break."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from core.language.text import key_term, ngram_keys, ngrams, query_segments, segments, term_key
from core.retrieval.embeddings import HashingEmbeddings
from core.retrieval.index import (
    DenseRetriever,
    LexicalRetriever,
    build_index,
    index_text,
    search_with_score,
    top_k,
)
from tests.paths import ROOT

QUESTIONS = ["启明英语的口语课一共有几级？", "退费怎么计算？", "你们的雅思保过班多少钱？", "转班", "？？"]


def doc(text: str, n: int = 0, heading: str = "") -> Document:
    return Document(page_content=text, metadata={"source": f"{n:02d}.md", "heading": heading, "chunk": n})


class CountingEmbeddings(Embeddings):
    """Wraps an Embeddings and counts what passes through it."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.documents = 0
        self.queries = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return self.inner.embed_query(text)


# -- default lexical scores -----------------------------------------------------------------------

def test_lexical_score_worked_by_hand():
    # Chunks "ab" and "b": n-grams {a, b, ab} (length 3) and {b} (length 1), average length 2.
    # idf(df=1) = ln(1 + 1.5/1.5) = ln 2; idf(df=2) = ln(1 + 0.5/2.5) = ln 1.2.
    # Chunk 0: every query n-gram found once, sat = 1 / (1 + 1.2·(0.25 + 0.75·3/2)) = 1/2.65.
    # Chunk 1: only "b", sat = 1 / (1 + 1.2·(0.25 + 0.75·1/2)) = 1/1.75, weighted ln²1.2 of 2ln²2 + ln²1.2.
    retriever = build_index([doc("ab", 0), doc("b", 1)]).retriever
    expected = [1 / 2.65, (math.log(1.2) ** 2 / (2 * math.log(2) ** 2 + math.log(1.2) ** 2)) / 1.75]
    assert retriever.scores("ab").tolist() == pytest.approx(expected, rel=1e-6)


def test_lexical_unseen_ngrams_stay_in_the_denominator():
    # Query "az": "a" known (ln 2); "z" and "az" unseen, each weighted idf(df=0)² = ln²(1 + 2.5/0.5) = ln²6.
    retriever = build_index([doc("ab", 0), doc("b", 1)]).retriever
    expected = (1 / 2.65) * math.log(2) ** 2 / (math.log(2) ** 2 + 2 * math.log(6) ** 2)
    assert retriever.scores("az")[0] == pytest.approx(expected, rel=1e-6)
    assert retriever.unseen_idf == pytest.approx(math.log(6))


def test_lexical_scores_are_float32_in_unit_interval(corpus_index):
    for question in QUESTIONS + ["口语课" * 50, "a"]:
        scores = corpus_index.retriever.scores(question)
        assert scores.dtype == np.float32 and scores.shape == (len(corpus_index),)
        assert scores.min() >= 0.0 and scores.max() <= 1.0


def test_lexical_repeated_terms_saturate_below_one():
    retriever = LexicalRetriever.fit(["退费", "转班", "退费退费退费退费"])
    assert int(np.argmax(retriever.scores("退费"))) == 2  # more occurrences saturate towards 1
    assert retriever.scores("退费").max() < 1.0


def test_lexical_question_words_do_not_count():
    retriever = LexicalRetriever.fit(["口语课一共分为四级", "退费按剩余课时计算"])
    assert retriever.scores("口语课一共有几级吗？").tolist() == retriever.scores("口语课一共有，级").tolist()


def test_lexical_query_of_only_question_words_scores_zero():
    assert LexicalRetriever.fit(["什么都有"]).scores("什么？").tolist() == [0.0]


def test_lexical_index_of_punctuation_only_chunks_scores_zero():
    index = build_index([doc("。。。", 0), doc("！", 1)])
    assert [s for _, s in search_with_score(index, "退费", 2)] == [0.0, 0.0]


def test_lexical_term_idf_of_unseen_term_is_the_largest(corpus_index):
    retriever = corpus_index.retriever
    assert retriever.term_idf("雅思") == retriever.unseen_idf > retriever.term_idf("退费") > retriever.term_idf("的")


@pytest.mark.parametrize(("k1", "b"), [(0.0, 0.5), (1.2, -0.1), (1.2, 1.5)])
def test_lexical_fit_rejects_bad_parameters(k1, b):
    with pytest.raises(ValueError, match=f"k1 \\({k1}\\)"):
        LexicalRetriever.fit(["a"], k1=k1, b=b)


def test_default_ranks_the_levels_chunk_first(corpus_index):
    best, _ = search_with_score(corpus_index, "启明英语的口语课一共有几级？", 1)[0]
    assert best.metadata["source"] == "01-口语课分级说明.md"


def test_default_scores_out_of_corpus_question_below_an_answerable_one(corpus_index):
    [(_, unanswerable)] = search_with_score(corpus_index, "你们的雅思保过班多少钱？", 1)
    [(_, answerable)] = search_with_score(corpus_index, "退费的手续费怎么收？", 1)
    assert unanswerable < answerable


def test_index_reads_the_section_heading():
    chunks = [doc("学员本人可以在 App 内提交申请。", 0, heading="申请方式"), doc("说明报读方式和时间。", 1)]
    assert index_text(chunks[0]) == "申请方式\n学员本人可以在 App 内提交申请。"
    best, _ = search_with_score(build_index(chunks), "通过什么方式申请？", 1)[0]
    assert best.metadata["chunk"] == 0


def test_memory_bytes_counts_the_postings(corpus_index):
    p = corpus_index.retriever.postings
    assert corpus_index.memory_bytes() >= p.data.nbytes + p.indices.nbytes + p.indptr.nbytes > 0
    assert build_index([]).memory_bytes() == 0


# -- n-grams --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "启明英语的口语课一共分为四级。", "ＡＰＰ内提交，Ａpp 也行", "面积 50㎡，温度 20℃", "第Ⅱ卷……完", "",
    "a", "。。", "x\0y", "Straße İstanbul", "e\u0301cole", "😀表情😀",
])
def test_ngram_keys_match_the_per_character_reference(text):
    corpus = [text, "退费，转班。", text]
    chunk_ids, keys = ngram_keys(corpus, (1, 2))
    got = sorted(zip(chunk_ids.tolist(), keys.tolist()))
    want = sorted((i, term_key(g)) for i, t in enumerate(corpus) for g in ngrams(segments(t), 1, 2))
    assert got == want


def test_segments_break_at_punctuation_and_whitespace():
    assert segments("退费，怎么算？ App内\n提交") == ["退费", "怎么算", "app内", "提交"]


def test_query_segments_break_at_question_words():
    assert query_segments("口语课一共有几级？学费是多少呢") == ["口语课一共有", "级", "学费是"]


@pytest.mark.parametrize("term", ["a", "退", "退费", "口语课", "😀a"])
def test_term_key_round_trips(term):
    assert key_term(term_key(term)) == term


def test_term_key_rejects_long_terms():
    with pytest.raises(ValueError, match="length \\(4\\)"):
        term_key("口语课程")


# -- dense retrieval through any Embeddings ---------------------------------------------------------

def test_custom_embeddings_is_really_called(corpus_chunks):
    counting = CountingEmbeddings(HashingEmbeddings())
    index = build_index(corpus_chunks, counting)
    search_with_score(index, "退费怎么计算？", 3)
    assert (counting.documents, counting.queries) == (len(corpus_chunks), 1)


def test_swapping_embeddings_with_identical_vectors_keeps_results(corpus_chunks):
    plain = build_index(corpus_chunks, HashingEmbeddings())
    wrapped = build_index(corpus_chunks, CountingEmbeddings(HashingEmbeddings()))
    for question in QUESTIONS:
        assert search_with_score(plain, question, 5) == search_with_score(wrapped, question, 5)


def test_dense_rejects_a_query_vector_of_another_dimension():
    retriever = DenseRetriever.fit(["退费"], HashingEmbeddings(dim=16))
    other = DenseRetriever(embeddings=HashingEmbeddings(dim=8), matrix=retriever.matrix)
    with pytest.raises(ValueError, match="8 dimensions, the index has 16"):
        other.scores("退费")


def test_dense_memory_bytes_is_the_matrix():
    retriever = DenseRetriever.fit(["退费", "转班"], HashingEmbeddings(dim=16))
    assert retriever.memory_bytes() == 2 * 16 * 4


# -- search and top-k -------------------------------------------------------------------------------

@pytest.mark.parametrize("embeddings", [None, HashingEmbeddings()], ids=["lexical", "dense"])
def test_search_scores_are_sorted_descending(corpus_chunks, embeddings):
    index = build_index(corpus_chunks, embeddings)
    for question in QUESTIONS:
        scores = [s for _, s in search_with_score(index, question, 10)]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("embeddings", [None, HashingEmbeddings()], ids=["lexical", "dense"])
def test_search_ties_keep_insertion_order(embeddings):
    chunks = [doc("无关内容", 0)] + [doc("转班手续费 100 元", n) for n in range(1, 5)]
    results = search_with_score(build_index(chunks, embeddings), "转班手续费", 3)
    assert [d.metadata["chunk"] for d, _ in results] == [1, 2, 3]
    assert len({s for _, s in results}) == 1


@pytest.mark.parametrize("k", [0, 1, 3, 26, 100])
def test_search_respects_k(corpus_index, k):
    assert len(search_with_score(corpus_index, "退费", k)) == min(k, len(corpus_index))


@pytest.mark.parametrize("embeddings", [None, HashingEmbeddings()], ids=["lexical", "dense"])
def test_search_on_empty_index_returns_nothing(embeddings):
    assert search_with_score(build_index([], embeddings), "退费", 3) == []


@pytest.mark.parametrize("k", [1, 2, 5, 17, 40, 500, 501])
def test_top_k_equals_brute_force_sort_with_many_ties(k):
    rng = np.random.default_rng(7)
    for _ in range(30):
        scores = rng.integers(0, 6, size=500).astype(np.float32) / 5  # six values: ties everywhere
        brute = sorted(range(500), key=lambda i: (-scores[i], i))[:k]
        assert top_k(scores, k).tolist() == brute


def test_top_k_with_all_zero_scores_is_insertion_order():
    assert top_k(np.zeros(10, dtype=np.float32), 4).tolist() == [0, 1, 2, 3]


# -- determinism ------------------------------------------------------------------------------------

SCRIPT = """
import json, sys
from core.retrieval.embeddings import HashingEmbeddings
from core.retrieval.index import build_index, search_with_score
from core.corpus.loader import load_documents
chunks = load_documents("corpus")
out = {}
for name, emb in (("lexical", None), ("dense", HashingEmbeddings())):
    index = build_index(chunks, emb)
    out[name] = [[[d.metadata["chunk"], d.metadata["source"], repr(s)] for d, s in search_with_score(index, q, 8)]
                 for q in json.loads(sys.argv[1])]
print(json.dumps(out))
"""


def test_scores_and_order_are_identical_across_processes():
    runs = []
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(QUESTIONS)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True, timeout=120)
        runs.append(json.loads(done.stdout))
    assert runs[0] == runs[1]
    assert runs[0]["lexical"][0]  # the comparison was not between two empty lists


def _postings_bytes(retriever: LexicalRetriever) -> list[bytes]:
    p = retriever.postings
    return [retriever.terms.tobytes(), retriever.idf.tobytes(), p.indptr.tobytes(), p.indices.tobytes(), p.data.tobytes()]


def test_counting_in_slices_gives_the_same_postings_as_one_pass(monkeypatch, corpus_chunks):
    from core.retrieval import postings

    texts = [index_text(c) for c in corpus_chunks] + ["", "，。", "单", "Ａ㎡ｂ 学习"]
    whole = LexicalRetriever.fit(texts)
    monkeypatch.setattr(postings, "SLICE_CHARS", 50)  # every few chunks a new slice, and a merge of many blocks
    assert len(list(postings._slices(texts))) > 10
    sliced = LexicalRetriever.fit(texts)
    assert _postings_bytes(sliced) == _postings_bytes(whole)
    assert sliced.postings.has_canonical_format and sliced.postings.indices.dtype == np.int32
    assert [sliced.scores(q).tolist() for q in QUESTIONS] == [whole.scores(q).tolist() for q in QUESTIONS]


def test_fit_weights_the_postings_in_blocks_as_in_one_step(monkeypatch, corpus_chunks):
    import core.retrieval.index as index_module

    texts = [index_text(c) for c in corpus_chunks]
    whole = LexicalRetriever.fit(texts)
    monkeypatch.setattr(index_module, "SAT_BLOCK", 7)
    assert _postings_bytes(LexicalRetriever.fit(texts)) == _postings_bytes(whole)
