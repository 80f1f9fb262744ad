"""Chinese everywhere a consultant or admin looks: every page (AppTest) is scanned for Latin-letter UI words.

Allowed: file names, model names, URLs, codes typed into a command line, `k`, and a few fixed names
(小E, Excel, CSV, Markdown…). Anything else Latin in a title, label, caption, message, button, option,
placeholder, help text or table header fails the test.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

PAGES = ["app_pages/ask.py", "app_pages/sources.py", "app_pages/review.py", "app_pages/tuning.py",
         "app_pages/glossary.py", "app_pages/settings.py"]
ALLOWED = {"k", "E", "CSV", "csv", "Excel", "XLSX", "xlsx", "md", "Markdown", "UTF", "BOM", "App", "API", "URL",
           "JSON", "OpenAI", "SSO", "OIDC", "HTTPS", "WPS", "BM", "TF", "IDF", "n", "gram", "Authlib",
           "F", "hit",  # metric names (F1, hit@3)
           "admin", "wang", "laoshi"}  # user names typed on the command line in the setup page's example
# Removed before looking for words: URLs, file names, env variables, model and command names, code spans.
NOT_UI = [r"https?://\S+", r"\.streamlit/\S+", r"[\w.-]+\.(md|csv|xlsx|py|toml|sqlite3|png)\b", r"XIAOE_[A-Z_]+(=\w+)?",
          r"`[^`]*`", r"python -m core[^\s，。）]*( [a-z-]+)*", r":material/\w+:", r"\b[0-9a-f]{8,}\b",
          r"\]\([^)]*\)", r"sources\?[^)\s]*", r"\?item=\S*", r"\.venv/bin/pip[^，。]*", r"Authlib>=[\d.]+",
          r"\.streamlit/\S+", r"(?<![\w-])--?[a-z][a-z-]*"]


def texts_of(at: AppTest) -> list[str]:
    """Every string a person can read on the page, as AppTest exposes it."""
    found: list[str] = []

    def add(*values):
        found.extend(v for v in values if isinstance(v, str) and v)

    for kind in ("title", "header", "subheader", "markdown", "caption", "text", "info", "warning", "error", "success",
                 "exception", "metric", "expander", "tabs", "toast"):
        for element in getattr(at, kind, []):
            add(getattr(element, "value", None), getattr(element, "label", None))
    for kind in ("button", "text_input", "text_area", "selectbox", "multiselect", "number_input", "slider",
                 "checkbox", "toggle", "radio", "date_input"):
        for widget in getattr(at, kind, []):
            add(widget.label, getattr(widget, "placeholder", None), getattr(widget, "help", None))
            for option in getattr(widget, "options", None) or ():
                add(str(option))
    for frame in at.dataframe:
        add(*map(str, frame.value.columns))
    for table in at.table:
        add(*map(str, table.value.columns))
    return found


def latin_words(text: str, data: frozenset[str] = frozenset()) -> set[str]:
    for pattern in NOT_UI:
        text = re.sub(pattern, " ", text)
    return set(re.findall(r"[A-Za-z][A-Za-z]*", text)) - ALLOWED - data


def scan(at: AppTest, data: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """Latin words per text; `data` are words from records (user names), not UI text."""
    return {text[:60]: words for text in texts_of(at) if (words := latin_words(text, data))}


@pytest.mark.parametrize("page", PAGES)
def test_chinese_ui_page_has_no_english_words(open_app, page):
    at = open_app(page=page)
    assert not at.exception
    assert scan(at) == {}


def test_chinese_ui_ask_page_after_a_question(open_app):
    at = open_app(page="app_pages/ask.py")
    at.text_input(key="question").set_value("寒假班几号开始？")
    at.button(key="ask").click().run()
    assert not at.exception
    assert scan(at) == {}


def test_chinese_ui_login_and_accounts_pages(app_env, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    assert scan(at) == {}  # the first-run setup page
    add_staff(AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER))
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    assert scan(at) == {}  # the login page
    at.text_input(key="login_username").set_value("boss")
    at.text_input(key="login_password").set_value(PASSWORD)
    at.button(key="login_submit").click().run()
    at.switch_page("app_pages/accounts.py").run()
    assert not at.exception
    assert scan(at, frozenset({"boss", "amy"})) == {}


def test_chinese_ui_toolbar_is_minimal():
    """Streamlit's ⋮ menu (Rerun, Settings, Print… in English) is not offered: toolbarMode = minimal."""
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(ROUTER).parent / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["toolbarMode"] == "minimal"
