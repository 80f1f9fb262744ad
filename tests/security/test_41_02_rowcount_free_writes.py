"""#41 finding 2: approving a glossary proposal on PostgreSQL wrote no audit row: `insert_ignoring_duplicates`
trusted the driver's `rowcount`, which psycopg reports as -1 for an INSERT … ON CONFLICT, so the synonym went live
and nobody could see who approved it.

Whether a write happened is now read from the rows it returns (RETURNING on both engines: `insert_ignoring_duplicates`
and `changed` in core/stores/db.py), and no store reads `rowcount` any more.
"""

from __future__ import annotations

import re

from sqlalchemy import Column, Integer, MetaData, String, Table, select

from core.stores.db import Database, insert_ignoring_duplicates
from core.stores.glossary import glossary_changes, glossary_entries
from core.stores.glossary_admin import GlossaryAdmin
from core.stores.roles import User
from tests.paths import ROOT

AMY, BOSS = User("amy", "顾问 Amy", "consultant"), User("boss", "王校长", "admin")


def test_41_02_approving_a_proposal_writes_its_audit_row(database_url):
    db = Database(database_url)
    glossary = GlossaryAdmin(db)
    proposal = glossary.propose(AMY, "退费", "退钱呀").proposal_id
    glossary.approve(BOSS, proposal)
    with db.read() as conn:
        live = conn.execute(select(glossary_entries.c.term).where(glossary_entries.c.synonym == "退钱呀")).all()
        audit = conn.execute(select(glossary_changes.c.who, glossary_changes.c.action)
                             .where(glossary_changes.c.synonym == "退钱呀")).all()
    db.dispose()
    assert [tuple(r) for r in live] == [("退费",)]
    assert [tuple(r) for r in audit] == [(BOSS.label, "add")]


def test_41_02_insert_ignoring_duplicates_and_changed_count_rows_on_both_engines(database_url):
    from core.stores.db import changed

    db = Database(database_url)
    table = Table("t41_rows", MetaData(), Column("id", Integer, primary_key=True, autoincrement=True),
                  Column("word", String(20), unique=True))
    with db.transaction() as conn:
        table.metadata.create_all(conn)
        first = insert_ignoring_duplicates(conn, table, {"word": "甲"})
        again = insert_ignoring_duplicates(conn, table, {"word": "甲"})
        insert_ignoring_duplicates(conn, table, {"word": "乙"})
        both = changed(conn, table.update().values(word=table.c.word + "!"))
        none = changed(conn, table.delete().where(table.c.word == "丙"))
        one = changed(conn, table.delete().where(table.c.word == "甲!"))
    db.dispose()
    assert (first, again, both, none, one) == (True, False, 2, 0, 1)


def test_41_02_no_store_reads_a_drivers_rowcount():
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "core").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.search(r"\.rowcount\b", line)]
    assert found == []
