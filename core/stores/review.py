"""The review queue: flagged, refused and failed answers wait here for a consultant's decision.

Every write is one transaction that also appends to the audit trail. Decisions use an
optimistic version check: the reviewer states the version they looked at, and a decision on
a version that moved is refused with `ConflictError` naming who moved it, never overwritten.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import IO

from sqlalchemy import Connection, func, select

from core.clock import as_utc, utcnow
from core.errors import ConflictError, InvalidReview, NeedsConfirmation, NotInView, StoreError, XiaoEError
from core.stores.api_keys import KEYS_SCHEMA
from core.stores.approved import APPROVED_SCHEMA, approve_in, count_use_in
from core.stores.db import Database, changed
from core.stores.exchange_schema import EXCHANGES_SCHEMA, public_id
from core.stores.outbox import Send, follow_up_in, release_in
from core.stores.review_approval import Approval, approval_of
from core.stores.review_dedup import REPEATS_SCHEMA, dedup_key, find_pending, note_corpus, same_sliders
from core.stores.review_export import write_csv, write_export, write_xlsx
from core.stores.review_input import (
    Entry,
    ReviewDecision,
    bounded,
    entry_from_answer,
    entry_from_outcome,
    person_name,
    route,
    validated,
)
from core.stores.review_marks import (
    EXPECTED,
    MARKS_SCHEMA,
    drop_mark,
    expected_topics,
    find_expected,
    gap_condition,
    put_mark,
    record_fix,
    set_missing,
)
from core.stores.review_models import (
    SORTS,
    BulkResult,
    Filters,
    Page,
    QueueCounts,
    ReviewEvent,
    ReviewItem,
)
from core.stores.review_query import conditions, hydrate, in_lane, local, order
from core.stores.review_schema import (
    ACTION_LABELS,
    CODED_LANES,
    GRADE_SCHEMA,
    MAX_NOTE_CHARS,
    REPORT_SCHEMA,
    REVIEW_SCHEMA,
    STATUS_LABELS,
    SYSTEM_ACTOR,
    TRANSITIONS,
    review_asks,
    review_candidates,
    review_events,
    review_grades,
    review_items,
    review_keys,
    review_reasons,
    review_reports,
)
from core.stores.roles import Authorize
from core.values import Grade, GroundingReport, Outcome, Problem, RAGAnswer

__all__ = ["BulkResult", "Filters", "Page", "QueueCounts", "ReviewEvent", "ReviewItem", "ReviewStore",
           "next_pending"]

items, reasons, candidates, events = review_items, review_reasons, review_candidates, review_events
keys, asks = review_keys, review_asks
STALE_REASON = "stale_corpus"  # the reason a changed cited chunk adds (core.stores.stale)


class ReviewStore:
    """The review queue on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(REVIEW_SCHEMA)
        db.migrate(GRADE_SCHEMA)
        db.migrate(REPORT_SCHEMA)
        db.migrate(APPROVED_SCHEMA)
        db.migrate(MARKS_SCHEMA)
        db.migrate(REPEATS_SCHEMA)  # after the marks, whose older migration keyed pending items with the corpus
        db.migrate(KEYS_SCHEMA)
        db.migrate(EXCHANGES_SCHEMA)

    # --- filling -----------------------------------------------------------------------------

    def enqueue(self, answer: RAGAnswer, *, origin: str = "auto", fingerprint: str = "",
                flagged_by: str | None = None, extra_reasons: Sequence[Problem] = (),
                asker: str | None = None, merge: bool = False, authorize: Authorize | None = None) -> int:
        """Queue one answer; its problems (plus `extra_reasons`) become the item's reasons.

        With `merge`, a repeat of a pending refused/flagged/failed question joins that item
        instead (see core/stores/review_dedup.py); `record` merges. With `authorize` (a staff
        member flagging it), their session is checked in the same transaction.
        """
        entry = entry_from_answer(answer, origin=origin, fingerprint=fingerprint, flagged_by=flagged_by,
                                  extra_reasons=extra_reasons)
        return self._insert([entry], [answer.grade], asker=asker, merge=merge, authorize=authorize)[0]

    def enqueue_many(self, answers: Iterable[RAGAnswer], *, origin: str = "auto", fingerprint: str = "",
                     flagged_by: str | None = None, extra_reasons: Sequence[Problem] = ()) -> list[int]:
        """Queue several answers in one transaction (a batch evaluation); ids in input order."""
        answers = list(answers)
        entries = [entry_from_answer(a, origin=origin, fingerprint=fingerprint, flagged_by=flagged_by,
                                      extra_reasons=extra_reasons) for a in answers]
        return self._insert(entries, [a.grade for a in answers])

    def record(self, outcome: Outcome, *, asker: str | None = None, batch: Problem | None = None,
               batch_run: bool = False, authorize: Authorize | None = None) -> int | None:
        """Queue one outcome if a consultant must see it; returns the item id, or None when nothing was queued.

        The one place every entry point (the Ask page, `xiaoe ask`, batch runs) records what came of a
        question: `route` (core.stores.review_input) picks the lane — 拒答, 模型判定可答, 自动标记 or
        模型故障, with its candidates — and whether a repeat joins the pending item. A batch run
        (`batch_run`) queues only what needs a consultant there: a failed check, a model failure, the
        grader's yes, or an outcome that contradicts the label (`batch`, the reason saying how). A refusal of a
        question marked 预期拒答 (the same `question_key`, any corpus) joins that item's count and opens nothing.
        An approved answer served again is queued only when a check fails on today's chunks; each use is counted.
        """
        if outcome.reused is not None and not batch_run:  # every use of an approved answer is counted
            with self.db.transaction("记录已审答案的使用") as conn:
                count_use_in(conn, outcome.reused.id, self._clock())
        routed = route(outcome, batch=batch, batch_run=batch_run)
        if routed is None:
            return None
        origin, merge = routed
        entry = entry_from_outcome(outcome, origin=origin, extra_reasons=(batch,) if batch else ())
        return self._insert([entry], [outcome.grade], asker=asker, merge=merge, authorize=authorize)[0]


    def record_in(self, conn: Connection, outcome: Outcome, *, held: bool = False, held_reason: str = "",
                  asker: str | None = None) -> int | None:
        """`record` inside the caller's transaction (the student service records the exchange with it, so the
        exchange and its item commit together). `held`: the release policy holds this answer for a consultant, so it
        gets its own item in 待发送 (never merged: each student waits for their own reply), whatever its lane."""
        if outcome.reused is not None:
            count_use_in(conn, outcome.reused.id, self._clock())
        routed = ("held", False) if held else route(outcome)
        if routed is None:
            return None
        origin, merge = routed
        why = (Problem("held", held_reason or "放行策略要求先由顾问审"),) if held else ()
        entry = entry_from_outcome(outcome, origin=origin, extra_reasons=why)
        return self._insert_in(conn, [entry], [outcome.grade], self._clock(), asker=asker, merge=merge)[0]

    def file_in(self, conn: Connection, question: str, *, origin: str, reason: Problem,
                join: int | None = None, answer: str = "") -> int:
        """A message with no outcome (a student writing in a conversation a consultant took over) as an item of lane
        `origin`, inside the caller's transaction; with `join`, it counts as one more asking of that pending item."""
        now = self._clock()
        if join is not None:
            conn.execute(asks.insert().values(item_id=join, at=now, asker=None, threshold=None, k=None, counted=True))
            return join
        entry = validated(question=question, answer=answer, origin=origin, reasons=(reason,), threshold=None, k=None,
                          candidates=(), fingerprint="", flagged_by=None)
        item_id = self._insert_new(conn, [entry], [None], now)[0]
        conn.execute(asks.insert().values(item_id=item_id, at=now, asker=None, threshold=None, k=None, counted=True))
        return item_id

    def add_reason(self, item_id: int, problem: Problem, *, expected_version: int) -> ReviewItem:
        """Add a reason to a pending item without deciding it (a held answer whose cited passage changed before it was
        sent joins 资料已更新); the version moves, so a consultant looking at the old version is told to refresh."""
        with self.db.transaction("更新复核条目") as conn:
            if changed(conn, items.update().where(items.c.id == item_id, items.c.version == expected_version,
                                                  items.c.status == "pending")
                       .values(version=expected_version + 1)) != 1:
                raise self._why_not(conn, item_id, expected_version, "approve")
            position = conn.execute(select(func.coalesce(func.max(reasons.c.position) + 1, 0))
                                    .where(reasons.c.item_id == item_id)).scalar_one()
            conn.execute(reasons.insert().values(item_id=item_id, position=position, code=problem.code,
                                                 message=problem.message, span_start=None, span_end=None))
        return self.get(item_id)

    def _insert(self, entries: list[Entry], grades: Sequence[Grade | None] = (), *, asker: str | None = None,
                merge: bool = False, authorize: Authorize | None = None) -> list[int]:
        """Insert entries in one transaction; a repeat of a pending item joins it (core/stores/review_dedup.py).
        A grader's verdict (`grades`, by position) is stored with a new item."""
        if not entries:
            return []
        with self.db.transaction("写入复核队列", immediate=authorize is not None) as conn:
            if authorize is not None:
                authorize(conn, "flag")
            return self._insert_in(conn, entries, grades, self._clock(), asker=asker, merge=merge)

    def _insert_in(self, conn: Connection, entries: list[Entry], grades: Sequence[Grade | None], now: datetime, *,
                   asker: str | None, merge: bool) -> list[int]:
        asker = person_name(asker, "提问人")
        grades = list(grades) + [None] * (len(entries) - len(grades))
        ids: list[int | None] = []
        fresh: list[tuple[int, Entry, str | None]] = []
        for position, e in enumerate(entries):
            key = dedup_key(e.question, e.origin) if merge else None
            found = find_expected(conn, e.question) if merge and e.origin == "refusal" else None
            pending = None if found or not key else find_pending(conn, key)
            found = found or pending
            if found is None:
                ids.append(None)
                fresh.append((position, e, key))
                continue
            item_id, threshold, k = found
            if pending:  # asked again on an edited corpus: the edit goes into the item's history
                note_corpus(conn, item_id, e.fingerprint, actor=asker or SYSTEM_ACTOR, at=now)
            conn.execute(asks.insert().values(item_id=item_id, at=now, asker=asker, threshold=e.threshold,
                                              k=e.k, counted=same_sliders(threshold, e.threshold, k, e.k)))
            ids.append(item_id)
        if fresh:
            new_ids = self._insert_new(conn, [e for _, e, _ in fresh], [grades[p] for p, _, _ in fresh], now)
            for (position, e, key), item_id in zip(fresh, new_ids):
                ids[position] = item_id
                if key:
                    conn.execute(keys.insert().values(item_id=item_id, key=key))
                    conn.execute(asks.insert().values(item_id=item_id, at=now, asker=asker or e.flagged_by,
                                                      threshold=e.threshold, k=e.k, counted=True))
        return [i for i in ids if i is not None]

    @staticmethod
    def _insert_new(conn: Connection, entries: list[Entry], grades: list[Grade | None], now: datetime) -> list[int]:
        ids = list(conn.execute(
            items.insert().returning(items.c.id, sort_by_parameter_order=True),
            [{"created_at": now, "origin": e.origin, "question": e.question, "answer": e.answer,
              "threshold": e.threshold, "k": e.k, "fingerprint": e.fingerprint, "flagged_by": e.flagged_by,
              "status": "pending", "version": 1} for e in entries]).scalars())
        reason_rows = [{"item_id": item_id, "position": pos, "code": p.code, "message": p.message,
                        "span_start": p.span[0] if p.span else None, "span_end": p.span[1] if p.span else None}
                       for item_id, e in zip(ids, entries) for pos, p in enumerate(e.reasons)]
        candidate_rows = [{"item_id": item_id, "rank": pos, "source": h.source, "heading": h.heading,
                           "chunk": h.chunk, "start": h.start, "end": h.end, "score": float(h.score),
                           "passed": bool(h.passed), "text": h.text}
                          for item_id, e in zip(ids, entries) for pos, h in enumerate(e.candidates, start=1)]
        if reason_rows:
            conn.execute(reasons.insert(), reason_rows)
        if candidate_rows:
            conn.execute(candidates.insert(), candidate_rows)
        grade_rows = [{"item_id": item_id, "answerable": g.answerable, "chunks": ",".join(map(str, g.chunks)),
                       "reason": g.reason, "fault": g.fault, "prompt_tokens": g.prompt_tokens,
                       "completion_tokens": g.completion_tokens, "ms": g.ms}
                      for item_id, g in zip(ids, grades) if g is not None]
        if grade_rows:
            conn.execute(review_grades.insert(), grade_rows)
        report_rows = [{"item_id": item_id, "grounding": json.dumps(e.grounding.to_dict(), ensure_ascii=False)}
                       for item_id, e in zip(ids, entries) if e.grounding is not None]
        if report_rows:
            conn.execute(review_reports.insert(), report_rows)
        conn.execute(events.insert(), [
            {"item_id": item_id, "at": now, "actor": e.flagged_by or SYSTEM_ACTOR, "action": "enqueue",
             "from_status": None, "to_status": "pending", "version": 1, "note": None, "corrected_answer": None}
            for item_id, e in zip(ids, entries)])
        return ids

    # --- reading -----------------------------------------------------------------------------

    def get(self, item_id: int) -> ReviewItem:
        with self.db.read("读取复核条目") as conn:
            row = conn.execute(select(items).where(items.c.id == item_id)).first()
            if row is None:
                raise _not_found(item_id)
            return hydrate(conn, [row], with_asks=True)[0]

    def list(self, filters: Filters | None = None, *, sort: str = "-created", offset: int = 0,
             limit: int = 50) -> Page:
        """One page of the filtered queue, newest first by default, and the filtered total."""
        if sort not in SORTS:
            raise InvalidReview(f"排序方式「{sort}」不存在，可选：{'、'.join(SORTS)}。")
        where = conditions(filters or Filters())
        with self.db.read("读取复核队列") as conn:
            total = conn.execute(select(func.count()).select_from(items).where(*where)).scalar_one()
            rows = conn.execute(select(items).where(*where).order_by(*order(sort))
                                .offset(max(offset, 0)).limit(max(limit, 0))).all()
            return Page(items=tuple(hydrate(conn, rows)), total=total, offset=offset, limit=limit)

    def iter_items(self, filters: Filters | None = None, *, batch: int = 2000,
                   with_candidates: bool = False) -> Iterator[ReviewItem]:
        """Every matching item by ascending id, fetched in batches (keyset) so memory stays flat."""
        where = conditions(filters or Filters())
        last = 0
        with self.db.read("读取复核队列") as conn:
            while True:
                rows = conn.execute(select(items).where(items.c.id > last, *where)
                                    .order_by(items.c.id).limit(batch)).all()
                if not rows:
                    return
                yield from hydrate(conn, rows, with_candidates=with_candidates)
                last = rows[-1].id

    def pending_ids(self, filters: Filters | None = None, *, sort: str = "-created") -> tuple[int, ...]:
        """Ids of the pending items in `filters`, in list order: what 「…并下一条」 walks through."""
        if sort not in SORTS:
            raise InvalidReview(f"排序方式「{sort}」不存在，可选：{'、'.join(SORTS)}。")
        where = conditions(replace(filters or Filters(), status="pending"))
        with self.db.read("读取复核队列") as conn:
            return tuple(conn.execute(select(items.c.id).where(*where).order_by(*order(sort))).scalars())

    def asked_since(self, since: datetime, *, limit: int = 500) -> tuple[str, ...]:
        """The distinct questions queued or asked again since `since`, newest first (at most `limit`): the
        questions consultants actually met lately, for an impact check before a change."""
        since = as_utc(since)
        last_asked = func.max(asks.c.at)
        with self.db.read("读取最近的问题") as conn:
            recent_items = select(items.c.question, items.c.created_at.label("at")).where(items.c.created_at >= since)
            recent_asks = (select(items.c.question, last_asked.label("at")).join(asks, asks.c.item_id == items.c.id)
                           .where(asks.c.at >= since).group_by(items.c.question))
            rows = conn.execute(recent_items.union_all(recent_asks)).all()
        newest: dict[str, datetime] = {}
        for question, at in rows:
            at = as_utc(at)
            if question not in newest or at > newest[question]:
                newest[question] = at
        return tuple(sorted(newest, key=lambda q: newest[q], reverse=True)[:limit])

    def counts(self) -> QueueCounts:
        """Counts per status, and per lane and status; an item counts once in every lane it is in."""
        with self.db.read("统计复核队列") as conn:
            by_status: dict[str, int] = dict(
                conn.execute(select(items.c.status, func.count()).group_by(items.c.status)).all())
            by_lane: dict[str, dict[str, int]] = {}
            for lane, status, n in conn.execute(
                    select(items.c.origin, items.c.status, func.count()).group_by(items.c.origin, items.c.status)):
                by_lane.setdefault(lane, {})[status] = n
            # One query per lane an item joins by a reason code (core.stores.review_query.in_lane).
            for lane in CODED_LANES:
                rows = conn.execute(select(items.c.status, func.count()).where(in_lane(lane))
                                    .group_by(items.c.status)).all()
                if rows:
                    by_lane[lane.code] = dict(rows)
        return QueueCounts(by_status=by_status, by_lane=by_lane)

    def grounding(self, item_id: int) -> GroundingReport | None:
        """The sentence verdicts stored with an item when it was queued; None for items queued without them."""
        with self.db.read("读取逐句核对") as conn:
            raw = conn.execute(select(review_reports.c.grounding).where(review_reports.c.item_id == item_id)).scalar()
        return GroundingReport.from_dict(json.loads(raw)) if raw else None

    def grade(self, item_id: int) -> Grade | None:
        """The grader's stored verdict and cost for an item; None when the grader did not judge it."""
        with self.db.read("读取模型判定") as conn:
            row = conn.execute(select(review_grades).where(review_grades.c.item_id == item_id)).first()
        if row is None:
            return None
        return Grade(answerable=row.answerable, chunks=tuple(int(c) for c in row.chunks.split(",") if c),
                     reason=row.reason, prompt_tokens=row.prompt_tokens, completion_tokens=row.completion_tokens,
                     ms=row.ms, fault=row.fault)

    def events(self, item_id: int) -> tuple[ReviewEvent, ...]:
        """The item's audit trail, oldest first."""
        with self.db.read("读取处理记录") as conn:
            rows = conn.execute(select(events).where(events.c.item_id == item_id).order_by(events.c.id)).all()
        return tuple(ReviewEvent(id=r.id, item_id=r.item_id, at=as_utc(r.at), actor=r.actor, action=r.action,
                                 from_status=r.from_status, to_status=r.to_status, version=r.version,
                                 note=r.note, corrected_answer=r.corrected_answer) for r in rows)

    def export_csv(self, target: str | Path | IO[str], filters: Filters | None = None) -> int:
        """Write the filtered queue as CSV for Excel (UTF-8 with BOM); returns the number of rows."""
        return write_csv(self.iter_items(filters), target)

    def export_xlsx(self, target: IO[bytes], filters: Filters | None = None) -> int:
        """Write the filtered queue as an Excel workbook to an open binary stream (the page's download)."""
        return write_xlsx(self.iter_items(filters), target)

    def export(self, target: str | Path, filters: Filters | None = None) -> int:
        """Write the filtered queue to a file: .xlsx as a workbook, .csv as CSV (see review_export)."""
        return write_export(self.iter_items(filters), target)

    def iter_gap_items(self, *, batch: int = 2000) -> Iterator[ReviewItem]:
        """What the 资料缺口 board groups (core.gaps.board): every refusal (expected or not), every rejected
        answer and every item marked 资料没写, with candidates and marks, by ascending id; items a corpus
        version fixed are left out."""
        last = 0
        with self.db.read("读取资料缺口") as conn:
            while True:
                rows = conn.execute(select(items).where(items.c.id > last, gap_condition())
                                    .order_by(items.c.id).limit(batch)).all()
                if not rows:
                    return
                yield from hydrate(conn, rows, with_asks=True)
                last = rows[-1].id

    def expected_topics(self, limit: int = 200) -> tuple[str, ...]:
        """The topics given with 预期拒答 so far, most used first: what the queue offers the next consultant, so one
        missing document gets one name (the board keeps questions sharing a topic together: core.gaps.grouping)."""
        with self.db.read("读取预期拒答的话题") as conn:
            return expected_topics(conn, limit)

    # --- marks -------------------------------------------------------------------------------

    def mark_missing(self, item_id: int, *, reviewer: str, on: bool = True, note: str | None = None,
                     authorize: Authorize | None = None) -> ReviewItem:
        """Mark an item 「资料没写」 (the documents do not say it), or take the mark off (`on=False`); the item
        then joins the 资料缺口 board. Not a decision: the status and the version stay."""
        note = bounded(note, MAX_NOTE_CHARS, "备注")
        who = person_name(reviewer, "复核人")
        if who is None and authorize is None:
            raise InvalidReview("请先填写复核人姓名，再标记「资料没写」。")
        with self.db.transaction("标记资料没写", immediate=authorize is not None) as conn:
            if authorize is not None:
                who = authorize(conn, "review").label
            assert who is not None  # refused above when neither the reviewer nor a session names who
            if not set_missing(conn, item_id, on=on, note=note, actor=who, at=self._clock()):
                if conn.execute(select(items.c.id).where(items.c.id == item_id)).first() is None:
                    raise _not_found(item_id)
        return self.get(item_id)

    def record_fixes(self, item_ids: Iterable[int], *, actor: str, detail: str,
                     authorize: Authorize | None = None) -> builtins.list[int]:  # `list` is a method here
        """A corpus version made these items' questions pass the gate: each gets the 资料已补充 mark and an
        event naming `detail` (file, version, fingerprint) in its history; a pending one is closed. One transaction."""
        who = person_name(actor, "操作人") or SYSTEM_ACTOR
        fixed = []
        with self.db.transaction("记录资料补充", immediate=authorize is not None) as conn:
            if authorize is not None:
                who = authorize(conn, "edit_corpus").label
            for item_id in item_ids:
                if record_fix(conn, item_id, detail=detail, actor=who, at=self._clock()):
                    fixed.append(item_id)
        return fixed

    # --- deciding ----------------------------------------------------------------------------

    def decide(self, item_id: int, *, action: str, reviewer: str, expected_version: int,
               note: str | None = None, corrected_answer: str | None = None,
               add_reason: Problem | None = None, topic: str | None = None,
               authorize: Authorize | None = None, confirmed: bool = False,
               view: Filters | None = None, send: Send | None = None) -> ReviewItem:
        """Approve, reject (a note is required), reopen, mark a refusal 预期拒答 (`expect`, with an optional
        `topic`) or take a held answer's conversation over (`handoff`) one item, if it is still at `expected_version`.

        Approving an answer, or deciding with a correction, also makes it an approved answer that can
        answer repeat questions (core.stores.approved), in the same transaction. The text is checked first
        like any answer (core.checks.approval): a correction with problems raises NeedsConfirmation and nothing
        is saved, unless `confirmed` (the reviewer's explicit second click), which is recorded; an answer
        approved as it was queued with problems is approved but not made reusable.
        `add_reason` appends a reason in the same transaction, e.g. `stale_corpus` when a changed
        source file reopens an approved answer, so the item also shows in that reason's lane.
        With `authorize`, the reviewer's session is re-checked inside that transaction and the
        decision is attributed to the session's user, whatever `reviewer` says.
        `view` is the filtered list the reviewer was looking at: an item that no longer matches it (another
        lane, status or search) is refused with NotInView, so a decision only ever lands on what was shown.
        `send` (core.exchanges.release builds it) is what the decision releases to the students whose exchanges wait on
        this item: written to the outbox in the same transaction, at most once per student message.
        """
        decision = ReviewDecision.build(action, reviewer, note, corrected_answer, add_reason, topic=topic)
        approval = self._approval(item_id, decision)
        if approval is not None and approval.problems:
            if approval.corrected and not confirmed:
                raise NeedsConfirmation(approval.refusal(), approval.problems)
            if not approval.corrected:  # approved as queued, in one click; not reusable with problems
                approval = None
        with self.db.transaction("保存复核结果", immediate=authorize is not None) as conn:
            decision = _as_session_user(conn, decision, authorize)
            if approval is not None and approval.problems:
                decision = replace(decision, note=approval.noted(decision.note))
            failure = self._apply(conn, item_id, expected_version, decision, view)
            if failure is not None:
                raise failure
            if approval is not None:
                approve_in(conn, question=approval.question, text=approval.text, citations=approval.citations,
                           approver=decision.reviewer, item_id=item_id, fingerprint=approval.fingerprint,
                           override=approval.override(), now=self._clock())
            if send is not None:
                release_in(conn, item_id, send, actor=decision.reviewer, now=self._clock(),
                           message_id=lambda: public_id("msg"))
                if not send.only_held:  # a correction also reaches the students who disliked what they were shown
                    follow_up_in(conn, item_id, send, actor=decision.reviewer, now=self._clock(),
                                 message_id=lambda: public_id("msg"))
        return self.get(item_id)

    def _approval(self, item_id: int, decision: ReviewDecision) -> Approval | None:
        """What approving this decision would make reusable, checked; None when it makes nothing reusable."""
        if decision.action not in ("approve", "reject"):
            return None
        item = self.get(item_id)
        return approval_of(item, decision.action, decision.corrected_answer)

    def bulk_decide(self, versions: Mapping[int, int], *, action: str, reviewer: str,
                    note: str | None = None, add_reason: Problem | None = None, topic: str | None = None,
                    authorize: Authorize | None = None, view: Filters | None = None) -> BulkResult:
        """Decide many items in one transaction; `versions` maps each id to the version the reviewer saw.

        Items that moved on, or whose status does not allow the action, are skipped and reported. An approved
        answer that passes the checks becomes reusable; one with problems is approved without becoming
        reusable (that needs the reviewer's confirmation, one item at a time), and is listed as such.
        With `view`, items that no longer match the list shown are skipped too.
        """
        decision = ReviewDecision.build(action, reviewer, note, None, add_reason, topic=topic)
        decided, skipped, unreused = [], [], []
        approvals = {item_id: self._approval(item_id, decision) for item_id in versions}
        with self.db.transaction("批量保存复核结果", immediate=authorize is not None) as conn:
            decision = _as_session_user(conn, decision, authorize)
            for item_id, version in versions.items():
                failure = self._apply(conn, item_id, version, decision, view)
                if failure is not None:
                    skipped.append((item_id, str(failure)))
                    continue
                decided.append(item_id)
                approval = approvals[item_id]
                if approval is None:
                    continue
                if approval.problems:
                    unreused.append(item_id)
                    continue
                approve_in(conn, question=approval.question, text=approval.text, citations=approval.citations,
                           approver=decision.reviewer, item_id=item_id, fingerprint=approval.fingerprint,
                           override="", now=self._clock())
        return BulkResult(decided=tuple(decided), skipped=tuple(skipped), not_reused=tuple(unreused))

    def _apply(self, conn: Connection, item_id: int, expected: int, d: ReviewDecision,
               view: Filters | None = None) -> XiaoEError | None:
        """Apply one decision inside `conn`'s transaction; return (not raise) why it could not be."""
        allowed, target = TRANSITIONS[d.action]
        now = self._clock()
        values = {"status": target, "version": expected + 1, "reviewer": d.reviewer, "decided_at": now,
                  "note": d.note}
        if d.action == "reopen" and d.add_reason is not None:
            # A reopen that brings its own reason (资料已更新) is the system's, not a decision: the last
            # decision's reviewer, time and note stay on the item; the message lives in the reason and the event.
            values = {"status": target, "version": expected + 1}
        if d.corrected_answer is not None:
            values["corrected_answer"] = d.corrected_answer or None
        # Update first and read only when it fails: the write lock is taken by the first statement,
        # so a concurrent writer makes us wait (busy timeout) instead of failing on a stale snapshot.
        where = [items.c.id == item_id, items.c.version == expected, items.c.status.in_(allowed)]
        if d.action == "expect":
            where.append(items.c.origin == "refusal")
        if view is not None:
            where.extend(conditions(view))
        if changed(conn, items.update().where(*where).values(**values)) != 1:
            return self._why_not(conn, item_id, expected, d.action, view)
        # Every status change appends an event, so the newest event holds the status we just left.
        from_status = conn.execute(select(events.c.to_status).where(events.c.item_id == item_id)
                                   .order_by(events.c.id.desc()).limit(1)).scalar_one()
        conn.execute(events.insert().values(
            item_id=item_id, at=now, actor=d.reviewer, action=d.action, from_status=from_status,
            to_status=target, version=expected + 1, note=d.note, corrected_answer=d.corrected_answer))
        if d.action == "expect":
            put_mark(conn, item_id, EXPECTED, detail=d.topic, actor=d.reviewer, at=now)
        elif d.action == "reopen":  # a refusal reopened is no longer expected: its repeats queue again
            drop_mark(conn, item_id, EXPECTED)
        if d.add_reason is not None:
            position = conn.execute(select(func.coalesce(func.max(reasons.c.position) + 1, 0))
                                    .where(reasons.c.item_id == item_id)).scalar_one()
            span = d.add_reason.span
            conn.execute(reasons.insert().values(item_id=item_id, position=position, code=d.add_reason.code,
                                                 message=d.add_reason.message, span_start=span[0] if span else None,
                                                 span_end=span[1] if span else None))
        return None

    def clear_stale(self, item_id: int, *, expected_version: int, actor: str, note: str) -> bool:
        """Undo a 资料已更新 reopen whose cited text is identical again (a version restored): the item goes back
        to the status it was reopened from, its 资料已更新 reasons are dropped and an event says why.
        Only when nobody acted on it since the reopen (the version check and the newest event say so);
        returns whether it was cleared."""
        who = person_name(actor, "操作人") or SYSTEM_ACTOR
        with self.db.transaction("撤销资料已更新") as conn:
            last = conn.execute(select(events).where(events.c.item_id == item_id)
                                .order_by(events.c.id.desc()).limit(1)).first()
            if last is None or last.action != "reopen" or last.from_status not in ("approved", "rejected"):
                return False
            if changed(conn, items.update().where(
                    items.c.id == item_id, items.c.version == expected_version, items.c.status == "pending",
                    items.c.id.in_(select(reasons.c.item_id).where(reasons.c.code == STALE_REASON)))
                    .values(status=last.from_status, version=expected_version + 1)) != 1:
                return False
            conn.execute(reasons.delete().where(reasons.c.item_id == item_id, reasons.c.code == STALE_REASON))
            conn.execute(events.insert().values(
                item_id=item_id, at=self._clock(), actor=who, action="unstale", from_status="pending",
                to_status=last.from_status, version=expected_version + 1, note=bounded(note, MAX_NOTE_CHARS, "备注"),
                corrected_answer=None))
        return True

    @staticmethod
    def _why_not(conn: Connection, item_id: int, expected: int, action: str,
                 view: Filters | None = None) -> XiaoEError:
        row = conn.execute(select(items.c.status, items.c.version, items.c.origin).where(items.c.id == item_id)).first()
        if row is None:
            return _not_found(item_id)
        if action == "expect" and row.origin != "refusal":
            return InvalidReview(f"条目 #{item_id} 不是拒答，不能标为「预期拒答」；只有小E 拒答了的条目可以这样标。")
        if row.version != expected:
            last = conn.execute(select(events).where(events.c.item_id == item_id)
                                .order_by(events.c.id.desc()).limit(1)).first()
            # Every change of version writes an event; an item without one still gets the version message.
            done = (f"已被 {last.actor} 处理（#{item_id}，{local(last.at):%m-%d %H:%M} "
                    f"{ACTION_LABELS.get(last.action, last.action)}，现为「{STATUS_LABELS[row.status]}」）"
                    if last is not None else f"已被别人处理（#{item_id}，现为「{STATUS_LABELS[row.status]}」）")
            return ConflictError(
                f"该条目{done}："
                f"你看到的是第 {expected} 版，现在是第 {row.version} 版。你的操作没有保存，请刷新后再决定。")
        if view is not None and conn.execute(
                select(items.c.id).where(items.c.id == item_id, *conditions(view))).first() is None:
            return NotInView(f"条目 #{item_id} 已不在你当前筛选的列表里（筛选条件已改变），你的操作没有保存；"
                             "请在左边的列表里重新选择要处理的条目。")
        return InvalidReview(f"条目 #{item_id} 当前是「{STATUS_LABELS[row.status]}」，不能{ACTION_LABELS[action]}"
                             + ("；如需改判，请先重新打开。" if action != "reopen" else "；它本来就在待复核。"))


def next_pending(order_ids: Sequence[int], current: int) -> int | None:
    """The pending item after `current` in list order (wrapping to the top), or None when it was the last."""
    if current in order_ids:
        position = order_ids.index(current)
        rest = list(order_ids[position + 1:]) + list(order_ids[:position])
    else:
        rest = list(order_ids)
    return rest[0] if rest else None


def _as_session_user(conn: Connection, decision: ReviewDecision, authorize: Authorize | None) -> ReviewDecision:
    if authorize is None:
        return decision
    return replace(decision, reviewer=authorize(conn, "review").label)


def _not_found(item_id: int) -> StoreError:
    return StoreError(f"没有找到编号为 #{item_id} 的复核条目，请刷新列表后再试。")
