"""The 资料缺口 topics: matching a fresh grouping to the stored topics, owners and statuses, re-checks, rights."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.errors import AuthError, InvalidReview, StoreError
from core.stores.accounts import AccountStore
from core.stores.db import Database, Schema
from core.stores.gaps import DECLINED, GAPS_SCHEMA, OPEN, SUPPLIED, GapStore, QuestionCheck, TopicDraft
from core.stores.review import ReviewStore
from core.stores.review_marks import question_hash
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff
from tests.db_race import MeetBefore, race
from tests.stores.test_review import answer


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def gaps(db):
    return GapStore(db, clock=Clock())


def asked(db, *questions: str) -> None:
    """Queue a refusal of each question, as the Ask page would: they are on the board, outside any topic."""
    review = ReviewStore(db)
    for question in questions:
        review.enqueue(answer(question=question, text="资料里没写", problems=(), refused=True), origin="refusal",
                       fingerprint="fp")


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
    closed = gaps.record_check(topic, [QuestionCheck(f"问题{k}", True, "覆盖 100%") for k in "abc"],
                               fingerprint="fp2", version_note="「01.md」第 3 版", actor="王校长")
    assert (closed.closed, closed.status, closed.fixed_by, closed.check.line) == (True, SUPPLIED, "「01.md」第 3 版",
                                                                                  "3/3 题现在可答")
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
    gaps.record_check(second, [QuestionCheck(f"问题{k}", True, "覆盖 100%") for k in "def"], fingerprint="fp",
                      version_note="第 2 版", actor="王校长")
    with pytest.raises(InvalidReview, match="已关闭"):
        gaps.merge(first, second, actor="王校长")
    assert gaps.get(first).keys == ("a", "b", "c") and gaps.pins() == {}


def test_move_takes_one_question_from_its_topic_or_from_noise_into_another(db, gaps):
    questions = ("学费能分期吗", "能用花呗吗", "可以信用卡分期吗", "能开发票吗", "开票要多久", "发票抬头写什么")
    keys = [question_hash(q) for q in questions]
    instalments, invoices = gaps.sync([
        TopicDraft("分期", ("分期",), tuple(keys[:3]), questions[:3]),
        TopicDraft("发票", ("发票",), tuple(keys[3:5]) + (keys[2],), (*questions[3:5], questions[2]))])
    moved = gaps.move("可以信用卡分期吗", instalments, actor="王校长")
    assert keys[2] in moved.keys and keys[2] not in gaps.get(invoices).keys
    assert gaps.pins() == dict.fromkeys(keys[:3], instalments)
    assert gaps.events(invoices)[-1].detail == f"「可以信用卡分期吗」移到 #{instalments}"
    asked(db, "发票抬头写什么")
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
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], InvalidReview) and "已并入" in str(refused[0]), outcomes
    (kept,) = gaps.topics()
    assert sorted(kept.keys) == list("abcdef")
    assert gaps.pins() == dict.fromkeys("abcdef", kept.id)


def test_two_admins_moving_one_question_into_two_topics_at_once_leave_it_in_exactly_one(db, gaps):
    questions = ("学费能分期吗", "能用花呗吗", "可以信用卡分期吗", "能开发票吗", "开票要多久", "发票抬头写什么", "周末有课吗",
                 "周六上课吗", "晚上有课吗")
    keys = [question_hash(q) for q in questions]
    source, invoices, weekends = gaps.sync([TopicDraft("分期", ("分期",), tuple(keys[:3]), questions[:3]),
                                            TopicDraft("发票", ("发票",), tuple(keys[3:6]), questions[3:6]),
                                            TopicDraft("周末", ("周末",), tuple(keys[6:]), questions[6:])])
    with MeetBefore(db.engine, r"^\s*DELETE FROM gap_members"):  # both have read where the question is
        outcomes = race(lambda: gaps.move("能用花呗吗", invoices, actor="王校长"),
                        lambda: gaps.move("能用花呗吗", weekends, actor="李老师"))
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    holders = [t.id for t in gaps.topics() if keys[1] in t.keys]
    assert len(holders) == 1 and holders[0] in (invoices, weekends), holders
    assert gaps.pins()[keys[1]] == holders[0]
    assert keys[1] not in gaps.get(source).keys


def test_a_merged_topic_is_closed_and_refuses_new_questions(db, gaps):
    first, second, third = gaps.sync([draft("分期", "a", "b", "c"), draft("花呗", "d", "e", "f"),
                                      draft("周末", "x", "y", "z")])
    gaps.merge(second, first, actor="王校长")
    asked(db, "能用信用卡吗")
    for late in (lambda: gaps.move("能用信用卡吗", second, actor="李老师"),  # a page still offering the merged topic
                 lambda: gaps.merge(third, second, actor="李老师"),
                 lambda: gaps.move("问题x", second, actor="李老师")):
        with pytest.raises(InvalidReview, match=f"话题 #{second} 已并入 #{first}.*改选 #{first}"):
            late()
    assert [t.id for t in gaps.topics()] == [first, third]  # it did not come back
    assert gaps.sync([draft("分期、花呗", "a", "b", "c", "d", "e", "f"), draft("周末", "x", "y", "z")]) == (first, third)
    assert gaps.events(second)[-1].action == "merge"


def test_a_question_moved_into_a_merged_topic_at_the_same_moment_ends_in_the_topic_it_went_into(db, gaps):
    first, second = gaps.sync([draft("分期", "a", "b", "c"), draft("花呗", "d", "e", "f")])
    asked(db, "能用信用卡吗")
    with MeetBefore(db.engine, r"^\s*(DELETE FROM|INSERT INTO) gap_members"):
        outcomes = race(lambda: gaps.merge(second, first, actor="王校长"),
                        lambda: gaps.move("能用信用卡吗", second, actor="李老师"))
    key = question_hash("能用信用卡吗")
    (kept,) = gaps.topics()
    assert kept.id == first and set("abcdef") <= set(kept.keys)
    if isinstance(outcomes[1], Exception):  # the merge went first: the move is refused, nothing placed
        assert "已并入" in str(outcomes[1]) and key not in kept.keys
    else:  # the move went first: the merge took the question along
        assert key in kept.keys and gaps.pins()[key] == first


@pytest.mark.parametrize(("question", "into", "message"), [
    ("", 1, "没有选择问题"),
    ("   ", 1, "没有选择问题"),
    ("从没人问过的问题", 1, "不在资料缺口页上"),
    ("学费\ud800能分期吗", 1, "无法保存的字符"),
    ("问\x00题", 1, "无法保存的字符"),
    (None, 1, "应是文字"),
    ("问题a", 2**63, "没有编号为 9223372036854775808 的话题"),
    ("问题a", 0, "没有编号为 0 的话题"),
    ("问题a", "1", "不是整数"),
    ("问题a", True, "不是整数"),
    ("问题a", 1.0, "不是整数"),
])
def test_move_refuses_odd_inputs_with_a_chinese_message_and_changes_nothing(gaps, question, into, message):
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    before = gaps.topics()
    with pytest.raises(InvalidReview, match=message):
        gaps.move(question, into, actor="王校长")
    assert gaps.topics() == before and gaps.pins() == {} and [e.action for e in gaps.events(topic)] == ["create"]


def test_move_into_a_topic_that_does_not_exist_says_so(db, gaps):
    gaps.sync([draft("分期", "a", "b", "c")])
    asked(db, "能用花呗吗")
    with pytest.raises(StoreError, match="编号为 99"):
        gaps.move("能用花呗吗", 99, actor="王校长")


def test_an_admin_makes_a_topic_of_questions_from_noise_and_from_another_topic(db, gaps):
    questions = ("分期付款可以吗", "能用花呗吗", "能开发票吗", "开票要多久", "发票抬头写什么")
    keys = [question_hash(q) for q in questions]
    (invoices,) = gaps.sync([TopicDraft("发票", ("发票",), tuple(keys[1:]), questions[1:])])  # 花呗 grouped wrongly
    asked(db, questions[0])
    made = gaps.create(" 付款 方式 ", [questions[0], questions[1]], actor="王校长")
    assert (made.label, set(made.keys), made.named_by, made.status) == ("付款 方式", set(keys[:2]), "王校长", OPEN)
    assert keys[1] not in gaps.get(invoices).keys
    assert gaps.pins() == {keys[0]: made.id, keys[1]: made.id}
    assert gaps.events(invoices)[-1].detail == f"「能用花呗吗」移到新话题 #{made.id}"
    assert gaps.events(made.id)[0].detail == "付款 方式（管理员新建，2 个问题）"
    # the board regroups with the pins as hints: the topic keeps its questions and the admin's name, at any size
    again = gaps.sync([TopicDraft("花呗、分期付款", ("花呗", "分期付款"), tuple(keys[:2]), questions[:2]),
                       TopicDraft("发票", ("发票",), tuple(keys[2:]), questions[2:])])
    assert again == (made.id, invoices) and gaps.get(made.id).label == "付款 方式"
    assert gaps.get(made.id).terms == ("花呗", "分期付款")


@pytest.mark.parametrize(("name", "questions", "message"), [
    ("", ["问题a"], "请填写新话题的名称"),
    ("付款\udc00方式", ["问题a"], "无法保存的字符"),
    ("长" * 101, ["问题a"], "超过了 100 字"),
    ("付款方式", [], "至少要放进一个问题"),
    ("付款方式", ["从没人问过的问题"], "不在资料缺口页上"),
    ("付款方式", [""], "没有选择问题"),
    ("分期", ["问题a"], "已经有叫「分期」的话题"),
])
def test_a_new_topic_refuses_odd_inputs(gaps, name, questions, message):
    gaps.sync([draft("分期", "a", "b", "c")])
    before = gaps.topics()
    with pytest.raises(InvalidReview, match=message):
        gaps.create(name, questions, actor="王校长")
    assert gaps.topics() == before


def test_a_check_does_not_close_a_topic_holding_a_question_it_did_not_cover(db, gaps):
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    asked(db, "能用花呗吗")
    gaps.move("能用花呗吗", topic, actor="李老师")  # moved in while the check of a, b, c ran
    checked = gaps.record_check(topic, [QuestionCheck(f"问题{k}", True, "覆盖 100%") for k in "abc"],
                                fingerprint="fp", version_note="第 2 版", actor="王校长")
    assert not checked.closed and checked.check.line == "3/3 题现在可答"


def test_a_database_made_before_migration_4_gains_the_merge_and_name_columns(database_url):
    old = Database(database_url)
    old.migrate(Schema("gaps", GAPS_SCHEMA.migrations[:3]))
    with old.transaction() as conn:  # the topics table as migrations 1-3 made it before the columns were declared
        conn.execute(text("ALTER TABLE gap_topics DROP COLUMN merged_into"))
        conn.execute(text("ALTER TABLE gap_topics DROP COLUMN named_by"))
        conn.execute(text("INSERT INTO gap_topics (label, terms, status, created_at) "
                          "VALUES ('分期', '分期', 'open', CURRENT_TIMESTAMP)"))
    old.dispose()
    db = Database(database_url)
    gaps = GapStore(db, clock=Clock())
    with db.read() as conn:
        assert tuple(conn.execute(text("SELECT merged_into, named_by FROM gap_topics")).one()) == (None, None)
    (topic,) = gaps.sync([draft("分期", "a", "b", "c")])
    assert gaps.merge(gaps.sync([draft("分期", "a", "b", "c"), draft("花呗", "d", "e", "f")])[1], topic,
                      actor="王校长").keys == tuple("abcdef")
    db.dispose()
