"""The audit log: lines in order, filters, joins the caller's transaction, and refuses edits."""

from __future__ import annotations

import pytest

from core.errors import StoreError
from core.stores import audit
from core.stores.db import Database
from tests.auth_helpers import T0, Clock


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


def test_audit_recent_is_newest_first(db):
    clock = Clock()
    audit.record(db, "boss", "threshold_set", "默认阈值", "0.20 → 0.25", now=clock)
    clock.advance(minutes=1)
    audit.record(db, "boss", "corpus_edit", "02-退费与转班制度.md", "第 2 版", now=clock)
    entries = audit.recent(db)
    assert [(e.action, e.at) for e in entries] == [("corpus_edit", T0.replace(minute=1)), ("threshold_set", T0)]


@pytest.mark.parametrize(("filters", "expected"), [
    ({"action": "corpus_edit"}, ["b.md", "a.md"]),
    ({"actor": "amy"}, ["b.md"]),
    ({"target": "a.md"}, ["a.md"]),
    ({"limit": 1}, ["x"]),
])
def test_audit_recent_filters(db, filters, expected):
    audit.record(db, "boss", "corpus_edit", "a.md")
    audit.record(db, "amy", "corpus_edit", "b.md")
    audit.record(db, "boss", "account_add", "x")
    assert [e.target for e in audit.recent(db, **filters)] == expected


def test_audit_joins_the_callers_transaction(db):
    audit.ensure(db)
    with pytest.raises(RuntimeError), db.transaction() as conn:
        audit.record(db, "boss", "account_add", "amy", conn=conn)
        raise RuntimeError("the change failed")
    assert audit.recent(db) == ()


def test_audit_lines_cannot_be_changed_or_deleted(db):
    audit.record(db, "boss", "account_add", "amy")
    for statement in ("UPDATE audit_log SET actor = 'amy'", "DELETE FROM audit_log"):
        with pytest.raises(Exception, match="append-only"), db.engine.begin() as conn:
            conn.exec_driver_sql(statement)
    assert len(audit.recent(db)) == 1


def test_audit_needs_actor_and_action(db):
    with pytest.raises(StoreError, match="操作人"):
        audit.record(db, " ", "account_add", "amy")


def test_audit_long_values_are_cut_not_refused(db):
    audit.record(db, "boss", "corpus_edit", "t" * 1000, "d" * 5000)
    (entry,) = audit.recent(db)
    assert (len(entry.target), len(entry.detail)) == (audit.MAX_TARGET_CHARS, audit.MAX_DETAIL_CHARS)
