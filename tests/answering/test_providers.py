"""Providers through the real langchain-openai client against tests/fake_openai.py over HTTP."""

from __future__ import annotations

import json
import logging
import socket

import pytest

from core import answer, build_assistant
from core.answering.offline import OfflineAnswerer
from core.answering.provider_info import describe_providers, describe_settings
from core.answering.providers import make_chat_model, test_connection
from core.endpoints import mask_key, safe_db_url, safe_url
from core.errors import ConfigError, ModelError
from core.settings import Settings

KEY = "sk-test-0123456789abcdefSECRET"
EMBED_KEY = "sk-embed-9876543210fedcbaSECRET"
QUESTION = "口语课一共有几级？每一级多少课时？"
# [1] is 二、课时安排与班型 (first: it carries both kinds asked, asked_rank), [2] the FAQ stating 一共四级
GOOD = "每一级都是 16 课时，每课时 45 分钟[1]。口语课一共四级[2]。"
FABRICATED = "口语课一共六级，每级 12 课时[7]。"
LOW = 0.05  # low enough that the question above passes the gate on the shipped corpus


def make_settings(server, tmp_path, **changes) -> Settings:
    values = dict(data_dir=tmp_path, llm_base_url=server.base_url, llm_model="fake-chat", llm_api_key=KEY,
                  llm_timeout=0.5, llm_max_retries=0, embed_base_url=server.base_url,
                  embed_model="fake-embed", embed_api_key=EMBED_KEY)
    values.update(changes)
    return Settings(**values)


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- make_chat_model -------------------------------------------------------------------------

def test_make_chat_model_offline_when_not_configured(tmp_path):
    assert isinstance(make_chat_model(Settings(data_dir=tmp_path)), OfflineAnswerer)


def test_make_chat_model_offline_when_model_name_missing(tmp_path):
    settings = Settings(data_dir=tmp_path, llm_base_url="http://127.0.0.1:9/v1")
    assert isinstance(make_chat_model(settings), OfflineAnswerer)


@pytest.mark.parametrize("url", ["api.deepseek.com", "ftp://example.com/v1", "http://"])
def test_make_chat_model_rejects_bad_base_url(tmp_path, url):
    settings = Settings(data_dir=tmp_path, llm_base_url=url, llm_model="m")
    with pytest.raises(ConfigError, match="XIAOE_LLM_BASE_URL") as info:
        make_chat_model(settings)
    assert url in str(info.value)


def test_make_chat_model_rejects_zero_timeout(tmp_path):
    settings = Settings(data_dir=tmp_path, llm_base_url="http://127.0.0.1:9/v1", llm_model="m", llm_timeout=0)
    with pytest.raises(ConfigError, match="XIAOE_LLM_TIMEOUT"):
        make_chat_model(settings)


# -- answering through the server ------------------------------------------------------------

PAID = "我报的二级 交了4200 上了6节课 现在退能退多少"
# The refund rules' worked example (三级, 4800 元, 4 课时), as a model that copies it would answer.
REUSED = "剩余 12 课时，4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，可退 3420 元[2]。"
# Worked by hand: 16 − 6 = 10; 4200 × 10 ÷ 16 = 2625; 2625 × 5% = 131.25; 2625 − 131.25 = 2493.75.
OWN = ("可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费[1]。你上了 6 课时，总课时 16，剩余 10 课时，"
       "4200 × 10 ÷ 16 = 2625 元，手续费 2625 × 5% = 131.25 元，可退 2625 − 131.25 = 2493.75 元[1][2]。")


