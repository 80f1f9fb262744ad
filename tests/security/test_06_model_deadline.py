"""#16 failure 6: XIAOE_LLM_TIMEOUT bounded each read, not the answer; a server dripping one token
every 2 s kept the API busy 130 s and the text came back as a normal answer.

Now the whole answer must arrive within XIAOE_LLM_TIMEOUT on every path (API, CLI, page): past it
the partial text is dropped, the Chinese timeout message is shown and the question waits in the
模型故障 lane. The elapsed-time bound is generous on purpose: it only says "did not hang".
"""

from __future__ import annotations

import time

import pytest

from core.assistant import open_assistant
from core.cli import main
from core.errors import ModelError
from core.settings import Settings
from core.stores.db import open_database
from core.stores.review import ReviewStore

TIMEOUT = 3
QUESTION = "口语课一共有几级？每一级多少课时？"
DRIPPED = "口语课一共四级[1]。" * 40  # 40+ pieces, one every 2 s: 80 s if nothing stops it
DID_NOT_HANG = 10


@pytest.fixture
def dripping(fake_openai, monkeypatch, request):
    for clearing in ("isolated_env", "app_env"):  # they clear XIAOE_LLM_*: them first, then ours
        if clearing in request.fixturenames:
            request.getfixturevalue(clearing)
    fake_openai.reply, fake_openai.drip, fake_openai.stream_piece = DRIPPED, 2.0, 4
    for name, value in {"XIAOE_LLM_BASE_URL": fake_openai.base_url, "XIAOE_LLM_MODEL": "fake-chat",
                        "XIAOE_LLM_API_KEY": "sk-test-0123456789abcdef", "XIAOE_LLM_TIMEOUT": str(TIMEOUT),
                        "XIAOE_LLM_MAX_RETRIES": "0", "XIAOE_MIN_SCORE": "0.05"}.items():
        monkeypatch.setenv(name, value)
    return fake_openai


def model_error_items(settings: Settings):
    page = ReviewStore(open_database(settings.db_url)).list()
    return [(i.origin, [r.code for r in i.reasons]) for i in page.items]


def test_model_deadline_api(dripping, isolated_env):
    assistant = open_assistant(Settings.from_env())  # index, decision and model built before the clock starts
    start = time.monotonic()
    with pytest.raises(ModelError) as error:
        assistant.ask(QUESTION)
    assert time.monotonic() - start < DID_NOT_HANG
    assert error.value.kind == "timeout" and f"{TIMEOUT} 秒内没有答完" in str(error.value)
    assert dripping.count("/v1/chat/completions") == 1


def test_model_deadline_cli(dripping, isolated_env, capsys):
    settings = Settings.from_env()
    open_assistant(settings)  # the index is built (and cached) before the clock starts
    start = time.monotonic()
    assert main(["ask", QUESTION]) == 1
    assert time.monotonic() - start < DID_NOT_HANG
    captured = capsys.readouterr()
    assert f"{TIMEOUT} 秒内没有答完" in captured.err and "口语课一共四级" not in captured.out
    assert model_error_items(settings) == [("model_error", ["timeout"])]


def test_model_deadline_page(dripping, open_app):
    at = open_app()
    at.text_input(key="question").set_value(QUESTION)
    start = time.monotonic()
    at.button(key="ask").click().run()
    assert time.monotonic() - start < DID_NOT_HANG
    assert not at.exception
    assert any(f"{TIMEOUT} 秒内没有答完" in e.value for e in at.error)
    assert not any("口语课一共四级" in m.value for m in at.markdown)  # the partial draft is gone
    assert model_error_items(Settings.from_env()) == [("model_error", ["timeout"])]
