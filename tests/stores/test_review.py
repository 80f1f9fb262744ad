"""The review queue store: migrations, enqueue, decisions, conflicts, bulk, filters, export, bounds, locks."""

from __future__ import annotations

import csv
import io
import sqlite3
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import update

from core.cells import neutralise
from core.errors import ConflictError, InvalidQuestion, InvalidReview, StoreError
from core.stores.db import Database, Schema
from core.stores.review import Filters, ReviewStore
from core.stores.review_export import HEADER
from core.stores.review_schema import REVIEW_SCHEMA, review_events, review_items
from core.values import Hit, Problem, RAGAnswer
from tests.outcomes import failure_outcome, outcome_of

T0 = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)


def hit(rank: int, score: float, passed: bool, source: str = "02-退费与转班制度.md") -> Hit:
    return Hit(rank=rank, source=source, heading="三、退费计算口径", chunk=rank + 3, start=10 * rank,
               end=10 * rank + 9, text=f"片段{rank}：开课 7 天内可全额退费。", score=score, passed=passed)


def answer(question: str = "退费怎么算？", text: str = "开课 7 天内可退八成 [7]",
           problems: tuple[Problem, ...] = (Problem("bad_ref", "引用了不存在的编号 [7]，本次只提供了 1~2", (12, 15)),),
           refused: bool = False, reason: str = "") -> RAGAnswer:
    candidates = (hit(1, 0.52, True), hit(2, 0.11, False, "01-口语课分级说明.md"))
    return RAGAnswer(question=question, text=text, hits=candidates[:1], candidates=candidates, threshold=0.2,
                     k=2, refused=refused, model_called=not refused, problems=problems, reason=reason)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def url(database_url) -> str:
    return database_url


@pytest.fixture
def store(url) -> ReviewStore:
    db = Database(url)
    yield ReviewStore(db, clock=Clock())
    db.dispose()


def other_store(url: str) -> ReviewStore:
    """A second engine on the same file, like a second consultant's browser session."""
    return ReviewStore(Database(url))


# --- migrations ------------------------------------------------------------------------------

def test_review_migrations_apply_on_a_fresh_file(url):
    db = Database(url)
    ReviewStore(db)
    assert db.applied("review") == [1, 2, 3, 4]


def test_review_migrations_bring_an_existing_file_up_to_date(url):
    old = Database(url)
    old.migrate(Schema("review", REVIEW_SCHEMA.migrations[:1]))
    with old.transaction() as conn:
        conn.execute(review_items.insert().values(
            id=7, created_at=T0, origin="auto", question="旧问题", answer="旧回答", fingerprint="f0",
            status="pending", version=1))
        conn.execute(review_events.insert().values(item_id=7, at=T0, actor="小E", action="enqueue",
                                                   to_status="pending", version=1))
    old.dispose()
    db = Database(url)
    store = ReviewStore(db)
    assert db.applied("review") == [1, 2, 3, 4]
    assert store.get(7).question == "旧问题"
    # migration 2 made the audit trail append-only
    with pytest.raises(StoreError), db.transaction() as conn:
        conn.execute(update(review_events).values(actor="篡改者"))


# --- enqueue and record -----------------------------------------------------------------------

def test_enqueue_keeps_question_reasons_candidates_and_settings(store):
    item = store.get(store.enqueue(answer(), fingerprint="fp-1"))
    assert (item.question, item.status, item.version, item.origin) == ("退费怎么算？", "pending", 1, "auto")
    assert item.reasons == (Problem("bad_ref", "引用了不存在的编号 [7]，本次只提供了 1~2", (12, 15)),)
    assert (item.threshold, item.k, item.fingerprint) == (0.2, 2, "fp-1")
    assert [(c.source, c.chunk, c.score, c.passed) for c in item.candidates] == [
        ("02-退费与转班制度.md", 4, 0.52, True), ("01-口语课分级说明.md", 5, 0.11, False)]
    assert item.lanes == ("auto", "citation")
    assert item.lane_labels == ("自动标记", "引用问题")
    assert item.created_at == T0