@pytest.mark.parametrize(("reply", "codes"), [(REUSED, ["question_mismatch"]), (OWN, [])], ids=["reuses-example", "own-figures"])
def test_answer_from_a_real_model_is_checked_against_the_students_figures(fake_openai, tmp_path, corpus_index,
                                                                         reply, codes):
    fake_openai.reply = reply
    result = answer(PAID, corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)))
    # the model saw the rule and the worked example; citations are renumbered in order of first use
    assert {(h.source[:2], "示例" in h.text) for h in result.hits[:2]} == {("02", False), ("02", True)}
    assert [p.code for p in result.problems] == codes
    assert result.flagged is bool(codes)
    system = fake_openai.requests[0].body["messages"][0]["content"]
    assert "必须用学员自己的数字一步一步算出结果" in system and "不要因为要计算而拒答" in system
    # the refusal is only for documents with neither the answer nor a rule to compute it
    assert system.index("只有参考资料里既没有答案、也没有能算出答案的规则时") > system.index("一步一步算出结果")

def test_answer_good_cited_reply_is_not_flagged(fake_openai, tmp_path, corpus_index):
    fake_openai.reply = GOOD
    llm = make_chat_model(make_settings(fake_openai, tmp_path))
    result = answer(QUESTION, corpus_index, llm, min_score=LOW)
    assert result.text == GOOD
    assert result.model_called and not result.refused
    assert not result.flagged


def test_answer_sends_key_model_and_stream_flag(fake_openai, tmp_path, corpus_index):
    fake_openai.reply = GOOD
    answer(QUESTION, corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)), min_score=LOW)
    (request,) = fake_openai.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "fake-chat"
    assert request.body["stream"] is True
    assert request.body["temperature"] == 0


def test_answer_without_key_sends_placeholder_not_env_key(fake_openai, tmp_path, corpus_index, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-someone-elses-environment")
    fake_openai.reply = GOOD
    llm = make_chat_model(make_settings(fake_openai, tmp_path, llm_api_key=""))
    answer(QUESTION, corpus_index, llm, min_score=LOW)
    assert fake_openai.requests[0].headers["authorization"] == "Bearer EMPTY"


def test_answer_fabricated_reply_is_flagged_bad_ref(fake_openai, tmp_path, corpus_index):
    fake_openai.reply = FABRICATED
    result = answer(QUESTION, corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)),
                        min_score=LOW)
    assert result.flagged
    assert "bad_ref" in {p.code for p in result.problems}


def test_stream_text_yields_several_chunks(fake_openai, tmp_path, corpus_index):
    fake_openai.reply = GOOD
    assistant = build_assistant(Settings(), corpus_index, None,
                                chat_model=make_chat_model(make_settings(fake_openai, tmp_path)))
    gate = assistant.gate(assistant.retrieve(QUESTION), assistant.knobs.with_(threshold=LOW))
    pieces = [p for p in assistant.outcome_stream(gate) if isinstance(p, str) and p]
    assert len(pieces) >= 5
    assert "".join(pieces) == GOOD


def test_refusal_gate_never_calls_the_server(fake_openai, tmp_path, corpus_index):
    result = answer("今天天气怎么样", corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)))
    assert result.refused and not result.model_called
    assert fake_openai.requests == []


def test_answer_empty_reply_raises_empty_answer(fake_openai, tmp_path, corpus_index):
    fake_openai.reply = ""
    with pytest.raises(ModelError) as info:
        answer(QUESTION, corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)), min_score=LOW)
    assert info.value.kind == "empty_answer"


FAILURES = [
    # (server script, kind, words the Chinese message must contain)
    ({"delay": 1.5}, "timeout", ["超时", "XIAOE_LLM_TIMEOUT"]),
    ({"status": 500}, "server", ["HTTP 500", "稍后重试"]),
    ({"status": 503}, "server", ["HTTP 503"]),
    ({"status": 401}, "auth", ["HTTP 401", "XIAOE_LLM_API_KEY"]),
    ({"status": 403}, "auth", ["HTTP 403", "XIAOE_LLM_MODEL"]),
    ({"status": 429}, "rate_limit", ["HTTP 429"]),
    ({"status": 402}, "rate_limit", ["余额"]),
    ({"status": 404}, "bad_request", ["HTTP 404", "/v1", "XIAOE_LLM_MODEL"]),
    ({"status": 400}, "bad_request", ["HTTP 400"]),
    ({"garbage": True}, "bad_response", ["无法识别", "XIAOE_LLM_BASE_URL"]),
    ({"cut_stream": True, "reply": GOOD}, "connection", ["中途断开"]),
]


