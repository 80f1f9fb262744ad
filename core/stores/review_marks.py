"""Marks on queue items that outlive a decision: 预期拒答 (expected refusal), 资料没写 (the documents lack it),
资料已补充 (a corpus version made it answerable).

An expected refusal is found by its question alone (`core.language.text.question_key`, not the corpus
fingerprint): a later refusal of the same or a near-identical question joins that item as one more asking
instead of opening a new item (core.stores.review.ReviewStore.record). The 资料缺口 board
(core.gaps.board) reads every refusal, every rejected answer and every item marked 资料没写, except those a
corpus version fixed. Marks have their own table and migration component, so they never collide with
another branch's next review migration.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import (
    Column,
    Connection,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    and_,
    bindparam,
    func,
    or_,
    select,
)

from core.clock import as_utc
from core.language.text import question_key
from core.stores.db import Migration, Schema, changed, create_tables
from core.stores.review_dedup import dedup_key
from core.stores.review_schema import MAX_NAME_CHARS, metadata, review_events, review_items, review_keys

EXPECTED, MISSING, FIXED = "expected", "missing", "fixed"
MARK_LABELS = {EXPECTED: "预期拒答", MISSING: "资料没写", FIXED: "资料已补充"}

review_marks = Table(
    "review_marks", metadata,
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("key", String(64), nullable=False),  # question_hash(question): what a later asking is matched by
    Column("detail", Text),  # the topic of an expected refusal, the note of 资料没写, the corpus version of a fix
    Column("actor", String(MAX_NAME_CHARS), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)
Index("ix_review_marks_kind_key", review_marks.c.kind, review_marks.c.key, review_marks.c.item_id)


def _rekey(conn: Connection) -> None:
    """Pending items were keyed by the older question_key (width, case, punctuation only): key them again,
    so a repeat spelled with or without 的/吗 joins them instead of opening a second item."""
    rows = conn.execute(select(review_keys.c.item_id, review_items.c.question, review_items.c.origin,
                               review_items.c.fingerprint)
                        .join(review_items, review_items.c.id == review_keys.c.item_id)).all()
    for row in rows:
        key = dedup_key(row.question, row.origin)
        if key is not None:
            conn.execute(review_keys.update().where(review_keys.c.item_id == row.item_id).values(key=key))


MARKS_SCHEMA = Schema("review_marks", (
    Migration(1, "expected refusals, 资料没写 and fixed marks", create_tables(review_marks)),
    Migration(2, "pending items keyed again by the extended question_key", _rekey),
))


@dataclass(frozen=True)
class Mark:
    """One mark on an item: which kind, what it says, who set it and when."""

    kind: str
    detail: str | None
    actor: str
    at: datetime

    @property
    def label(self) -> str:
        return MARK_LABELS.get(self.kind, self.kind)


def question_hash(question: str) -> str:
    """The question's `question_key`, hashed to a fixed width: what an expected refusal is matched by (any
    corpus, any sliders) and what a 资料缺口 topic lists as its members (core.stores.gaps)."""
    return hashlib.sha256(question_key(question).encode("utf-8", "surrogatepass")).hexdigest()


def find_expected(conn: Connection, question: str) -> tuple[int, float | None, int | None] | None:
    """(id, threshold, k) of the oldest refusal marked 预期拒答 for this question, or None."""
    row = conn.execute(_EXPECTED, {"key": question_hash(question)}).first()
    return (row.id, row.threshold, row.k) if row else None


# `find_expected` runs for every refusal queued: built once.
_EXPECTED = (select(review_items.c.id, review_items.c.threshold, review_items.c.k)
             .join(review_marks, review_marks.c.item_id == review_items.c.id)
             .where(review_marks.c.kind == EXPECTED, review_marks.c.key == bindparam("key"))
             .order_by(review_items.c.id).limit(1))


def put_mark(conn: Connection, item_id: int, kind: str, *, detail: str | None, actor: str, at: datetime) -> None:
    """Set (or replace) one mark of an item."""
    question = conn.execute(select(review_items.c.question).where(review_items.c.id == item_id)).scalar_one()
    conn.execute(review_marks.delete().where(review_marks.c.item_id == item_id, review_marks.c.kind == kind))
    conn.execute(review_marks.insert().values(item_id=item_id, kind=kind, key=question_hash(question),
                                              detail=detail, actor=actor, at=at))


def drop_mark(conn: Connection, item_id: int, kind: str) -> bool:
    """Remove one mark; True when there was one."""
    return changed(conn, review_marks.delete().where(review_marks.c.item_id == item_id,
                                                     review_marks.c.kind == kind)) > 0


def expected_topics(conn: Connection, limit: int) -> tuple[str, ...]:
    """The topics consultants gave expected refusals, most used first (ties: the most recent), up to `limit`."""
    uses = func.count(review_marks.c.item_id)
    rows = conn.execute(select(review_marks.c.detail, uses.label("uses"), func.max(review_marks.c.at).label("last"))
                        .where(review_marks.c.kind == EXPECTED, review_marks.c.detail.is_not(None),
                               review_marks.c.detail != "")
                        .group_by(review_marks.c.detail).order_by(uses.desc(), func.max(review_marks.c.at).desc(),
                                                                  review_marks.c.detail).limit(limit))
    return tuple(r.detail for r in rows)


def marks_of(conn: Connection, ids: list[int]) -> dict[int, tuple[Mark, ...]]:
    """Every item's marks, oldest first."""
    found: dict[int, list[Mark]] = {i: [] for i in ids}
    if ids:
        for r in conn.execute(select(review_marks).where(review_marks.c.item_id.in_(ids))
                              .order_by(review_marks.c.item_id, review_marks.c.at)):
            found[r.item_id].append(Mark(kind=r.kind, detail=r.detail, actor=r.actor, at=as_utc(r.at)))
    return {i: tuple(marks) for i, marks in found.items()}


