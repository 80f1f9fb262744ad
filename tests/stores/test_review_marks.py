"""预期拒答, 资料没写 and 资料已补充: marks that outlive a decision, and what the 资料缺口 board reads."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from core.errors import InvalidReview
from core.stores.db import Database, schema_migrations
from core.stores.review import Filters, ReviewStore
from core.stores.review_marks import MARKS_SCHEMA
from core.stores.review_schema import review_keys
from tests.outcomes import outcome_of
from tests.stores.test_review import Clock, answer

SPELLINGS = ("寒假班几号开始？", "寒假班几号开始呢", "老师好，请问寒假班几号开始", "寒假班几号开始啊？谢谢",
             "寒假班 几号开始的")


@pytest.fixture
def store(database_url):
    db = Database(database_url)
    yield ReviewStore(db, clock=Clock())
    db.dispose()


def refused(question: str = SPELLINGS[0], fingerprint: str = "f"):
    reply = replace(answer(question=question, text="这件事资料里没写", problems=(), refused=True, reason="资料外的词“寒假班”"),
                    threshold=0.2)
    return outcome_of(reply, fingerprint)


def test_thirty_askings_in_five_spellings_are_one_item_and_an_expected_refusal_opens_nothing(store):
    ids = {store.record(refused(SPELLINGS[n % 5]), asker="Amy") for n in range(30)}
    assert len(ids) == 1
    item_id = ids.pop()
    assert store.get(item_id).ask_count == 30
    store.decide(item_id, action="expect", reviewer="王老师", expected_version=1, topic="寒暑假班")
    assert store.record(refused("寒假班几号开始吗？")) == item_id  # the 31st, spelled once more
    item = store.get(item_id)
    assert (item.ask_count, item.status, item.expected.detail) == (31, "approved", "寒暑假班")
    assert store.list(Filters(status="pending")).total == 0
    assert [e.action for e in store.events(item_id)] == ["enqueue", "expect"]


def test_an_expected_refusal_is_matched_on_any_corpus(store):
    item_id = store.record(refused(fingerprint="f1"))
    store.decide(item_id, action="expect", reviewer="王老师", expected_version=1)
    assert store.record(refused(fingerprint="f2")) == item_id


def test_only_a_refusal_can_be_expected(store):
    flagged = store.record(outcome_of(answer(question="退费怎么算？"), "f"))
    with pytest.raises(InvalidReview, match="不是拒答"):
        store.decide(flagged, action="expect", reviewer="王老师", expected_version=1)


def test_a_topic_goes_with_expect_only(store):
    item_id = store.record(refused())
    with pytest.raises(InvalidReview, match="预期拒答"):
        store.decide(item_id, action="approve", reviewer="王老师", expected_version=1, topic="寒暑假班")


def test_reopening_an_expected_refusal_lets_its_repeats_queue_again(store):
    item_id = store.record(refused())
    expected = store.decide(item_id, action="expect", reviewer="王老师", expected_version=1)
    store.decide(item_id, action="reopen", reviewer="王老师", expected_version=expected.version)
    assert store.get(item_id).expected is None
    assert store.record(refused(SPELLINGS[1])) == item_id  # joins the pending item
    assert store.get(item_id).ask_count == 2


def test_bulk_expect_marks_every_ticked_refusal(store):
    ids = [store.record(refused(q)) for q in ("寒假班几号开始", "有外教吗")]
    result = store.bulk_decide({i: 1 for i in ids}, action="expect", reviewer="王老师", topic="课程")
    assert result.decided == tuple(ids)
    assert all(store.get(i).expected.detail == "课程" for i in ids)


def test_mark_missing_keeps_status_and_version_and_records_the_event(store):
    flagged = store.record(outcome_of(answer(question="退费怎么算？"), "f"))
    item = store.mark_missing(flagged, reviewer="王老师", note="资料没写按天退")
    assert (item.status, item.version, item.missing.detail) == ("pending", 1, "资料没写按天退")
    assert [e.action for e in store.events(flagged)] == ["enqueue", "mark_missing"]
    assert store.mark_missing(flagged, reviewer="王老师", on=False).missing is None


def test_the_board_reads_refusals_rejected_and_marked_items_but_not_fixed_ones(store):
    refusal = store.record(refused())
    clean = store.record(outcome_of(answer(question="退费怎么算？"), "f"))
    store.decide(clean, action="approve", reviewer="王老师", expected_version=1)
    rejected = store.record(outcome_of(answer(question="转班要钱吗？"), "f"))
    store.decide(rejected, action="reject", reviewer="王老师", expected_version=1, note="资料没写")
    marked = store.record(outcome_of(answer(question="上课几点？"), "f"))
    store.mark_missing(marked, reviewer="王老师")
    assert [i.id for i in store.iter_gap_items()] == [refusal, rejected, marked]
    assert store.record_fixes([refusal], actor="管理员", detail="「01-口语课分级说明.md」第 2 版") == [refusal]
    assert [i.id for i in store.iter_gap_items()] == [rejected, marked]


def test_a_fix_closes_a_pending_item_and_names_the_corpus_version_in_its_history(store):
    item_id = store.record(refused())
    store.record_fixes([item_id], actor="管理员", detail="「01-口语课分级说明.md」第 2 版（指纹 abc）补充后可答")
    item = store.get(item_id)
    assert (item.status, item.version, item.fixed.actor) == ("approved", 2, "管理员")
    last = store.events(item_id)[-1]
    assert (last.action, last.from_status, last.to_status, last.note) == (
        "fix", "pending", "approved", "「01-口语课分级说明.md」第 2 版（指纹 abc）补充后可答")


def test_the_marks_migration_keys_old_pending_items_again(tmp_path):
    url = f"sqlite:///{tmp_path / 'q.sqlite3'}"
    db = Database(url)
    item_id = ReviewStore(db, clock=Clock()).record(refused("有外教吗？"))
    with db.transaction() as conn:  # as a database from before: the older question_key's key, migration 2 not run
        conn.execute(review_keys.update().values(key=hashlib.sha256("有外教吗\x1frefusal\x1ff".encode()).hexdigest()))
        conn.execute(schema_migrations.delete().where(schema_migrations.c.component == MARKS_SCHEMA.component,
                                                      schema_migrations.c.version == 2))
    db.dispose()
    again = Database(url)
    store = ReviewStore(again, clock=Clock())
    assert again.applied(MARKS_SCHEMA.component) == [1, 2]
    assert store.record(refused("有外教的吗")) == item_id


def test_mark_missing_needs_a_name(store):
    item_id = store.record(refused())
    with pytest.raises(InvalidReview, match="复核人"):
        store.mark_missing(item_id, reviewer=" ")


def test_expected_topics_are_offered_most_used_first_and_a_reopened_one_drops_out(store):
    given = {"校区在哪": "校区地址", "校区怎么走": "校区地址", "能开发票吗": "发票", "有少儿班吗": "少儿课程", "周末有课吗": ""}
    ids = {}
    for question, topic in given.items():
        ids[question] = store.record(refused(question))
        store.decide(ids[question], action="expect", reviewer="王老师", expected_version=1, topic=topic or None)
    offered = store.expected_topics()
    assert offered[0] == "校区地址" and sorted(offered[1:]) == ["发票", "少儿课程"]  # 2 uses first; "" is no topic
    assert store.expected_topics(limit=1) == ("校区地址",)
    store.decide(ids["有少儿班吗"], action="reopen", reviewer="王老师", expected_version=store.get(ids["有少儿班吗"]).version)
    assert store.expected_topics() == ("校区地址", "发票")  # reopened: the mark, and its topic, are gone
