"""Turn queue filters and sorts into SQL, and item rows back into frozen values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import ColumnElement, Connection, Row, exists, or_, select

from core.clock import as_utc, local  # noqa: F401 - local is re-exported for the review store
from core.stores.review_dedup import ask_counts, asks_of
from core.stores.review_marks import marks_of
from core.stores.review_models import Filters, ReviewItem
from core.stores.review_schema import LANES, ORIGINS, Lane, review_candidates, review_items, review_reasons
from core.values import Hit, Problem

items, reasons, candidates = review_items, review_reasons, review_candidates






def conditions(f: Filters) -> list[ColumnElement[bool]]:
    """The WHERE clauses for `f`; every value is a bound parameter."""
    where = []
    if f.status:
        where.append(items.c.status == f.status)
    if f.lane:
        where.append(in_lane(LANES[f.lane]))
    if f.reason:
        where.append(exists().where(reasons.c.item_id == items.c.id, reasons.c.code == f.reason))
    if f.since:
        where.append(items.c.created_at >= as_utc(f.since))
    if f.until:
        where.append(items.c.created_at < as_utc(f.until))
    if f.item is not None:
        where.append(items.c.id == f.item)
    if f.search.strip():
        term = f.search.strip()
        where.append(or_(items.c.question.contains(term, autoescape=True),
                              items.c.answer.contains(term, autoescape=True)))
    return where


def in_lane(lane: Lane) -> ColumnElement[bool]:
    """An item is in a lane by its origin, or by one of its reasons' codes (a lane may be both)."""
    by_origin = items.c.origin == lane.code if lane.code in ORIGINS else None
    if not lane.codes:
        assert by_origin is not None  # a lane without codes is an origin lane (core.stores.review_schema.Lane)
        return by_origin
    # `id IN (…)` counts an item with two citation problems once and is cheaper than COUNT(DISTINCT) over a
    # join (bench/queue_speed.py)
    by_reason = items.c.id.in_(select(reasons.c.item_id).where(reasons.c.code.in_(lane.codes)))
    return by_reason if by_origin is None else or_(by_origin, by_reason)


def order(sort: str) -> list:
    column = {"created": items.c.created_at, "id": items.c.id, "decided": items.c.decided_at}[sort.lstrip("-")]
    if sort.startswith("-"):
        return [column.desc(), items.c.id.desc()]
    return [column.asc(), items.c.id.asc()]


def hydrate(conn: Connection, rows: Sequence[Row], *, with_candidates: bool = True,
            with_asks: bool = False) -> list[ReviewItem]:
    """ReviewItems for item rows, with their reasons (and candidates) fetched in one query each."""
    ids = [r.id for r in rows]
    found: dict[int, list[Problem]] = {i: [] for i in ids}
    hits: dict[int, list[Hit]] = {i: [] for i in ids}
    if ids:
        for r in conn.execute(select(reasons).where(reasons.c.item_id.in_(ids))
                              .order_by(reasons.c.item_id, reasons.c.position)):
            span = (r.span_start, r.span_end) if r.span_start is not None else None
            found[r.item_id].append(Problem(r.code, r.message, span))
        if with_candidates:
            for r in conn.execute(select(candidates).where(candidates.c.item_id.in_(ids))
                                  .order_by(candidates.c.item_id, candidates.c.rank)):
                hits[r.item_id].append(Hit(rank=r.rank, source=r.source, heading=r.heading, chunk=r.chunk,
                                           start=r.start, end=r.end, text=r.text, score=r.score,
                                           passed=bool(r.passed)))
    counts = ask_counts(conn, ids)
    marks = marks_of(conn, ids)
    return [ReviewItem(id=r.id, created_at=as_utc(r.created_at), origin=r.origin, question=r.question,
                       answer=r.answer, reasons=tuple(found[r.id]), threshold=r.threshold, k=r.k,
                       candidates=tuple(hits[r.id]), fingerprint=r.fingerprint, status=r.status,
                       version=r.version, flagged_by=r.flagged_by, reviewer=r.reviewer,
                       decided_at=as_utc(r.decided_at), note=r.note, corrected_answer=r.corrected_answer,
                       ask_count=counts.get(r.id, 1), asks=_asks(conn, r.id) if with_asks else (),
                       marks=marks[r.id])
            for r in rows]


def _asks(conn: Connection, item_id: int):
    return tuple(replace(a, at=as_utc(a.at)) for a in asks_of(conn, item_id))
