"""One outcome, recorded in one place: the same question through the Ask page (AppTest), `xiaoe ask` and a
batch run leaves the same queue row — a flagged answer, a refusal and a model failure with its candidates."""

from __future__ import annotations

import shutil

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.assistant import open_assistant
from core.cli import main
from core.evaluation.batch import run_one
from core.sets.format import LabelledQuestion
from core.settings import Settings
from core.stores.db import open_database
from core.stores.review import Filters, ReviewStore
from tests.paths import CORPUS, ROOT

LEVELS = "口语课一共有几级？"
FABRICATED = "口语课一共六级[1]，详见[7]。"  # a number the corpus does not state and a citation that does not exist


@pytest.fixture
def console(tmp_path, monkeypatch, fake_openai):
    """A corpus copy, a data folder and a scripted model server; XIAOE_* set as a deployment would."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    for name, value in {"CORPUS_DIR": str(corpus), "DATA_DIR": str(tmp_path / "data"), "AUTH": "off",
                        "LLM_BASE_URL": fake_openai.base_url, "LLM_MODEL": "scripted", "LLM_MAX_RETRIES": "0",
                        "LLM_TIMEOUT": "5"}.items():
        monkeypatch.setenv(f"XIAOE_{name}", value)
    st.cache_resource.clear()
    yield fake_openai
    st.cache_resource.clear()


def rows() -> list[dict]:
    """Every queued item as the columns that must agree (ids, times and askers aside)."""
    store = ReviewStore(open_database(Settings.load().db_url))
    out = []
    for item in store.iter_items(Filters(), with_candidates=True):
        out.append({"question": item.question, "answer": item.answer, "origin": item.origin,
                    "reasons": [(p.code, p.message, p.span) for p in item.reasons], "threshold": item.threshold,
                    "k": item.k, "fingerprint": item.fingerprint,
                    "candidates": [(h.rank, h.source, h.chunk, round(h.score, 6), h.passed) for h in item.candidates]})
    return out


def through_the_page(question: str) -> None:
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=30).run()
    at.text_input(key="question").set_value(question)
    at.button(key="ask").click().run()
    assert not at.exception


def through_the_cli(question: str) -> None:
    main(["ask", question])


def through_a_batch_run(question: str) -> None:
    assistant = open_assistant(Settings.load())
    run_one(LabelledQuestion(question, "01-口语课分级说明.md"), assistant,
            queue=ReviewStore(open_database(assistant.settings.db_url)))


ENTRY_POINTS = {"page": through_the_page, "cli": through_the_cli, "batch": through_a_batch_run}


def queue_row_through_each(question: str) -> dict[str, list[dict]]:
    found = {}
    for name, entry in ENTRY_POINTS.items():
        before = len(rows())
        entry(question)
        found[name] = rows()[before:]
        for item in ReviewStore(open_database(Settings.load().db_url)).iter_items(Filters(status="pending")):
            ReviewStore(open_database(Settings.load().db_url)).decide(item.id, action="reject", reviewer="测试",
                                                                     expected_version=item.version, note="下一条")
    return found


def test_a_flagged_answer_is_the_same_queue_row_through_each_entry_point(console):
    console.reply = FABRICATED
    found = queue_row_through_each(LEVELS)
    assert len(found["page"]) == 1 and found["page"][0]["origin"] == "auto"
    assert {"bad_ref", "unsupported_number"} <= {code for code, *_ in found["page"][0]["reasons"]}
    assert found["page"] == found["cli"] == found["batch"]


def test_a_model_failure_is_the_same_queue_row_with_its_candidates_through_each_entry_point(console):
    console.status = 500
    found = queue_row_through_each(LEVELS)
    page = found["page"]
    assert len(page) == 1 and page[0]["origin"] == "model_error" and page[0]["answer"] == ""
    assert page[0]["reasons"][0][0] == "server"
    assert page[0]["candidates"] and any(passed for *_, passed in page[0]["candidates"])
    assert found["page"] == found["cli"] == found["batch"]
