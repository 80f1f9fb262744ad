"""One gate: questions sent through the service get the decisions `xiaoe ask --json` gives (the same Assistant), and a
student's message reaches the review queue the way the Ask page's does."""

from __future__ import annotations

import csv
import io
import json
from contextlib import redirect_stdout

from core.cli import main
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from tests.paths import ROOT
from tests.service.harness import ask, make_key

SAMPLE = 30  # every sixth question of the newest blind student set, answerable and not alike


def _questions() -> list[str]:
    with (ROOT / "bench" / "data" / "student_heldout_v10.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [r["question"] for r in rows[::6]][:SAMPLE]


def _ask_json(question: str) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["ask", question, "--json", "--no-queue"]) == 0
    return json.loads(out.getvalue())


def test_service_and_xiaoe_ask_give_the_same_decisions(services, database_url, service_data, monkeypatch):
    secret = make_key(database_url, release="auto")[0]
    service = services()
    monkeypatch.setenv("XIAOE_DATA_DIR", str(service_data))
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    refused = answered = 0
    with service.client(secret) as client:
        for n, question in enumerate(_questions()):
            api = ask(client, f"s{n}", "m", question).json()
            cli = _ask_json(question)
            assert (api["status"] == "refused") == cli["refused"], question
            if api["status"] == "refused":
                refused += 1
                assert api["answer"] == cli["answer"]
            elif api["status"] == "answered":
                answered += 1
                assert api["answer"] == cli["answer"], question
                assert [c["n"] for c in api["citations"]] == sorted({int(p["n"]) for p in api["citations"]})
            else:
                assert api["status"] == "held" and cli["problems"], question  # auto holds only what a check flags
    assert refused and answered  # the sample has both kinds, so the comparison means something


def test_a_refused_student_message_joins_the_refusal_lane_like_the_ask_page(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services().client(secret) as client:
        ask(client, "s1", "m1", "你们的雅思保过班多少钱？")
        ask(client, "s2", "m1", "你们的雅思保过班多少钱？")
    db = Database(database_url)
    page = ReviewStore(db).list(Filters(lane="refusal"))
    db.dispose()
    assert len(page.items) == 1 and page.items[0].ask_count == 2  # a repeat joins the pending refusal
