"""Measuring writes nothing (#42): `xiaoe eval` with reuse on, and `eval --reuse`, leave the database exactly as
they found it — even when an approved answer they meet is stale and not suspended yet (a file edited on the
server, not yet recorded as a version), which the read path used to suspend on its way. On both engines."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from core.stores.approved import ApprovedStore
from core.stores.corpus_sync import sync_corpus
from core.stores.db import open_database
from core.stores.schemas import SCHEMAS
from tests.db_dump import dump
from tests.paths import ROOT
from tests.test_reuse_chain import LEVELS_FILE, approve_fee_answer, instance


@pytest.fixture
def used(tmp_path, database_url, monkeypatch):
    """A database as a console leaves it: every schema upgraded, the corpus recorded, an approved answer; then the
    fee table edited on the server (the approved answer's cited chunk is gone, nobody has saved through the console)."""
    settings = instance(tmp_path, "a", database_url)
    db = open_database(database_url)
    for schema in SCHEMAS:
        db.migrate(schema)
    sync_corpus(db, settings.corpus_dir)
    answer_id = approve_fee_answer(settings)
    path = settings.corpus_dir / LEVELS_FILE
    path.write_text(path.read_text(encoding="utf-8").replace("4800 元", "4900 元"), encoding="utf-8")
    for name, value in {"XIAOE_DATABASE_URL": database_url, "XIAOE_CORPUS_DIR": str(settings.corpus_dir),
                        "XIAOE_DATA_DIR": str(settings.data_dir), "XIAOE_REUSE_THRESHOLD": "0.5"}.items():
        monkeypatch.setenv(name, value)
    return database_url, answer_id


def test_eval_with_reuse_writes_nothing(used, capsys):
    url, answer_id = used
    before = dump(url)
    assert main(["eval", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert answer_id not in report.get("reused", {}).values()  # stale: not served …
    assert dump(url) == before  # … and not suspended by measuring
    assert ApprovedStore(open_database(url)).get(answer_id).status == "active"


def test_eval_reuse_set_writes_nothing(used, tmp_path, capsys):
    url, _answer_id = used
    rows = (ROOT / "bench" / "data" / "reuse_dev.csv").read_text(encoding="utf-8").splitlines()[:2]  # header, d001
    small = tmp_path / "复用.csv"
    small.write_text("\n".join(rows) + "\n", encoding="utf-8")
    before = dump(url)
    assert main(["eval", "--reuse", str(small), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kinds"]["paraphrase"]["total"] == 1
    assert dump(url) == before
