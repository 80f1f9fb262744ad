"""The 资料缺口 topics: matching a fresh grouping to the stored topics, owners and statuses, re-checks, rights."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.errors import AuthError, InvalidReview, StoreError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.gaps import DECLINED, OPEN, SUPPLIED, GapStore, QuestionCheck, TopicDraft
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def gaps(db):
    return GapStore(db, clock=Clock())


def draft(label: str, *keys: str) -> TopicDraft:
    return TopicDraft(label=label, terms=tuple(label.split("、")), keys=keys, questions=tuple(f"问题{k}" for k in keys))


def test_sync_opens_one_topic_per_group(gaps):
    ids = gaps.sync([draft("分期、学费", "a", "b", "c"), draft("开发票", "d", "e", "f")])
    topics = gaps.topics()
    assert [(t.id, t.label, t.keys, t.status) for t in topics] == [
        (ids[0], "分期、学费", ("a", "b", "c"), OPEN), (ids[1], "开发票", ("d", "e", "f"), OPEN)]


def test_a_regrouping_keeps_owner_and_status_with_the_questions(gaps):
    first, second = gaps.sync([draft("分期、学费", "a", "b", "c"), draft("开发票", "d", "e", "f")])
    gaps.assign(first, "李老师", actor="王校长")
    gaps.set_status(second, DECLINED, actor="王校长")
    # regrouped: the invoice group is now the larger one and took question c; one new group
    again = gaps.sync([draft("开发票、报销", "c", "d", "e", "f"), draft("分期", "a", "b"), draft("外教", "x", "y", "z")])
    assert again[:2] == (second, first) and again[2] not in (first, second)
    by_id = {t.id: t for t in gaps.topics()}
    assert (by_id[first].owner, by_id[first].keys) == ("李老师", ("a", "b"))
    assert (by_id[second].status, by_id[second].label) == (DECLINED, "开发票、报销")


def test_a_topic_no_group_takes_drops_off_the_board(gaps):
    first, _ = gaps.sync([draft("分期", "a", "b", "c"), draft("开发票", "d", "e", "f")])
    gaps.sync([draft("分期", "a", "b", "c")])
    assert [t.id for t in gaps.topics()] == [first]


def test_a_check_where_every_question_passes_closes_and_freezes_the_topic(gaps):
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    partly = gaps.record_check(topic, [QuestionCheck("问题a", True, "覆盖 100%"), QuestionCheck("问题b", False, "没覆盖")],
                               fingerprint="fp1", version_note="「01.md」第 2 版", actor="王校长")
    assert (partly.closed, partly.check.line) == (False, "1/2 题现在可答")
    closed = gaps.record_check(topic, [QuestionCheck("问题a", True, "覆盖 100%"), QuestionCheck("问题b", True, "覆盖 100%")],
                               fingerprint="fp2", version_note="「01.md」第 3 版", actor="王校长")
    assert (closed.closed, closed.status, closed.fixed_by, closed.check.line) == (True, SUPPLIED, "「01.md」第 3 版",
                                                                                  "2/2 题现在可答")
    assert gaps.sync([draft("分期", "a", "b", "c")]) != (topic,)  # a closed topic is never matched again
    assert [e.action for e in gaps.events(topic)] == ["create", "check", "check", "close"]


def test_set_status_rejects_an_unknown_status(gaps):
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    with pytest.raises(InvalidReview, match="不补充，保持拒答"):
        gaps.set_status(topic, "later", actor="王校长")


def test_a_missing_topic_is_a_chinese_error(gaps):
    with pytest.raises(StoreError, match="编号为 99"):
        gaps.assign(99, "李老师", actor="王校长")


def test_only_an_admin_session_may_assign(db, gaps):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    add_staff(accounts)
    signer = SessionStore(accounts)
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    consultant = signer.sign_in("amy", PASSWORD)
    with pytest.raises(AuthError, match="顾问"):
        gaps.assign(topic, "李老师", actor="amy", authorize=signer.guard(consultant.token))
    admin = signer.sign_in("boss", PASSWORD)
    gaps.assign(topic, "李老师", actor="whoever", authorize=signer.guard(admin.token))
    assert gaps.events(topic)[-1].actor == "王校长（boss）"


def test_topic_events_are_append_only(db, gaps):
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    with pytest.raises(StoreError, match="只能追加"), db.transaction() as conn:
        conn.execute(text("UPDATE gap_events SET actor = 'x'"))


def test_syncing_the_same_grouping_again_keeps_every_topic(gaps):
    drafts = [draft("分期、学费", "a", "b", "c"), draft("开发票", "d", "e", "f")]
    first = gaps.sync(drafts)
    assert gaps.sync(drafts) == first
    assert [[e.action for e in gaps.events(i)] for i in first] == [["create"], ["create"]]
