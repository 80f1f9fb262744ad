"""Decisions land only on what the reviewer saw: the seen version and the filtered list are checked in core."""

from __future__ import annotations

import pytest

from core.errors import ConflictError, NotInView
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.values import Problem
from tests.stores.test_review import answer

STALE = Problem("stale_corpus", "所引资料已更新：02-退费与转班制度.md")


@pytest.fixture
def store(database_url) -> ReviewStore:
    db = Database(database_url)
    yield ReviewStore(db)
    db.dispose()


def test_review_view_decision_on_a_stale_seen_version_is_refused(database_url, store):
    item_id = store.enqueue(answer(), fingerprint="f")
    seen = store.get(item_id)  # what the reviewer's page shows: version 1
    other = ReviewStore(Database(database_url))  # a second browser session rejects, then reopens it
    other.decide(item_id, action="reject", reviewer="王老师", expected_version=1, note="数字编造")
    other.decide(item_id, action="reopen", reviewer="王老师", expected_version=2)
    assert store.get(item_id).status == "pending"  # same status as on screen, but no longer what was shown
    with pytest.raises(ConflictError, match="你看到的是第 1 版，现在是第 3 版"):
        store.decide(item_id, action="approve", reviewer="李老师", expected_version=seen.version)
    assert (store.get(item_id).status, store.get(item_id).version) == ("pending", 3)


def test_review_view_decision_on_an_item_outside_the_shown_filter_is_refused(store):
    flagged = store.enqueue(answer(question="口语课几级？"), fingerprint="f")
    view = Filters(status="pending", lane="stale")  # the list the reviewer switched to: 资料已更新 only
    with pytest.raises(NotInView, match=f"#{flagged} 已不在你当前筛选的列表里"):
        store.decide(flagged, action="approve", reviewer="李老师", expected_version=1, view=view)
    item = store.get(flagged)
    assert (item.status, item.version) == ("pending", 1)
    assert [e.action for e in store.events(flagged)] == ["enqueue"]


def test_review_view_decision_on_an_item_in_the_shown_filter_is_saved(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    saved = store.decide(item_id, action="approve", reviewer="李老师", expected_version=1,
                         view=Filters(status="pending", lane="citation"))
    assert (saved.status, saved.version) == ("approved", 2)


def test_review_view_bulk_skips_items_that_left_the_view(store):
    ids = [store.enqueue(answer(question=f"问题{i}"), fingerprint="f") for i in range(2)]
    store.decide(ids[0], action="reject", reviewer="王老师", expected_version=1, note="编造")
    store.decide(ids[0], action="reopen", reviewer="王老师", expected_version=2, add_reason=STALE)
    result = store.bulk_decide({ids[0]: 3, ids[1]: 1}, action="approve", reviewer="李老师",
                               view=Filters(status="pending", lane="stale"))
    assert result.decided == (ids[0],)
    assert [i for i, _ in result.skipped] == [ids[1]] and "已不在你当前筛选的列表里" in result.skipped[0][1]