def set_missing(conn: Connection, item_id: int, *, on: bool, note: str | None, actor: str, at: datetime) -> bool:
    """Mark (or unmark) an item 资料没写 and append the event; False when nothing changed (unmarking an
    unmarked item). The item's status and version stay: a mark is not a decision."""
    row = conn.execute(select(review_items.c.status, review_items.c.version).where(review_items.c.id == item_id)).first()
    if row is None:
        return False
    if on:
        put_mark(conn, item_id, MISSING, detail=note, actor=actor, at=at)
    elif not drop_mark(conn, item_id, MISSING):
        return False
    conn.execute(review_events.insert().values(
        item_id=item_id, at=at, actor=actor, action="mark_missing" if on else "unmark_missing",
        from_status=row.status, to_status=row.status, version=row.version, note=note if on else None))
    return True


def record_fix(conn: Connection, item_id: int, *, detail: str, actor: str, at: datetime) -> bool:
    """A corpus version made this item's question answerable: mark it 资料已补充 with `detail` (which file,
    which version, which fingerprint), append the event, and close it if it was still pending. False when
    the item does not exist."""
    row = conn.execute(select(review_items.c.status, review_items.c.version).where(review_items.c.id == item_id)).first()
    if row is None:
        return False
    target = "approved" if row.status == "pending" else row.status
    values = {"status": target, "version": row.version + 1}
    if row.status == "pending":
        values.update(reviewer=actor, decided_at=at, note=detail)
    conn.execute(review_items.update().where(review_items.c.id == item_id).values(**values))
    conn.execute(review_events.insert().values(item_id=item_id, at=at, actor=actor, action="fix",
                                               from_status=row.status, to_status=target, version=row.version + 1,
                                               note=detail))
    put_mark(conn, item_id, FIXED, detail=detail, actor=actor, at=at)
    return True


def gap_condition():
    """The items the 资料缺口 board reads: refusals (expected or not), rejected answers and items marked
    资料没写 — unless a corpus version has fixed them."""
    marked = select(review_marks.c.item_id).where(review_marks.c.kind == MISSING)
    fixed = select(review_marks.c.item_id).where(review_marks.c.kind == FIXED)
    return and_(or_(review_items.c.origin == "refusal", review_items.c.status == "rejected",
                    review_items.c.id.in_(marked)), review_items.c.id.not_in(fixed))
