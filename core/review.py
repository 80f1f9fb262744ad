"""The review queue: flagged, refused and failed answers wait here for a consultant's decision.

Every write is one transaction that also appends to the audit trail. Decisions use an
optimistic version check: the reviewer states the version they looked at, and a decision on
a version that moved is refused with `ConflictError` naming who moved it, never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import IO

from sqlalchemy import Connection, func, select

from core.db import Database, utcnow
from core.errors import ConflictError, StoreError, XiaoEError
from core.problems import Problem
from core.rag import Hit, RAGAnswer
from core.review_export import write_csv
from core.review_input import Decision, Entry, entry_from_answer, validated
from core.review_models import (
    SORTS,
    BulkResult,
    Filters,
    Page,
    QueueCounts,
    ReviewEvent,
    ReviewItem,
)
from core.review_query import aware, conditions, hydrate, local, order
from core.review_schema import (
    ACTION_LABELS,
    REASON_LANES,
    REVIEW_SCHEMA,
    STATUS_LABELS,
    SYSTEM_ACTOR,
    TRANSITIONS,
    InvalidReview,
    review_candidates,
    review_events,
    review_items,
    review_reasons,
)
from core.roles import Authorize

__all__ = ["BulkResult", "Filters", "Page", "QueueCounts", "ReviewEvent", "ReviewItem", "ReviewStore",
           "record_answer"]

items, reasons, candidates, events = review_items, review_reasons, review_candidates, review_events


class ReviewStore:
    """The review queue on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(REVIEW_SCHEMA)

    # --- filling -----------------------------------------------------------------------------

    def enqueue(self, answer: RAGAnswer, *, origin: str = "auto", fingerprint: str = "",
                flagged_by: str | None = None, extra_reasons: Sequence[Problem] = (),
                authorize: Authorize | None = None) -> int:
        """Queue one answer; its problems (plus `extra_reasons`) become the item's reasons.

        With `authorize` (a staff member flagging it), their session is checked in the same transaction.
        """
        entry = entry_from_answer(answer, origin=origin, fingerprint=fingerprint, flagged_by=flagged_by,
                                  extra_reasons=extra_reasons)
        return self._insert([entry], authorize=authorize, permission="flag")[0]

    def enqueue_many(self, answers: Iterable[RAGAnswer], *, origin: str = "auto", fingerprint: str = "",
                     flagged_by: str | None = None, extra_reasons: Sequence[Problem] = ()) -> list[int]:
        """Queue several answers in one transaction (a batch evaluation); ids in input order."""
        entries = [entry_from_answer(a, origin=origin, fingerprint=fingerprint, flagged_by=flagged_by,
                                      extra_reasons=extra_reasons) for a in answers]
        return self._insert(entries)

    def enqueue_failure(self, question: str, *, message: str, kind: str = "model_error",
                        threshold: float | None = None, k: int | None = None, candidates: Sequence[Hit] = (),
                        fingerprint: str = "") -> int:
        """Queue a question whose model call failed: no answer text, the failure is the reason."""
        entry = validated(question=question, answer="", origin="model_error",
                           reasons=(Problem(kind, message),), threshold=threshold, k=k,
                           candidates=tuple(candidates), fingerprint=fingerprint, flagged_by=None)
        return self._insert([entry])[0]

    def _insert(self, entries: list[Entry], *, authorize: Authorize | None = None,
                permission: str = "flag") -> list[int]:
        if not entries:
            return []
        now = self._clock()
        with self.db.transaction("写入复核队列", immediate=authorize is not None) as conn:
            if authorize is not None:
                authorize(conn, permission)
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
            return hydrate(conn, [row])[0]

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

    def counts(self) -> QueueCounts:
        """Counts per status, and per lane and status; an item counts once in every lane it is in."""
        with self.db.read("统计复核队列") as conn:
            by_status = dict(conn.execute(select(items.c.status, func.count()).group_by(items.c.status)).all())
            by_lane: dict[str, dict[str, int]] = {}
            for lane, status, n in conn.execute(
                    select(items.c.origin, items.c.status, func.count()).group_by(items.c.origin, items.c.status)):
                by_lane.setdefault(lane, {})[status] = n
            # One query per reason lane: `id IN (…)` counts an item with two citation problems once and
            # is cheaper than COUNT(DISTINCT) over a join (see bench/queue_speed.py).
            for lane in REASON_LANES:
                in_lane = select(reasons.c.item_id).where(reasons.c.code.in_(lane.codes))
                rows = conn.execute(select(items.c.status, func.count()).where(items.c.id.in_(in_lane))
                                    .group_by(items.c.status)).all()
                if rows:
                    by_lane[lane.code] = dict(rows)
        return QueueCounts(by_status=by_status, by_lane=by_lane)

    def events(self, item_id: int) -> tuple[ReviewEvent, ...]:
        """The item's audit trail, oldest first."""
        with self.db.read("读取处理记录") as conn:
            rows = conn.execute(select(events).where(events.c.item_id == item_id).order_by(events.c.id)).all()
        return tuple(ReviewEvent(id=r.id, item_id=r.item_id, at=aware(r.at), actor=r.actor, action=r.action,
                                 from_status=r.from_status, to_status=r.to_status, version=r.version,
                                 note=r.note, corrected_answer=r.corrected_answer) for r in rows)

    def export_csv(self, target: str | Path | IO[str], filters: Filters | None = None) -> int:
        """Write the filtered queue as CSV for Excel (UTF-8 with BOM); returns the number of rows."""
        return write_csv(self.iter_items(filters), target)

    # --- deciding ----------------------------------------------------------------------------

    def decide(self, item_id: int, *, action: str, reviewer: str, expected_version: int,
               note: str | None = None, corrected_answer: str | None = None,
               add_reason: Problem | None = None, authorize: Authorize | None = None) -> ReviewItem:
        """Approve, reject (a note is required) or reopen one item, if it is still at `expected_version`.

        `add_reason` appends a reason in the same transaction, e.g. `stale_corpus` when a changed
        source file reopens an approved answer, so the item also shows in that reason's lane.
        With `authorize`, the reviewer's session is re-checked inside that transaction and the
        decision is attributed to the session's user, whatever `reviewer` says.
        """
        decision = Decision.build(action, reviewer, note, corrected_answer, add_reason)
        with self.db.transaction("保存复核结果", immediate=authorize is not None) as conn:
            decision = _as_session_user(conn, decision, authorize)
            failure = self._apply(conn, item_id, expected_version, decision)
            if failure is not None:
                raise failure
        return self.get(item_id)

    def bulk_decide(self, versions: Mapping[int, int], *, action: str, reviewer: str,
                    note: str | None = None, add_reason: Problem | None = None,
                    authorize: Authorize | None = None) -> BulkResult:
        """Decide many items in one transaction; `versions` maps each id to the version the reviewer saw.

        Items that moved on, or whose status does not allow the action, are skipped and reported.
        """
        decision = Decision.build(action, reviewer, note, None, add_reason)
        decided, skipped = [], []
        with self.db.transaction("批量保存复核结果", immediate=authorize is not None) as conn:
            decision = _as_session_user(conn, decision, authorize)
            for item_id, version in versions.items():
                failure = self._apply(conn, item_id, version, decision)
                if failure is None:
                    decided.append(item_id)
                else:
                    skipped.append((item_id, str(failure)))
        return BulkResult(decided=tuple(decided), skipped=tuple(skipped))

    def _apply(self, conn: Connection, item_id: int, expected: int, d: Decision) -> XiaoEError | None:
        """Apply one decision inside `conn`'s transaction; return (not raise) why it could not be."""
        allowed, target = TRANSITIONS[d.action]
        now = self._clock()
        values = {"status": target, "version": expected + 1, "reviewer": d.reviewer, "decided_at": now,
                  "note": d.note}
        if d.corrected_answer is not None:
            values["corrected_answer"] = d.corrected_answer or None
        # Update first and read only when it fails: the write lock is taken by the first statement,
        # so a concurrent writer makes us wait (busy timeout) instead of failing on a stale snapshot.
        updated = conn.execute(
            items.update().where(items.c.id == item_id, items.c.version == expected, items.c.status.in_(allowed))
            .values(**values))
        if updated.rowcount != 1:
            return self._why_not(conn, item_id, expected, d.action)
        # Every status change appends an event, so the newest event holds the status we just left.
        from_status = conn.execute(select(events.c.to_status).where(events.c.item_id == item_id)
                                   .order_by(events.c.id.desc()).limit(1)).scalar_one()
        conn.execute(events.insert().values(
            item_id=item_id, at=now, actor=d.reviewer, action=d.action, from_status=from_status,
            to_status=target, version=expected + 1, note=d.note, corrected_answer=d.corrected_answer))
        if d.add_reason is not None:
            position = conn.execute(select(func.coalesce(func.max(reasons.c.position) + 1, 0))
                                    .where(reasons.c.item_id == item_id)).scalar_one()
            span = d.add_reason.span
            conn.execute(reasons.insert().values(item_id=item_id, position=position, code=d.add_reason.code,
                                                 message=d.add_reason.message, span_start=span[0] if span else None,
                                                 span_end=span[1] if span else None))
        return None

    @staticmethod
    def _why_not(conn: Connection, item_id: int, expected: int, action: str) -> XiaoEError:
        row = conn.execute(select(items.c.status, items.c.version).where(items.c.id == item_id)).first()
        if row is None:
            return _not_found(item_id)
        if row.version != expected:
            last = conn.execute(select(events).where(events.c.item_id == item_id)
                                .order_by(events.c.id.desc()).limit(1)).first()
            return ConflictError(
                f"该条目已被 {last.actor} 处理（#{item_id}，{local(last.at):%m-%d %H:%M} "
                f"{ACTION_LABELS.get(last.action, last.action)}，现为「{STATUS_LABELS[row.status]}」）："
                f"你看到的是第 {expected} 版，现在是第 {row.version} 版。你的操作没有保存，请刷新后再决定。")
        return InvalidReview(f"条目 #{item_id} 当前是「{STATUS_LABELS[row.status]}」，不能{ACTION_LABELS[action]}"
                             + ("；如需改判，请先重新打开。" if action != "reopen" else "；它本来就在待复核。"))


def record_answer(store: ReviewStore, answer: RAGAnswer, *, fingerprint: str) -> int | None:
    """Queue the answer if it was refused (拒答) or a check found problems (自动标记); else None."""
    if answer.refused:
        return store.enqueue(answer, origin="refusal", fingerprint=fingerprint)
    if answer.problems:
        return store.enqueue(answer, origin="auto", fingerprint=fingerprint)
    return None


def _as_session_user(conn: Connection, decision: Decision, authorize: Authorize | None) -> Decision:
    if authorize is None:
        return decision
    return replace(decision, reviewer=authorize(conn, "review").label)


def _not_found(item_id: int) -> StoreError:
    return StoreError(f"没有找到编号为 #{item_id} 的复核条目，请刷新列表后再试。")
