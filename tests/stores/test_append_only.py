"""Append-only tables refuse every way of rewriting history, inside the database, on SQLite and PostgreSQL:
UPDATE, DELETE, a replacing insert (SQLite INSERT OR REPLACE, an upsert's ON CONFLICT … DO UPDATE) and TRUNCATE."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import Table, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from core.errors import StoreError
from core.settings import Settings
from core.stores import audit
from core.stores.corpus_admin import NEW_FILE, CorpusAdmin, corpus_versions
from core.stores.db import Database
from core.stores.defaults import DefaultsStore, default_changes
from core.stores.glossary import GlossaryStore, glossary_changes
from core.stores.review import ReviewStore
from core.stores.review_schema import review_events
from core.stores.roles import User
from tests.stores.test_review import answer

FORGED = "伪造的复核人"
REFUSAL = "只能追加，不能修改、覆盖或删除"


def _fill_audit(db: Database, tmp_path) -> None:
    audit.record(db, "boss", "account_add", "amy", "新账号")


def _fill_review(db: Database, tmp_path) -> None:
    store = ReviewStore(db)
    store.decide(store.enqueue(answer(), fingerprint="f"), action="approve", reviewer="王老师", expected_version=1)


def _fill_corpus(db: Database, tmp_path) -> None:
    admin = CorpusAdmin(db, tmp_path / "corpus")
    (tmp_path / "corpus").mkdir()
    admin.save(User("boss", "王校长", "admin"), "常见问题.md", "# 常见问题\n\n周六上课。\n".encode(),
               expected_sha256=NEW_FILE, action="upload")


def _fill_glossary(db: Database, tmp_path) -> None:
    GlossaryStore(db).add("学费", "学费多少钱呀", who="王老师")


def _fill_defaults(db: Database, tmp_path) -> None:
    settings = Settings.from_env({"XIAOE_DATA_DIR": str(tmp_path)})
    DefaultsStore(db).save(replace(settings.knobs, threshold=0.3, k=5), actor="王老师", settings=settings)


# table, the column a forger would rewrite, how to fill it through its store, a unique key besides id
TABLES = {
    "audit_log": (audit.audit_log, "actor", _fill_audit, None),
    "review_events": (review_events, "actor", _fill_review, None),
    "corpus_versions": (corpus_versions, "actor", _fill_corpus, ("source", "version")),
    "glossary_changes": (glossary_changes, "who", _fill_glossary, None),
    "default_changes": (default_changes, "actor", _fill_defaults, None),
}


def _attacks(table: Table, column: str, row: dict, engine: str, key: tuple[str, ...] | None) -> dict:
    """Every statement that would rewrite or remove `row`, by name, for this engine."""
    forged = {**row, column: FORGED}
    new_id = {k: v for k, v in forged.items() if k != "id"}  # the database picks a new id
    attacks = {
        "UPDATE": table.update().values({column: FORGED}),
        "DELETE": table.delete(),
    }
    if engine == "sqlite":
        attacks["INSERT OR REPLACE"] = sqlite_insert(table).values(forged).prefix_with("OR REPLACE")
        if key:  # a new id, but the same (source, version): REPLACE would delete the old row
            attacks["INSERT OR REPLACE (unique key)"] = sqlite_insert(table).values(new_id).prefix_with(
                "OR REPLACE")
        upsert = sqlite_insert(table)
    else:
        upsert = pg_insert(table)
        attacks["TRUNCATE"] = text(f"TRUNCATE {table.name}")
    attacks["ON CONFLICT DO UPDATE"] = upsert.values(forged).on_conflict_do_update(
        index_elements=[table.c.id], set_={column: FORGED})
    if key:
        attacks["ON CONFLICT (unique key) DO UPDATE"] = upsert.values(new_id).on_conflict_do_update(
            index_elements=[table.c[name] for name in key], set_={column: FORGED})
    return attacks


@pytest.mark.parametrize("name", TABLES)
def test_append_only_table_refuses_every_rewrite(name, database_url, database_engine, tmp_path):
    table, column, fill, key = TABLES[name]
    db = Database(database_url)
    fill(db, tmp_path)
    with db.read() as conn:
        before = [dict(r._mapping) for r in conn.execute(select(table).order_by(table.c.id))]
    assert before, f"{name} should hold a row to attack"
    let_through, messages = [], {}
    for attack, statement in _attacks(table, column, before[0], database_engine, key).items():
        try:
            with db.transaction("改写记录") as conn:
                conn.execute(statement)
        except StoreError as error:
            messages[attack] = str(error)
        else:
            let_through.append(attack)
    with db.read() as conn:
        after = [dict(r._mapping) for r in conn.execute(select(table).order_by(table.c.id))]
    assert let_through == []
    assert after == before
    assert {attack: REFUSAL in message for attack, message in messages.items()} == dict.fromkeys(messages, True)
    db.dispose()


def test_append_only_refusal_reads_the_same_on_both_engines(database_url):
    db = Database(database_url)
    audit.record(db, "boss", "account_add", "amy")
    with pytest.raises(StoreError) as caught, db.transaction("删除审计记录") as conn:
        conn.execute(audit.audit_log.delete())
    assert str(caught.value) == ("删除审计记录失败：这类记录只能追加，不能修改、覆盖或删除（数据库拒绝了这次改动）。"
                                 "如需更正，请新增一条记录说明。")
    db.dispose()


def test_append_only_upgrade_adds_the_new_triggers_to_an_existing_database(database_url, database_engine):
    """A database made before migration 3 (UPDATE/DELETE refused only) is closed against rewrites on open."""
    old = Database(database_url)
    old.migrate(audit.Schema("audit", audit.AUDIT_SCHEMA.migrations[:2]))
    old.dispose()
    db = Database(database_url)
    audit.record(db, "boss", "account_add", "amy")
    rewrite = "INSERT OR REPLACE INTO audit_log SELECT id, at, :forged, action, target, detail FROM audit_log" \
        if database_engine == "sqlite" else "TRUNCATE audit_log"
    with pytest.raises(StoreError, match=REFUSAL), db.transaction() as conn:
        conn.execute(text(rewrite), {"forged": FORGED})
    assert [e.actor for e in audit.recent(db)] == ["boss"]
    assert db.applied("audit") == [1, 2, 3]
    db.dispose()
