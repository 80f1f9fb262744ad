"""The offline answerer: deterministic, extractive, cites every sentence, never invents words."""

from __future__ import annotations

import re

from core.llm import OfflineAnswerer, ScriptedChatModel, compose_answer
from core.prompts import build_messages, parse_human_message
from core.rag import retrieve
from core.settings import REFUSAL_TEXT
from core.terms import Term


def _refs(corpus_index, question, k=3):
    return [h.document for h in retrieve(question, corpus_index, k)]


def test_parse_human_message_round_trips_references(corpus_index):
    docs = _refs(corpus_index, "退费怎么算")
    parsed = parse_human_message(build_messages("退费怎么算", docs)[1].content)
    assert parsed.question == "退费怎么算"
    assert [n for n, _ in parsed.references] == [1, 2, 3]
    assert [t for _, t in parsed.references] == [d.page_content for d in docs]


def test_offline_answerer_cites_every_sentence(corpus_index):
    docs = _refs(corpus_index, "每节课多长时间？")
    text = OfflineAnswerer().invoke(build_messages("每节课多长时间？", docs)).content
    sentences = [s for s in text.split("。") if s]
    assert sentences and all(re.search(r"\[\d\]$", s) for s in sentences)
    assert "45 分钟" in text


def test_offline_answerer_only_uses_reference_words(corpus_index):
    question = "我报了口语课三级，学费 4800，上了 4 课时不想学了，能退多少钱？"
    docs = _refs(corpus_index, question)
    text = OfflineAnswerer().invoke(build_messages(question, docs)).content
    for sentence in re.split(r"\[\d+\]。", text):
        if sentence:
            assert any(sentence in d.page_content for d in docs), sentence


def test_offline_answerer_is_deterministic(corpus_index):
    messages = build_messages("转班要收费吗", _refs(corpus_index, "转班要收费吗"))
    assert len({OfflineAnswerer().invoke(messages).content for _ in range(3)}) == 1


def test_compose_answer_refuses_when_nothing_overlaps():
    assert compose_answer("雅思", ((1, "口语课一共四级。"),)) == REFUSAL_TEXT


def test_offline_answerer_streams_the_same_text(corpus_index):
    messages = build_messages("教材费退吗", _refs(corpus_index, "教材费退吗"))
    streamed = "".join(str(c.content) for c in OfflineAnswerer().stream(messages))
    assert streamed == OfflineAnswerer().invoke(messages).content


def test_scripted_model_counts_calls_and_repeats_last():
    model = ScriptedChatModel(responses=["一", "二"])
    assert [model.invoke("x").content for _ in range(3)] == ["一", "二", "二"]
    assert model.calls == 3


WEEK = Term("周", 0.55, ("周",), known=True)
HOURS = ("每一级都是 16 课时，每课时 45 分钟。每周上 2 课时，八周结课。"
         "测试结果对应哪一级，就直接报读哪一级，不需要从一级开始。")


def test_compose_answer_without_keywords_misses_a_one_character_topic():
    # 「一级要上几周」 shares the bigram 一级 with the wrong sentence and no bigram with the right one
    assert "八周结课" not in compose_answer("一级要上几周", ((1, HOURS),))


def test_compose_answer_keywords_find_the_sentence_holding_the_topic():
    text = compose_answer("一级要上几周", ((1, HOURS),), (WEEK,))
    assert "八周结课" in text


def test_compose_answer_keywords_count_their_glossary_forms():
    refs = ((1, "各级学费如下：入门级 3600 元。教材一经领取，不予退还。"),)
    assert compose_answer("价钱", refs) == REFUSAL_TEXT
    price = Term("价钱", 1.0, ("价钱", "学费"), known=True, via_glossary=True)
    assert compose_answer("价钱", refs, (price,)) == "各级学费如下：入门级 3600 元[1]。"


def test_offline_answerer_reads_keywords_from_invoke_and_stream(corpus_index):
    docs = _refs(corpus_index, "一级要上几周")
    messages = build_messages("一级要上几周", docs)
    keywords = (WEEK,)
    invoked = OfflineAnswerer().invoke(messages, keywords=keywords).content
    streamed = "".join(str(c.content) for c in OfflineAnswerer().stream(messages, keywords=keywords))
    assert invoked == streamed and "八周结课" in invoked


def test_answer_passes_the_decisions_keywords_to_the_offline_answerer(corpus_index):
    from core import answer

    result = answer("一级要上几周", corpus_index)
    assert not result.refused and "八周结课" in result.text and not result.problems
