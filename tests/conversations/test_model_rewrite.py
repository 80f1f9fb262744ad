"""The optional model rewrite of a follow-up: the model is asked only for a follow-up, over real HTTP (a scripted
OpenAI-compatible server on 127.0.0.1), and its text stands only when the guard accepts it."""

from __future__ import annotations

import pytest

from core.answerability.glossary import load_starter
from core.answering.providers import make_chat_model
from core.assistant import build_assistant
from core.conversations.model_rewrite import guard
from core.settings import Settings
from core.values.conversations import Turn
from tests.school import shipped_facts

PREVIOUS = "二级学费多少？"


@pytest.mark.parametrize(("candidate", "why"), [
    ("三级的学费是多少？", ""),
    ("三级的学费是 4800 元。", "不是一个问题"),
    ("三级学费多少？另外" + "请问" * 30 + "？", "超过了"),
    ("三级学费4800元吗？", "没有的数字：4800元"),
    ("商务级学费多少？", "没有的名字：商务级"),
])
def test_guard_takes_a_question_with_nothing_new(candidate, why):
    found = guard(candidate, PREVIOUS, "那三级呢？", "三级学费多少？", shipped_facts())
    assert (why in found) if why else found == ""


def _assistant(corpus_index, fake, **changes):
    settings = Settings(**{"llm_base_url": fake.base_url, "llm_model": "fake-model", "llm_max_retries": 0,
                           "llm_timeout": 5.0, "followup_model": "on", **changes})
    return build_assistant(settings, corpus_index, load_starter(), chat_model=make_chat_model(settings))


def test_model_rewrite_stands_when_the_guard_accepts_it(corpus_index, fake_openai):
    fake_openai.reply = "三级的学费是多少？"
    read = _assistant(corpus_index, fake_openai).in_context("那三级呢？", Turn(PREVIOUS, False))
    assert (read.question, read.rules[-1]) == ("三级的学费是多少？", "model")
    asked = [r for r in fake_openai.requests if r.path == "/v1/chat/completions"]
    assert len(asked) == 1 and "那三级呢？" in str(asked[0].body["messages"])


def test_model_rewrite_that_answers_instead_keeps_the_rule_rewrite(corpus_index, fake_openai):
    fake_openai.reply = "三级的学费是 4800 元。"  # the model answered instead of rewriting (FastGPT#651)
    read = _assistant(corpus_index, fake_openai).in_context("那三级呢？", Turn(PREVIOUS, False))
    assert read.question == "三级学费多少？" and "model" not in read.rules


def test_model_is_not_asked_for_a_topic_switch_or_without_the_setting(corpus_index, fake_openai):
    fake_openai.reply = "不该用到"
    assistant = _assistant(corpus_index, fake_openai)
    assert assistant.in_context("一个班最多多少人？", Turn(PREVIOUS, False)).question == "一个班最多多少人？"
    off = _assistant(corpus_index, fake_openai, followup_model="off")
    assert off.in_context("那三级呢？", Turn(PREVIOUS, False)).question == "三级学费多少？"
    assert not [r for r in fake_openai.requests if r.path == "/v1/chat/completions"]