def test_enqueue_writes_an_enqueue_event(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    [event] = store.events(item_id)
    assert (event.actor, event.action, event.from_status, event.to_status) == ("小E", "enqueue", None, "pending")


def test_enqueue_manual_needs_who_flagged_it(store):
    with pytest.raises(InvalidReview, match="标记人"):
        store.enqueue(answer(problems=()), origin="manual")
    item_id = store.enqueue(answer(problems=()), origin="manual", flagged_by="王老师",
                            extra_reasons=(Problem("manual", "价格说错了"),))
    assert store.get(item_id).flagged_by == "王老师"
    assert store.events(item_id)[0].actor == "王老师"


def test_record_a_model_failure_goes_to_the_model_error_lane_with_its_candidates(store):
    item_id = store.record(failure_outcome("口语课几级？", message="调用模型超时", kind="timeout", threshold=0.2, k=3,
                                           candidates=(hit(1, 0.4, True),), fingerprint="f"))
    item = store.get(item_id)
    assert (item.origin, item.answer, item.reasons) == ("model_error", "", (Problem("timeout", "调用模型超时"),))
    assert store.list(Filters(lane="model_error")).total == 1 and len(item.candidates) == 1


@pytest.mark.parametrize(("rag_answer", "origin"), [
    (answer(), "auto"),
    (answer(problems=()), None),
    (answer(text="这件事资料里没写，我不能替你们编，请转人工。", problems=(), refused=True,
            reason="最高分 0.11 低于阈值 0.20，没有可用的资料片段"), "refusal"),
])
def test_record_answer_queues_flagged_and_refused_answers_only(store, rag_answer, origin):
    item_id = store.record(outcome_of(rag_answer, "f"))
    if origin is None:
        assert item_id is None
        assert store.counts().total == 0
    else:
        assert store.get(item_id).origin == origin


def test_record_answer_keeps_the_refusal_reason(store):
    refused = answer(text="这件事资料里没写", problems=(), refused=True, reason="最高分 0.11 低于阈值 0.20")
    item = store.get(store.record(outcome_of(refused, "f")))
    assert item.reasons == (Problem("refused", "最高分 0.11 低于阈值 0.20"),)


# --- bounds ----------------------------------------------------------------------------------

def test_enqueue_question_bound(store):
    store.enqueue(answer(question="问" * 2000), fingerprint="f")
    with pytest.raises(InvalidQuestion, match="2001 个字"):
        store.enqueue(answer(question="问" * 2001), fingerprint="f")


def test_enqueue_answer_of_any_length_is_stored_whole(store):
    item = store.enqueue(answer(text="答" * 20001), fingerprint="f")  # #16: runaway answers must be queued
    assert store.get(item).answer == "答" * 20001


@pytest.mark.parametrize(("option", "limit"), [("note", 2000), ("corrected_answer", 20000)])
def test_decide_bounds(store, option, limit):
    item_id = store.enqueue(answer(), fingerprint="f")
    with pytest.raises(InvalidReview, match=f"{limit + 1} 个字"):
        store.decide(item_id, action="approve", reviewer="王老师", expected_version=1, **{option: "字" * (limit + 1)})
    assert store.get(item_id).version == 1
    store.decide(item_id, action="approve", reviewer="王老师", expected_version=1, confirmed=True,
                 **{option: "字" * limit})


def test_enqueue_rejects_an_empty_question(store):
    with pytest.raises(InvalidQuestion):
        store.enqueue(answer(question="  "), fingerprint="f")


# --- decisions -------------------------------------------------------------------------------

def test_decide_approve_records_reviewer_note_and_correction(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    item = store.decide(item_id, action="approve", reviewer=" 王老师 ", expected_version=1, note="改了数字",
                        corrected_answer="开课 7 天内可全额退费 [1]")
    assert (item.status, item.version, item.reviewer, item.note) == ("approved", 2, "王老师", "改了数字")
    assert item.corrected_answer == "开课 7 天内可全额退费 [1]"
    assert item.decided_at == T0
    last = store.events(item_id)[-1]
    assert (last.actor, last.action, last.from_status, last.to_status, last.version) == (
        "王老师", "approve", "pending", "approved", 2)


@pytest.mark.parametrize("note", [None, "", "   "])
def test_decide_reject_needs_a_note(store, note):
    item_id = store.enqueue(answer(), fingerprint="f")
    with pytest.raises(InvalidReview, match="驳回必须写明理由"):
        store.decide(item_id, action="reject", reviewer="王老师", expected_version=1, note=note)
    assert store.get(item_id).status == "pending"
    assert len(store.events(item_id)) == 1


def test_decide_needs_a_reviewer(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    with pytest.raises(InvalidReview, match="复核人"):
        store.decide(item_id, action="approve", reviewer=" ", expected_version=1)


def test_decide_reopen_returns_to_pending_and_remembers_where_from(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    store.decide(item_id, action="reject", reviewer="王老师", expected_version=1, note="数字编造")
    item = store.decide(item_id, action="reopen", reviewer="李老师", expected_version=2)
    assert (item.status, item.version) == ("pending", 3)
    assert [(e.action, e.from_status, e.to_status) for e in store.events(item_id)] == [
        ("enqueue", None, "pending"), ("reject", "pending", "rejected"), ("reopen", "rejected", "pending")]


def test_decide_refuses_a_transition_the_status_does_not_allow(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    store.decide(item_id, action="approve", reviewer="王老师", expected_version=1)
    with pytest.raises(InvalidReview, match="请先重新打开"):
        store.decide(item_id, action="reject", reviewer="王老师", expected_version=2, note="改主意")


def test_decide_unknown_item_is_a_clear_error(store):
    with pytest.raises(StoreError, match="#999"):
        store.decide(999, action="approve", reviewer="王老师", expected_version=1)


def test_decide_conflict_between_two_engines_names_who_and_overwrites_nothing(url, store):
    item_id = store.enqueue(answer(), fingerprint="f")
    first, second = other_store(url), other_store(url)
    first.decide(item_id, action="reject", reviewer="王老师", expected_version=1, note="数字编造")
    with pytest.raises(ConflictError, match="该条目已被 王老师 处理") as caught:
        second.decide(item_id, action="approve", reviewer="李老师", expected_version=1, note="没问题")
    assert "第 1 版" in str(caught.value) and "第 2 版" in str(caught.value)
    item = store.get(item_id)
    assert (item.status, item.reviewer, item.note, item.version) == ("rejected", "王老师", "数字编造", 2)
    assert [e.actor for e in store.events(item_id)] == ["小E", "王老师"]


def test_bulk_decide_skips_the_item_someone_else_changed(url, store):
    ids = [store.enqueue(answer(question=f"问题{i}"), fingerprint="f") for i in range(3)]
    other_store(url).decide(ids[1], action="approve", reviewer="王老师", expected_version=1)
    result = store.bulk_decide({i: 1 for i in ids}, action="reject", reviewer="李老师", note="批量驳回")
    assert result.decided == (ids[0], ids[2])
    assert [item_id for item_id, _ in result.skipped] == [ids[1]]
    assert "已被 王老师 处理" in result.skipped[0][1]
    assert [store.get(i).status for i in ids] == ["rejected", "approved", "rejected"]


def test_bulk_decide_reject_needs_a_note_before_touching_anything(store):
    ids = [store.enqueue(answer(), fingerprint="f") for _ in range(2)]
    with pytest.raises(InvalidReview):
        store.bulk_decide({i: 1 for i in ids}, action="reject", reviewer="李老师")
    assert store.counts().status("pending") == 2


# --- listing and counting --------------------------------------------------------------------

@pytest.fixture
def filled(store) -> tuple[ReviewStore, dict[str, int]]:
    clock = store._clock
    ids = {}
    ids["citation"] = store.enqueue(answer(question="退费怎么算？"), fingerprint="f")
    clock.now = T0 + timedelta(days=1)
    ids["number"] = store.enqueue(answer(question="口语课几级？", text="一共六级 [1]",
                                         problems=(Problem("unsupported_number", "数字“六”在资料里找不到"),)),
                                  fingerprint="f")
    clock.now = T0 + timedelta(days=2)
    ids["refusal"] = store.record(outcome_of(answer(question="能打折吗？", text="资料里没写", problems=(),
                                                    refused=True), "f"))
    ids["percent"] = store.enqueue(answer(question="手续费多少", text="收取 5% 手续费 [3]"), fingerprint="f")
    store.decide(ids["number"], action="approve", reviewer="王老师", expected_version=1)
    return store, ids


@pytest.mark.parametrize(("filters", "expected"), [
    (Filters(), ["percent", "refusal", "number", "citation"]),
    (Filters(status="pending"), ["percent", "refusal", "citation"]),
    (Filters(status="approved"), ["number"]),
    (Filters(lane="refusal"), ["refusal"]),
    (Filters(lane="citation"), ["percent", "citation"]),
    (Filters(lane="number"), ["number"]),
    (Filters(reason="bad_ref"), ["percent", "citation"]),
    (Filters(search="口语课"), ["number"]),
    (Filters(search="5%"), ["percent"]),
    (Filters(search="%"), ["percent"]),
    (Filters(since=T0 + timedelta(days=1), until=T0 + timedelta(days=2)), ["number"]),
    (Filters(status="pending", lane="citation", search="退费"), ["citation"]),
])
def test_list_filters(filled, filters, expected):
    store, ids = filled
    page = store.list(filters)
    assert [item.id for item in page.items] == [ids[name] for name in expected]
    assert page.total == len(expected)


def test_list_pages_and_sorts_oldest_first(filled):
    store, ids = filled
    page = store.list(sort="created", offset=1, limit=2)
    assert [item.id for item in page.items] == [ids["number"], ids["refusal"]]
    assert page.total == 4


def test_list_treats_local_dates_as_instants(filled):
    store, ids = filled
    beijing = timezone(timedelta(hours=8))
    # 2025-03-02 00:00 in Beijing is 2025-03-01 16:00 UTC: after the first item (08:00 UTC), before the second.
    page = store.list(Filters(until=datetime(2025, 3, 2, tzinfo=beijing)))
    assert [item.id for item in page.items] == [ids["citation"]]


def test_filters_reject_an_unknown_status():
    with pytest.raises(InvalidReview, match="done"):
        Filters(status="done")


def test_counts_per_status_and_lane(filled):
    store, _ = filled
    store.enqueue(answer(problems=(Problem("bad_ref", "[7]"), Problem("no_refs", "无出处"))), fingerprint="f")
    counts = store.counts()
    assert counts.by_status == {"pending": 4, "approved": 1}
    assert counts.lane("auto") == 4
    assert counts.lane("citation", "pending") == 3  # the item with two citation problems counts once
    assert counts.lane("number", "approved") == 1
    assert counts.lane("refusal") == 1
    assert counts.lane("stale") == 0


# --- export ----------------------------------------------------------------------------------

def test_export_round_trip_with_chinese_text(filled, tmp_path):
    store, ids = filled
    target = tmp_path / "队列.csv"
    assert store.export_csv(target, Filters(status="pending")) == 3
    assert target.read_bytes().startswith(b"\xef\xbb\xbf")
    with open(target, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == HEADER
    by_id = {int(row[0]): dict(zip(HEADER, row)) for row in rows[1:]}
    assert set(by_id) == {ids["citation"], ids["refusal"], ids["percent"]}
    citation = by_id[ids["citation"]]
    assert (citation["问题"], citation["状态"], citation["通道"]) == ("退费怎么算？", "待复核", "自动标记 · 引用问题")
    assert citation["问题原因"] == "引用编号不存在：引用了不存在的编号 [7]，本次只提供了 1~2"  # label, not the code


def test_export_to_a_text_stream_starts_with_the_bom(filled):
    store, _ = filled
    buffer = io.StringIO()
    store.export_csv(buffer)
    assert buffer.getvalue().encode("utf-8").startswith(b"\xef\xbb\xbf")


@pytest.mark.parametrize(("cell", "expected"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
    ("+86 138", "'+86 138"),
    ("-1+1", "'-1+1"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"),
    ("退费 = 5%", "退费 = 5%"),
    (0.2, 0.2),
])
def test_export_neutralises_formula_cells(cell, expected):
    assert neutralise(cell) == expected


def test_export_neutralises_a_consultants_note(store, tmp_path):
    item_id = store.enqueue(answer(question="=1+1"), fingerprint="f")
    store.decide(item_id, action="reject", reviewer="@王老师", expected_version=1, note="-错")
    target = tmp_path / "out.csv"
    store.export_csv(target)
    with open(target, encoding="utf-8-sig", newline="") as handle:
        row = dict(zip(HEADER, list(csv.reader(handle))[1]))
    assert (row["问题"], row["复核人"], row["备注"]) == ("'=1+1", "'@王老师", "'-错")


def test_export_to_an_unwritable_place_is_a_clear_error(store, tmp_path):
    with pytest.raises(StoreError, match="无法写入导出文件"):
        store.export_csv(tmp_path / "no" / "such" / "dir.csv")


# --- locking and broken files ----------------------------------------------------------------

def test_a_file_that_is_not_a_database_becomes_store_error(tmp_path):
    path = tmp_path / "queue.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="数据库"):
        ReviewStore(Database(f"sqlite:///{path}"))


def test_locked_database_becomes_store_error(tmp_path):  # SQLite's file lock; PostgreSQL has row locks
    url = f"sqlite:///{tmp_path / 'queue.sqlite3'}"
    ReviewStore(Database(url)).enqueue(answer(), fingerprint="f")
    blocker = sqlite3.connect(tmp_path / "queue.sqlite3", timeout=0.1)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        store = ReviewStore(Database(url, busy_timeout_ms=100))
        with pytest.raises(StoreError, match="占用"):
            store.enqueue(answer(), fingerprint="f")
        with pytest.raises(StoreError, match="占用"):
            store.decide(1, action="approve", reviewer="王老师", expected_version=1)
    finally:
        blocker.rollback()
        blocker.close()


def test_bulk_reopen_can_add_a_reason_so_the_item_joins_its_lane(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    store.decide(item_id, action="approve", reviewer="王老师", expected_version=1)
    stale = Problem("stale_corpus", "资料已更新（02-退费与转班制度.md），请按新资料重新复核。")
    result = store.bulk_decide({item_id: 2}, action="reopen", reviewer="管理员", note="资料已更新", add_reason=stale)
    assert result.decided == (item_id,)
    item = store.get(item_id)
    assert (item.status, item.reasons[-1], item.lanes) == ("pending", stale, ("auto", "citation", "stale"))
    assert store.counts().lane("stale", "pending") == 1


def test_a_refused_decision_adds_no_reason(store):
    item_id = store.enqueue(answer(), fingerprint="f")
    with pytest.raises(ConflictError):
        store.decide(item_id, action="approve", reviewer="王老师", expected_version=5,
                     add_reason=Problem("stale_corpus", "资料已更新"))
    assert [p.code for p in store.get(item_id).reasons] == ["bad_ref"]