@pytest.mark.parametrize(("script", "kind", "words"), FAILURES)
def test_answer_failure_becomes_chinese_model_error(fake_openai, tmp_path, corpus_index, script, kind, words):
    for name, value in script.items():
        setattr(fake_openai, name, value)
    with pytest.raises(ModelError) as info:
        answer(QUESTION, corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)), min_score=LOW)
    message = str(info.value)
    assert info.value.kind == kind
    assert "本次没有生成回答" in message
    for word in words:
        assert word in message
    assert KEY not in message


def test_answer_server_detail_is_quoted_in_message(fake_openai, tmp_path, corpus_index):
    fake_openai.status, fake_openai.error_message = 400, "Model Not Exist"
    with pytest.raises(ModelError, match="服务端说明：Model Not Exist"):
        answer(QUESTION, corpus_index, make_chat_model(make_settings(fake_openai, tmp_path)), min_score=LOW)


def test_answer_connection_refused_names_the_server(tmp_path, corpus_index):
    url = closed_port_url()
    settings = Settings(data_dir=tmp_path, llm_base_url=url, llm_model="m", llm_api_key=KEY,
                        llm_timeout=0.5, llm_max_retries=0)
    with pytest.raises(ModelError) as info:
        answer(QUESTION, corpus_index, make_chat_model(settings), min_score=LOW)
    assert info.value.kind == "connection"
    assert url.removesuffix("/v1") in str(info.value)
    assert "XIAOE_LLM_BASE_URL" in str(info.value)


def test_key_appears_in_no_message_log_or_answer(fake_openai, tmp_path, corpus_index, caplog):
    caplog.set_level(logging.DEBUG)
    llm = make_chat_model(make_settings(fake_openai, tmp_path))
    fake_openai.reply = GOOD
    good = answer(QUESTION, corpus_index, llm, min_score=LOW)
    fake_openai.status, fake_openai.error_message = 401, f"Incorrect API key provided: {KEY}"
    with pytest.raises(ModelError) as info:
        answer(QUESTION, corpus_index, llm, min_score=LOW)
    chain, error = [], info.value  # the outcome keeps only the Chinese message: no provider exception survives
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    for item in chain:
        assert KEY not in str(item) and KEY not in repr(item.args)
    assert "服务端说明：Incorrect API key provided: ***" in str(info.value)
    assert KEY not in caplog.text
    assert KEY not in json.dumps(good.to_dict(), ensure_ascii=False)


# -- test_connection -------------------------------------------------------------------------

def test_test_connection_chat_ok_reports_latency(fake_openai, tmp_path):
    report = test_connection(make_settings(fake_openai, tmp_path), "chat")
    assert report.ok and report.latency_ms is not None and report.latency_ms >= 0
    assert "连接正常" in report.message
    assert fake_openai.count("/v1/chat/completions") == 1


def test_test_connection_embed_ok_reports_dimension(fake_openai, tmp_path):
    report = test_connection(make_settings(fake_openai, tmp_path), "embed")
    assert report.ok
    assert "64 维" in report.message
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {EMBED_KEY}"


def test_test_connection_failure_is_reported_not_raised(fake_openai, tmp_path):
    fake_openai.status = 401
    report = test_connection(make_settings(fake_openai, tmp_path, llm_max_retries=2), "chat")
    assert not report.ok and report.kind == "auth"
    assert "XIAOE_LLM_API_KEY" in report.message and KEY not in report.message
    assert "本次没有生成回答" not in report.message
    assert fake_openai.count("/v1/chat/completions") == 1  # no retries while a consultant waits


def test_test_connection_embed_failure_names_embed_setting(fake_openai, tmp_path):
    fake_openai.status = 401
    report = test_connection(make_settings(fake_openai, tmp_path), "embed")
    assert not report.ok and "XIAOE_EMBED_API_KEY" in report.message


