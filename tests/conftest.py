"""Shared fixtures: the shipped corpus, its index, and settings pointed at tmp_path."""

from __future__ import annotations

import pytest

from core.corpus.loader import load_documents
from core.retrieval.index import build_index
from tests.db_engines import (  # noqa: F401 - the dual-engine fixtures, shared by every store test
    database_engine,
    database_url,
    postgresql_database_url,
    postgresql_server,
    skip_postgresql_when_unset,
    summary_line,
)
from tests.env import clear_console_settings
from tests.paths import CORPUS, ROOT  # noqa: F401 - ROOT re-exported for older imports


def pytest_collection_modifyitems(config, items):
    skip_postgresql_when_unset(items)


def pytest_terminal_summary(terminalreporter):
    summary_line(terminalreporter)


@pytest.fixture(autouse=True)
def no_console_settings_from_the_shell(monkeypatch):
    """Every test starts without the developer's XIAOE_* settings (tests/env.py): defaults, every term rule on,
    no model, no database URL. It runs before any other fixture of the test, which may then set what it needs."""
    clear_console_settings(monkeypatch)


@pytest.fixture(scope="session")
def corpus_chunks():
    return load_documents(CORPUS)


@pytest.fixture(scope="session")
def corpus_index(corpus_chunks):
    return build_index(corpus_chunks)


@pytest.fixture
def isolated_env(tmp_path, monkeypatch):
    """Point every path the app writes at tmp_path; returns the data dir."""
    data = tmp_path / "data"
    monkeypatch.setenv("XIAOE_DATA_DIR", str(data))
    monkeypatch.setenv("XIAOE_CORPUS_DIR", str(CORPUS))
    return data


@pytest.fixture
def fake_openai(monkeypatch):
    """A scriptable OpenAI-compatible server on 127.0.0.1 (see tests/fake_openai.py), closed afterwards."""
    from tests.fake_openai import FakeOpenAI

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # a CI proxy must not swallow loopback calls
    server = FakeOpenAI()
    yield server
    server.close()
