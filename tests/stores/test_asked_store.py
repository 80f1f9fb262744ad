"""core.stores.asked: newest first, each question once, per asker, pruned to KEEP_PER_ASKER."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from core.errors import StoreError
from core.knobs import Knobs
from core.stores import asked as module
from core.stores.asked import AskedStore, asked_questions
from core.stores.db import Database
from tests.auth_helpers import Clock

KNOBS = Knobs(threshold=0.1, k=3, min_coverage=0.5, max_unknown_weight=0.6)


@pytest.fixture
def store(database_url):
    db = Database(database_url)
    yield AskedStore(db, clock=Clock())
    db.dispose()


def test_recent_is_newest_first_each_question_once_per_asker(store):
    for question in ("甲？", "乙？", "甲？"):
        store.record("amy", question, KNOBS, refused=question == "乙？", reason="理由")
    store.record("bob", "丙？", KNOBS, refused=False, reason="")
    recent = store.recent("amy")
    assert [(r.question, r.decision) for r in recent] == [("甲？", "作答"), ("乙？", "拒答")]
    assert recent[0].knobs == KNOBS
    assert [r.question for r in store.recent("bob")] == ["丙？"]


def test_only_the_newest_rows_of_an_asker_are_kept(store, monkeypatch):
    monkeypatch.setattr(module, "KEEP_PER_ASKER", 3)
    for n in range(5):
        store.record("amy", f"问题{n}？", KNOBS, refused=False, reason="")
    store.record("bob", "别人的？", KNOBS, refused=False, reason="")
    with store.db.read() as conn:
        assert conn.execute(select(func.count()).select_from(asked_questions)
                            .where(asked_questions.c.asker == "amy")).scalar() == 3
    assert [r.question for r in store.recent("amy")] == ["问题4？", "问题3？", "问题2？"]


def test_an_empty_asker_is_a_chinese_error(store):
    with pytest.raises(StoreError, match="缺少提问人"):
        store.record(" ", "甲？", KNOBS, refused=False, reason="")
