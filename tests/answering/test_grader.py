"""The grader (issue #21) against the local OpenAI-compatible server on 127.0.0.1: one request per band
question, none for a clear case, a valid "yes" answers and queues in its own lane, everything else refuses."""

from __future__ import annotations

import json

import pytest

from core.answerability.glossary import load_starter
from core.answering.grader import BadVerdict, in_band, parse_verdict, verdict
from core.answering.providers import make_chat_model
from core.assistant import build_assistant
from core.errors import ConfigError
from core.settings import REFUSAL_TEXT, Settings
from core.stores.db import open_database
from core.stores.review import Filters, ReviewStore
from core.values import Band
from tests.outcomes import outcome_of

BAND_Q = "人工客服有微信吗"  # the gate refuses it narrowly: coverage below the floor, within the band
CLEAR_ANSWER = "启明英语的口语课一共有几级？"
CLEAR_REFUSAL = "你们食堂的饭好吃吗"  # words the corpus never uses: far outside the band
ANSWER = "人工客服的联系方式见资料[1]。"


def grader_requests(fake) -> int:
    return sum(1 for r in fake.requests if r.path == "/v1/chat/completions" and "response_format" in r.body)


def answer_requests(fake) -> int:
    return sum(1 for r in fake.requests if r.path == "/v1/chat/completions" and r.body.get("stream"))


def scripted(fake, verdict_reply) -> None:
    """JSON-mode requests (the grader) get `verdict_reply`; streamed ones (the answer) get ANSWER."""
    fake.script = lambda body: (verdict_reply if isinstance(verdict_reply, str) else json.dumps(
        verdict_reply, ensure_ascii=False)) if "response_format" in body else ANSWER


def make(corpus_index, fake=None, **changes):
    values = {"grader": "band", "llm_max_retries": 0, "llm_timeout": 5.0}
    if fake is not None:
        values.update(llm_base_url=fake.base_url, llm_model="fake-model")
    values.update(changes)
    settings = Settings(**values)
    return build_assistant(settings, corpus_index, load_starter(), chat_model=make_chat_model(settings))


@pytest.fixture
def assistant(corpus_index, fake_openai):
    return make(corpus_index, fake_openai)


def test_the_band_question_is_narrowly_refused_by_the_gate_alone(assistant):
    gate = assistant.gate(assistant.retrieve(BAND_Q))
    assert gate.refused and gate.hits and in_band(gate, assistant.settings.grader_band)


def test_yes_with_a_valid_chunk_answers_after_one_grader_request(assistant, fake_openai):
    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "片段1写了人工客服的联系方式"})
    result = assistant.ask(BAND_Q)
    assert grader_requests(fake_openai) == 1 and answer_requests(fake_openai) == 1
    assert not result.refused and result.text == ANSWER
    assert result.grade.answerable and result.grade.chunks == (1,)
    assert result.reason.startswith("由模型判定可答：片段1写了人工客服的联系方式")
    assert result.grade.prompt_tokens == 120 and result.grade.completion_tokens == 30  # the server's usage
    request = next(r.body for r in fake_openai.requests if "response_format" in r.body)
    assert request["response_format"] == {"type": "json_object"}
    assert BAND_Q in request["messages"][-1]["content"] and "[1]" in request["messages"][-1]["content"]


@pytest.mark.parametrize("reply, says", [
    ({"quote": "片段原句", "answerable": True, "chunks": [9], "reason": "片段9写了"}, "没有给出存在的片段编号"),
    ({"quote": "片段原句", "answerable": True, "chunks": [], "reason": "写了"}, "没有给出存在的片段编号"),
    ({"quote": "片段原句", "answerable": False, "chunks": [], "reason": "片段只讲了工作日的客服时间"}, "模型判定不可答：片段只讲了工作日"),
    ("好的，可以回答。", "模型判定失败，已拒答：模型的回复不是 JSON"),
    ('{"quote": "片段原句", "answerable": "yes", "chunks": [1], "reason": "有"}', "answerable 不是 true 或 false"),
], ids=["yes-bad-chunk", "yes-no-chunk", "no", "not-json", "wrong-type"])
def test_every_other_verdict_refuses_with_a_chinese_reason(assistant, fake_openai, reply, says):
    scripted(fake_openai, reply)
    result = assistant.ask(BAND_Q)
    assert result.refused and result.text == REFUSAL_TEXT and not result.model_called
    assert grader_requests(fake_openai) == 1 and answer_requests(fake_openai) == 0
    assert says in result.reason and result.grade is not None and not result.grade.answerable


