"""The 设置 page through the router: what is active, masked keys, the connection test, the settings table."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.paths import ROOT

KEY = "sk-page-0123456789abcdefSECRET"
ROUTER = str(ROOT / "streamlit_app.py")


@pytest.fixture
def settings_page(isolated_env, monkeypatch):
    def open_page(**env: str) -> AppTest:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        st.cache_resource.clear()
        at = AppTest.from_file(ROUTER, default_timeout=10).run()
        at.switch_page("app_pages/settings.py").run()
        assert not at.exception
        return at
    return open_page


def page_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [w.value for w in at.warning]
    parts += [s.value for s in at.success] + [t.value.to_csv() for t in at.table]
    return "\n".join(str(p) for p in parts)


def test_settings_page_shows_offline_answerer_by_default(settings_page):
    at = settings_page()
    assert at.title[0].value == "设置"
    assert "离线" in page_text(at)
    assert at.button(key="test_chat").disabled


def test_settings_page_masks_the_key(settings_page, fake_openai):
    at = settings_page(XIAOE_LLM_BASE_URL=fake_openai.base_url, XIAOE_LLM_MODEL="fake-chat", XIAOE_LLM_API_KEY=KEY)
    text = page_text(at)
    assert "fake-chat" in text and "sk-…CRET" in text
    assert KEY not in text


def test_settings_page_connection_test_reports_success(settings_page, fake_openai):
    at = settings_page(XIAOE_LLM_BASE_URL=fake_openai.base_url, XIAOE_LLM_MODEL="fake-chat", XIAOE_LLM_API_KEY=KEY)
    at.button(key="test_chat").click().run()
    assert not at.exception
    assert "连接正常" in at.success[0].value
    assert fake_openai.count("/v1/chat/completions") == 1


def test_settings_page_connection_test_reports_chinese_error(settings_page, fake_openai):
    fake_openai.status = 401
    at = settings_page(XIAOE_LLM_BASE_URL=fake_openai.base_url, XIAOE_LLM_MODEL="fake-chat", XIAOE_LLM_API_KEY=KEY)
    at.button(key="test_chat").click().run()
    assert "XIAOE_LLM_API_KEY" in at.error[0].value.replace("\\", "") and KEY not in page_text(at)  # shown escaped


def test_settings_page_hides_database_password(settings_page):
    at = settings_page(XIAOE_DATABASE_URL="postgresql://xiaoe:hunter2@db:5432/xiaoe")
    assert "hunter2" not in page_text(at)
    assert "XIAOE_DATABASE_URL" in page_text(at)


def test_settings_page_shows_the_grader_off_and_how_to_turn_it_on(settings_page):
    at = settings_page()
    text = page_text(at)
    assert "模型判定（不确定区间）" in [s.value for s in at.subheader]
    assert "当前状态：**关闭**" in text
    assert any("XIAOE_GRADER=band" in c.value for c in at.code)


def test_settings_page_says_the_grader_needs_a_model(settings_page):
    assert "没有配置回答模型，不会生效" in page_text(settings_page(XIAOE_GRADER="band"))


def test_settings_page_shows_the_grader_on(settings_page, fake_openai):
    at = settings_page(XIAOE_GRADER="band", XIAOE_LLM_BASE_URL=fake_openai.base_url, XIAOE_LLM_MODEL="fake-chat")
    assert "当前状态：**已开启**" in page_text(at)
    assert not fake_openai.requests  # showing the state calls nothing
