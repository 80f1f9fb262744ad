"""AppTest fixtures for the Ask and Sources pages: a corpus copy and a data folder under tmp_path.

`app_env` points XIAOE_CORPUS_DIR / XIAOE_DATA_DIR at tmp copies and clears Streamlit's caches
(shared by every AppTest in the process) before and after; `open_app(page=..., params=...)`
runs the router (and switches page) the way the recipe in /work/shared/testing.md says.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.paths import CORPUS, ROOT

ROUTER = str(ROOT / "streamlit_app.py")


@dataclass(frozen=True)
class AppEnv:
    corpus: Path
    data: Path


@pytest.fixture(autouse=True)
def auth_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """No login gate in page tests (XIAOE_AUTH=off); tests/app/test_auth_app.py turns it back on."""
    monkeypatch.setenv("XIAOE_AUTH", "off")


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppEnv]:
    corpus, data = tmp_path / "corpus", tmp_path / "data"
    shutil.copytree(CORPUS, corpus)
    monkeypatch.setenv("XIAOE_CORPUS_DIR", str(corpus))
    monkeypatch.setenv("XIAOE_DATA_DIR", str(data))
    monkeypatch.setenv("XIAOE_AUTH", "off")  # the login gate has its own tests
    st.cache_resource.clear()
    st.cache_data.clear()
    yield AppEnv(corpus=corpus, data=data)
    st.cache_resource.clear()
    st.cache_data.clear()


@pytest.fixture
def open_app(app_env: AppEnv) -> Callable[..., AppTest]:
    """`open_app(page="app_pages/sources.py", params={"source": ...})` → an AppTest that has run."""

    def open_(page: str | None = None, params: dict[str, str] | None = None) -> AppTest:
        # a harness limit, not a speed assertion: generous, so a loaded CI machine (or a clock step) fails no page
        at = AppTest.from_file(ROUTER, default_timeout=90)
        for key, value in (params or {}).items():
            at.query_params[key] = value
        at.run()
        if page is not None:
            at.switch_page(page).run()
        return at

    return open_


@pytest.fixture
def open_page(open_app: Callable[..., AppTest]) -> Callable[..., AppTest]:
    """`open_page(page, **session_state)`: the router run, the state set, then `page` run without an exception."""

    def open_(page: str, **state) -> AppTest:
        at = open_app()
        for key, value in state.items():
            at.session_state[key] = value
        at.switch_page(page).run()
        assert not at.exception, at.exception
        return at

    return open_


@pytest.fixture
def tuning(open_page: Callable[..., AppTest]) -> Callable[..., AppTest]:
    """`tuning(**session_state)`: the 阈值调优 page opened with that state."""
    return lambda **state: open_page("app_pages/tuning.py", **state)