def test_a_garbage_reply_refuses_with_the_fault_recorded(assistant, fake_openai):
    fake_openai.garbage = True
    result = assistant.ask(BAND_Q)
    assert result.refused and result.grade.fault == "bad_response" and "模型判定失败" in result.reason
    assert grader_requests(fake_openai) == 1 and answer_requests(fake_openai) == 0


def test_a_timeout_refuses_with_the_fault_recorded(corpus_index, fake_openai):
    fake_openai.delay = 3.0
    assistant = make(corpus_index, fake_openai, llm_timeout=0.3)
    result = assistant.ask(BAND_Q)
    assert result.refused and result.grade.fault == "timeout" and "超时" in result.reason
    assert answer_requests(fake_openai) == 0


def test_a_429_refuses_with_the_fault_recorded(assistant, fake_openai):
    fake_openai.status = 429
    fake_openai.error_message = "rate limit reached"
    result = assistant.ask(BAND_Q)
    assert result.refused and result.grade.fault == "rate_limit" and "429" in result.reason
    assert grader_requests(fake_openai) == 1  # max_retries=0 here; the answers' retry setting applies


def test_retries_are_the_answers_retries(corpus_index, fake_openai):
    fake_openai.status = 500
    result = make(corpus_index, fake_openai, llm_max_retries=1).ask(BAND_Q)
    assert result.refused and result.grade.fault == "server"
    assert grader_requests(fake_openai) == 2  # the first call and one retry, as XIAOE_LLM_MAX_RETRIES=1 says


@pytest.mark.parametrize("question", [CLEAR_ANSWER, CLEAR_REFUSAL])
def test_clear_cases_make_no_grader_request(assistant, fake_openai, question):
    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "x"})
    result = assistant.ask(question)
    assert grader_requests(fake_openai) == 0 and result.grade is None
    assert answer_requests(fake_openai) == (0 if question == CLEAR_REFUSAL else 1)


def test_nothing_passing_the_threshold_makes_no_model_call(assistant, fake_openai):
    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "x"})
    result = assistant.ask(BAND_Q, assistant.knobs.with_(threshold=1.0))
    assert result.refused and not fake_openai.requests  # the seed's rule


def test_grader_off_or_no_model_never_grades(corpus_index, fake_openai):
    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "x"})
    off = make(corpus_index, fake_openai, grader="off")
    assert off.ask(BAND_Q).refused and not fake_openai.requests
    offline = make(corpus_index, None)  # XIAOE_GRADER=band but no chat model configured
    assert not offline.grades and offline.ask(BAND_Q).grade is None


def test_band_edges(assistant):
    gate = assistant.gate(assistant.retrieve(BAND_Q))
    d = gate.decision
    coverage, unknown = d.coverage, d.signals[2].value
    floor = gate.knobs.min_coverage
    assert in_band(gate, Band(coverage_margin=round(floor - coverage, 4), unknown_limit=1.0))
    assert not in_band(gate, Band(coverage_margin=round(floor - coverage - 0.01, 4), unknown_limit=1.0))
    assert in_band(gate, Band(coverage_margin=1.0, unknown_limit=unknown))
    assert not in_band(gate, Band(coverage_margin=1.0, unknown_limit=round(unknown - 0.01, 4)))
    answered = assistant.gate(assistant.retrieve(CLEAR_ANSWER))
    assert not answered.refused and not in_band(answered, Band(1.0, 1.0))  # answers never reach the grader


def test_the_strict_parser():
    assert parse_verdict('```json\n{"quote": "片段原句", "answerable": false, "chunks": [], "reason": "无"}\n```')["answerable"] is False
    for text in ("", "[1, 2]", 'answer: {"quote": "片段原句", "answerable": true}', '{"quote": "片段原句", "answerable": true} 以上'):
        with pytest.raises(BadVerdict):
            parse_verdict(text)
    assert verdict({"quote": "片段原句", "answerable": True, "chunks": [2, 2], "reason": " 有 "}, 2) == (True, (2,), "有")
    assert verdict({"quote": "片段原句", "answerable": True, "chunks": [1, 3], "reason": "有"}, 2)[0] is False
    with pytest.raises(BadVerdict):
        verdict({"quote": "片段原句", "answerable": True, "chunks": [True], "reason": "有"}, 2)


