"""The 资料缺口 topics: matching a fresh grouping to the stored topics, owners and statuses, re-checks, rights."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.errors import AuthError, InvalidReview, StoreError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.gaps import DECLINED, OPEN, SUPPLIED, GapStore, QuestionCheck, TopicDraft
from core.stores.review_marks import question_hash
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff
from tests.db_race import MeetBefore, race


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


def test_merge_moves_every_question_into_one_topic_and_pins_them_there(gaps):
    first, second = gaps.sync([draft("分期、学费", "a", "b", "c"), draft("花呗", "d", "e", "f")])
    gaps.assign(second, "李老师", actor="王校长")
    merged = gaps.merge(second, first, actor="王校长")
    assert (merged.id, merged.keys) == (first, ("a", "b", "c", "d", "e", "f"))
    assert [t.id for t in gaps.topics()] == [first]  # the merged topic drops off the board
    assert gaps.pins() == dict.fromkeys("abcdef", first)
    assert gaps.events(second)[-1].detail == f"并入 #{first} 分期、学费"
    assert (gaps.events(first)[-1].action, gaps.events(first)[-1].detail) == ("merge", f"并入了 #{second} 花呗（3 个问题）")
    # the board regroups with the pins as hints: the one group they make keeps the topic
    assert gaps.sync([draft("分期、花呗", "a", "b", "c", "d", "e", "f")]) == (first,)


def test_merge_refuses_the_same_topic_and_a_closed_one(gaps):
    first, second = gaps.sync([draft("分期", "a", "b", "c"), draft("花呗", "d", "e", "f")])
    with pytest.raises(InvalidReview, match="并入它自己"):
        gaps.merge(first, first, actor="王校长")
    gaps.record_check(second, [QuestionCheck("问题d", True, "覆盖 100%")], fingerprint="fp", version_note="第 2 版",
                      actor="王校长")
    with pytest.raises(InvalidReview, match="已关闭"):
        gaps.merge(first, second, actor="王校长")
    assert gaps.get(first).keys == ("a", "b", "c") and gaps.pins() == {}


def test_move_takes_one_question_from_its_topic_or_from_noise_into_another(gaps):
    questions = ("学费能分期吗", "能用花呗吗", "可以信用卡分期吗", "能开发票吗", "开票要多久", "发票抬头写什么")
    keys = [question_hash(q) for q in questions]
    instalments, invoices = gaps.sync([
        TopicDraft("分期", ("分期",), tuple(keys[:3]), questions[:3]),
        TopicDraft("发票", ("发票",), tuple(keys[3:5]) + (keys[2],), (*questions[3:5], questions[2]))])
    moved = gaps.move("可以信用卡分期吗", instalments, actor="王校长")
    assert keys[2] in moved.keys and keys[2] not in gaps.get(invoices).keys
    assert gaps.pins() == dict.fromkeys(keys[:3], instalments)
    assert gaps.events(invoices)[-1].detail == f"「可以信用卡分期吗」移到 #{instalments}"
    from_noise = gaps.move("发票抬头写什么", invoices, actor="王校长")  # was in no topic
    assert keys[5] in from_noise.keys and gaps.pins()[keys[5]] == invoices
    assert gaps.pins()[keys[3]] == invoices  # the topic's own questions are pinned with it


def test_only_an_admin_session_may_merge_or_move(db, gaps):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    add_staff(accounts)
    signer = SessionStore(accounts)
    first, second = gaps.sync([draft("分期", "a", "b", "c"), draft("花呗", "d", "e", "f")])
    consultant = signer.sign_in("amy", PASSWORD)
    with pytest.raises(AuthError, match="顾问"):
        gaps.merge(second, first, actor="amy", authorize=signer.guard(consultant.token))
    with pytest.raises(AuthError, match="顾问"):
        gaps.move("问题a", second, actor="amy", authorize=signer.guard(consultant.token))
    assert gaps.pins() == {} and len(gaps.topics()) == 2
    admin = signer.sign_in("boss", PASSWORD)
    gaps.merge(second, first, actor="whoever", authorize=signer.guard(admin.token))
    assert gaps.events(first)[-1].actor == "王校长（boss）"


def test_two_admins_merging_two_topics_into_each_other_at_once_leave_one_topic_with_every_question(db, gaps):
    first, second = gaps.sync([draft("分期", "a", "b", "c"), draft("花呗", "d", "e", "f")])
    with MeetBefore(db.engine, r"^\s*DELETE FROM gap_members"):  # both have read the topics and their questions
        outcomes = race(lambda: gaps.merge(first, second, actor="王校长"), lambda: gaps.merge(second, first, actor="李老师"))
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    (kept,) = gaps.topics()
    assert sorted(kept.keys) == list("abcdef")
    assert gaps.pins() == dict.fromkeys("abcdef", kept.id)
