"""#16 failure 4: a badly encoded XIAOE_DATABASE_URL printed a traceback holding part of the password.

The login page (to anonymous visitors) and the CLI now say in Chinese what is wrong and how to
encode the password, and never repeat the URL.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.cli import main
from tests.app.conftest import ROUTER

SECRET = "Pw9"
BAD_URLS = [
    f"postgresql+psycopg://xiaoe:S@x:{SECRET}@127.0.0.1:8719/xiaoe",    # "@" and ":" unescaped: the port is "Pw9@…"
    f"postgresql+psycopg://xiaoe:Secret@{SECRET}@127.0.0.1:8719/xiaoe",  # "@" unescaped: the host is "Pw9@…"
    f"postgresql+psycopg://xiaoe:a:{SECRET}@127.0.0.1:notaport/xiaoe",  # a port that is not a number
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_database_url_password_not_echoed_by_the_cli(url, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("XIAOE_DATABASE_URL", url)
    assert main(["queue", "list"]) == 1
    err = capsys.readouterr().err
    assert "XIAOE_DATABASE_URL" in err and "%40" in err
    assert SECRET not in err


@pytest.mark.parametrize("url", BAD_URLS)
def test_database_url_password_not_echoed_on_the_login_page(url, monkeypatch, tmp_path):
    import streamlit as st

    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("XIAOE_AUTH", "on")
    monkeypatch.setenv("XIAOE_DATABASE_URL", url)
    st.cache_resource.clear()
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    st.cache_resource.clear()
    assert not at.exception
    shown = " ".join(e.value for e in at.error)
    assert "%40" in shown.replace("\\", "") and SECRET not in shown