@pytest.mark.parametrize("which", ["chat", "embed"])
def test_test_connection_not_configured_makes_no_call(tmp_path, which):
    report = test_connection(Settings(data_dir=tmp_path), which)
    assert not report.ok and report.kind == "not_configured" and report.latency_ms is None


# -- what the settings page shows ------------------------------------------------------------

@pytest.mark.parametrize(("key", "shown"), [
    ("", "未设置"),
    ("abc123", "已设置"),
    ("sk-0123456789abcdefWXYZ", "sk-…WXYZ"),
    ("0123456789abcdef-tail", "…tail"),
])
def test_mask_key_shows_at_most_last_four(key, shown):
    assert mask_key(key) == shown


def test_describe_providers_never_contains_a_key(fake_openai, tmp_path):
    overview = describe_providers(make_settings(fake_openai, tmp_path, retriever="hybrid"))
    assert KEY not in repr(overview) and EMBED_KEY not in repr(overview)
    assert overview.chat.key == "sk-…CRET" and overview.chat.model == "fake-chat"
    assert overview.retriever.startswith("hybrid")


def test_describe_providers_defaults_to_offline(tmp_path):
    overview = describe_providers(Settings(data_dir=tmp_path, llm_model="deepseek-chat"))
    assert not overview.chat.configured
    assert "离线" in overview.answerer
    assert any("XIAOE_LLM_BASE_URL" in w for w in overview.warnings)


def test_describe_providers_warns_dense_without_embeddings(tmp_path):
    overview = describe_providers(Settings(data_dir=tmp_path, retriever="dense"))
    assert any("XIAOE_EMBED_BASE_URL" in w for w in overview.warnings)


def test_safe_db_url_hides_password():
    assert safe_db_url("postgresql://xiaoe:hunter2@db:5432/xiaoe") == "postgresql://xiaoe:***@db:5432/xiaoe"


def test_safe_url_drops_credentials_and_query():
    assert safe_url("https://user:pw@api.example.com/v1?key=abc") == "https://api.example.com/v1"


def test_describe_settings_lists_main_settings_without_password(tmp_path):
    rows = describe_settings(Settings(data_dir=tmp_path, database_url="postgresql://u:hunter2@db/x"))
    envs = {r.env: r.value for r in rows}
    assert {"XIAOE_CORPUS_DIR", "XIAOE_DATA_DIR", "XIAOE_DATABASE_URL", "XIAOE_MIN_SCORE", "XIAOE_TOP_K",
            "XIAOE_CHUNK_SIZE", "XIAOE_CHUNK_OVERLAP"} <= set(envs)
    assert "hunter2" not in envs["XIAOE_DATABASE_URL"]


def test_describe_settings_shows_all_four_knobs_of_the_gate(tmp_path):
    rows = describe_settings(Settings(data_dir=tmp_path, min_coverage=0.5, max_unknown_weight=0.6))
    envs = {r.env: r.value for r in rows}
    assert (envs["XIAOE_MIN_COVERAGE"], envs["XIAOE_MAX_UNKNOWN_WEIGHT"]) == ("0.50", "0.60")
    assert {"XIAOE_MIN_SCORE", "XIAOE_TOP_K"} <= set(envs)


def test_stream_text_sends_a_real_model_only_the_prompt(fake_openai, tmp_path, corpus_index):
    fake_openai.reply = GOOD
    assistant = build_assistant(Settings(), corpus_index, None,
                                chat_model=make_chat_model(make_settings(fake_openai, tmp_path)))
    gate = assistant.gate(assistant.retrieve(QUESTION), assistant.knobs.with_(threshold=LOW))
    assert gate.decision is not None and gate.decision.terms  # the offline answerer would get keywords
    assistant.outcome(gate)
    body = fake_openai.requests[-1].body
    assert "keywords" not in body and set(body) >= {"model", "messages"}
