"""#16 failure 8: links and remote images from the URL, the model server's error text, corpus
metadata and staff display names were rendered as Markdown to other staff.

Each place is opened with a link payload and an image payload; no rendered Markdown element may
hold an unescaped link or image, and the payload is still shown (as text).
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from core.stores.review import ReviewStore
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD
from tests.outcomes import outcome_of
from tests.security.helpers import flagged_answer

LINK = "[点此重新登录](https://evil.example/login)"
IMAGE = "![t](http://evil.example/track.png)"
PAYLOADS = [LINK, IMAGE]
SAFE_FILE_NAMES = {LINK: "[点此重新登录](https:evil.example).md", IMAGE: "![t](http:evil.example).md"}  # no "/"
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\([^)]*evil")  # a live link or image to the payload's address


def rendered(at: AppTest) -> list[str]:
    """The source of every element Streamlit renders as Markdown, main area and sidebar."""
    kinds = ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader")
    return [str(e.value) for kind in kinds for e in getattr(at, kind)]


def assert_shown_as_text(at: AppTest, payload_words: str = "evil.example") -> None:
    assert not at.exception
    texts = rendered(at)
    assert not [t for t in texts if UNESCAPED_LINK.search(t)]
    assert any(payload_words in t.replace("\\", "") for t in texts)  # still visible, as text


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_injection_sources_source_param(open_app, payload):
    assert_shown_as_text(open_app(page="app_pages/sources.py", params={"source": payload}))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_injection_sources_chunk_param(open_app, payload):
    at = open_app(page="app_pages/sources.py", params={"source": "01-口语课分级说明.md", "chunk": payload})
    assert_shown_as_text(at)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_injection_model_server_error(open_app, fake_openai, monkeypatch, payload):
    fake_openai.status, fake_openai.error_message = 403, payload
    for name, value in {"XIAOE_LLM_BASE_URL": fake_openai.base_url, "XIAOE_LLM_MODEL": "fake-chat",
                        "XIAOE_LLM_API_KEY": "sk-test-0123456789abcdef", "XIAOE_LLM_MAX_RETRIES": "0",
                        "XIAOE_MIN_SCORE": "0.05"}.items():
        monkeypatch.setenv(name, value)
    at = open_app()
    at.text_input(key="question").set_value("口语课一共有几级？每一级多少课时？")
    at.button(key="ask").click().run()
    assert fake_openai.count("/v1/chat/completions") == 1
    assert_shown_as_text(at)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_injection_model_server_error_in_connection_test(open_app, fake_openai, monkeypatch, payload):
    fake_openai.status, fake_openai.error_message = 429, payload
    monkeypatch.setenv("XIAOE_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("XIAOE_LLM_MODEL", "fake-chat")
    at = open_app(page="app_pages/settings.py")
    at.button(key="test_chat").click().run()
    assert fake_openai.count("/v1/chat/completions") >= 1
    assert_shown_as_text(at)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_injection_corpus_file_name(open_app, app_env, payload):
    (app_env.corpus / SAFE_FILE_NAMES[payload]).write_text("", encoding="utf-8")  # skipped, and named
    assert_shown_as_text(open_app(page="app_pages/sources.py"), "evil.example")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_injection_staff_display_names(app_env, monkeypatch, payload):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    db = open_database(Settings.from_env().db_url)
    staff = AccountStore(db, hasher=FAST_HASHER)
    staff.add("boss", PASSWORD, actor="test", role="admin", display_name=payload)
    queue = ReviewStore(db)
    item = queue.record(outcome_of(flagged_answer(), "fp"))
    queue.decide(item, action="approve", reviewer=f"{payload}（boss）", expected_version=1)
    login = AppTest.from_file(ROUTER, default_timeout=30).run()
    login.text_input(key="login_username").set_value("boss")
    login.text_input(key="login_password").set_value(PASSWORD)
    login.button(key="login_submit").click().run()
    at = AppTest.from_file(ROUTER, default_timeout=30)
    at.session_state["auth_token"] = login.session_state["auth_token"]
    at.query_params["item"] = str(item)
    at.run()
    at.switch_page("app_pages/review.py").run()
    texts = [t.replace("\\", "") for t in rendered(at)]
    assert any("复核人" in t and "evil.example" in t for t in texts)     # 复核人：<signed-in name>
    assert any("最近处理" in t and "evil.example" in t for t in texts)   # 最近处理：<reviewer>
    assert_shown_as_text(at)
