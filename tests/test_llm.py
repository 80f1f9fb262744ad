"""The offline answerer: deterministic, extractive, cites every sentence, never invents words."""

from __future__ import annotations

import re

from core.llm import OfflineAnswerer, ScriptedChatModel, compose_answer
from core.prompts import build_messages, parse_human_message
from core.rag import retrieve
from core.settings import REFUSAL_TEXT


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
