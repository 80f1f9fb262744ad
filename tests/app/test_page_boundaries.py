"""Pages only read widgets, call core and render: no page imports a store or opens a file, and one script run
builds the settings once and reads the saved default once (the router does it: ui/state.begin_run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.settings import Settings
from core.stores.defaults import DefaultsStore
from tests.paths import ROOT

PAGES = sorted((ROOT / "app_pages").glob("*.py"))
FILE_CALLS = {"open", "read_text", "read_bytes", "read_markdown", "write_text", "write_bytes"}
CHECK_CALLS = {"check_grounding", "check_refs"}


def offences(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("core.stores"):
            found.append(f"imports {node.module}")
        elif isinstance(node, ast.Import) and any(a.name.startswith("core.stores") for a in node.names):
            found.append("imports core.stores")
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in FILE_CALLS:
                found.append(f"opens a file ({name})")
            if name in CHECK_CALLS:
                found.append(f"runs a check ({name})")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_imports_no_store_opens_no_file_and_runs_no_check(page):
    assert offences(page) == []


def test_the_boundary_check_can_fail(tmp_path):
    planted = tmp_path / "bad.py"
    planted.write_text("from core.stores.review import ReviewStore\ntext = open('x').read()\n"
                       "check_grounding('a', [], 'q')\n", encoding="utf-8")
    assert sorted(offences(planted)) == ["imports core.stores.review", "opens a file (open)",
                                         "runs a check (check_grounding)"]


@pytest.fixture
def counted(monkeypatch):
    """Counts settings builds (Settings.load) and saved-default reads (DefaultsStore.current)."""
    counts = {"settings": 0, "defaults": 0}
    load, current = Settings.load.__func__, DefaultsStore.current

    def counting_load(cls, *args, **kwargs):
        counts["settings"] += 1
        return load(cls, *args, **kwargs)

    def counting_current(self):
        counts["defaults"] += 1
        return current(self)

    monkeypatch.setattr(Settings, "load", classmethod(counting_load))
    monkeypatch.setattr(DefaultsStore, "current", counting_current)

    def take() -> dict[str, int]:
        out = dict(counts)
        counts.update(settings=0, defaults=0)
        return out

    return take


def test_one_settings_build_and_one_saved_default_read_per_rerun_of_the_ask_page(open_app, counted):
    at = open_app()
    assert counted() == {"settings": 1, "defaults": 1}  # the first render
    at.text_input(key="question").set_value("口语课一共有几级？")
    at.button(key="ask").click().run()
    assert not at.exception and counted() == {"settings": 1, "defaults": 1}  # one question
    at.slider(key="min_coverage").set_value(0.9).run()
    assert not at.exception and counted() == {"settings": 1, "defaults": 1}  # one slider move


def test_one_settings_build_and_one_saved_default_read_per_rerun_of_the_tuning_page(open_app, counted):
    at = open_app(page="app_pages/tuning.py")
    assert not at.exception
    counted()
    at.slider(key="tune_threshold").set_value(0.2).run()
    assert not at.exception and counted() == {"settings": 1, "defaults": 1}


def test_answerability_rules_given_only_in_secrets_toml_take_effect(app_env, monkeypatch):
    """`.streamlit/secrets.toml` reaches every setting, the rule switches included."""
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import ROUTER

    question = "入门级学废多少钱"  # answered only by the homophones rule (学废 → 学费)
    plain = AppTest.from_file(ROUTER, default_timeout=30).run()
    plain.text_input(key="question").set_value(question)
    plain.button(key="ask").click().run()
    assert not plain.session_state["ask_result"]["outcome"].refused
    import streamlit as st
    st.cache_resource.clear()
    secret = AppTest.from_file(ROUTER, default_timeout=30)
    secret.secrets["XIAOE_ANSWERABILITY_RULES"] = "-homophones"
    secret.run()
    secret.text_input(key="question").set_value(question)
    secret.button(key="ask").click().run()
    assert not secret.exception
    assert secret.session_state["ask_result"]["outcome"].refused