@pytest.mark.parametrize("name, value", [("grader", "on"), ("grader_band_coverage", 1.5),
                                         ("grader_band_unknown", -0.1)])
def test_settings_are_validated_in_chinese(name, value):
    with pytest.raises(ConfigError, match="XIAOE_GRADER"):
        Settings(**{name: value})


def test_the_environment_switches_it_on():
    settings = Settings.from_env({"XIAOE_GRADER": "band", "XIAOE_GRADER_BAND_COVERAGE": "0.1"})
    assert settings.grader == "band" and settings.grader_band == Band(0.1, settings.grader_band_unknown)
    assert Settings.from_env({}).grader == "off"  # off by default


# --- the review queue lane ----------------------------------------------------------------------

@pytest.fixture
def store(tmp_path):
    return ReviewStore(open_database(f"sqlite:///{tmp_path / 'q.sqlite3'}"))


def test_a_graded_answer_queues_in_its_own_lane_with_verdict_and_cost(assistant, fake_openai, store):
    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "片段1写了人工客服的联系方式"})
    result = assistant.ask(BAND_Q)
    item_id = store.record(outcome_of(result, "f"))
    item = store.get(item_id)
    assert item.origin == "grader"
    assert any(r.code == "grader" and "由模型判定可答：片段1写了人工客服的联系方式" in r.message
               and "150 tokens" in r.message for r in item.reasons)
    stored = store.grade(item_id)
    assert stored.answerable and stored.chunks == (1,) and stored.reason == "片段1写了人工客服的联系方式"
    assert (stored.prompt_tokens, stored.completion_tokens, stored.fault) == (120, 30, "")
    assert [i.id for i in store.list(Filters(lane="grader")).items] == [item_id]
    assert store.counts().by_lane["grader"] == {"pending": 1}


def test_a_grader_refusal_is_queued_as_a_refusal_with_the_fault(assistant, fake_openai, store):
    fake_openai.status = 429
    result = assistant.ask(BAND_Q)
    item_id = store.record(outcome_of(result, "f"))
    assert store.get(item_id).origin == "refusal"
    assert store.grade(item_id).fault == "rate_limit"
    assert any("429" in r.message for r in store.get(item_id).reasons)


def test_answers_the_grader_never_saw_have_no_stored_grade(assistant, fake_openai, store):
    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "x"})
    item_id = store.record(outcome_of(assistant.ask(CLEAR_REFUSAL), "f"))
    assert store.grade(item_id) is None and store.get(item_id).origin == "refusal"


def test_cli_ask_goes_through_the_grader(isolated_env, fake_openai, monkeypatch, capsys):
    from core.cli import main

    scripted(fake_openai, {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "片段1写了"})
    for name, value in {"XIAOE_GRADER": "band", "XIAOE_LLM_BASE_URL": fake_openai.base_url,
                        "XIAOE_LLM_MODEL": "fake-model", "XIAOE_LLM_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    assert main(["ask", BAND_Q]) == 0
    out = capsys.readouterr().out
    assert "模型判定：由模型判定可答：片段1写了" in out and "复核队列：已记入（模型判定可答）" in out
    assert grader_requests(fake_openai) == 1


def test_the_grader_quotes_the_answering_sentence_before_its_verdict():
    from core.answering.grader import SYSTEM_PROMPT, VERDICT_SCHEMA

    assert SYSTEM_PROMPT.index('"quote"') < SYSTEM_PROMPT.index('"answerable"')
    assert list(VERDICT_SCHEMA["properties"])[0] == "quote" and "quote" in VERDICT_SCHEMA["required"]
    with pytest.raises(BadVerdict, match="quote"):
        verdict({"answerable": True, "chunks": [1], "reason": "有"}, 2)
    answerable, chunks, reason = verdict({"quote": " ", "answerable": True, "chunks": [1], "reason": "有"}, 2)
    assert (answerable, chunks) == (False, ()) and "没有抄出" in reason
