"""Queue de-duplication: the same question with the same decision on the same corpus is one item.

Two askings are "the same" when their questions have the same `core.language.text.question_key`, their decision (the item's origin: refused, flagged, model error)
is the same, and the corpus fingerprint is the same. A repeat joins the pending item as one
more asking (who, when, which sliders); it adds to the item's count only when it used the
item's own threshold and k, so re-running one question with other slider values is recorded
once. Decided items are not reopened by a repeat: a new pending item starts instead. Manual
flags and batch runs are never merged (each carries its own note or run).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, func, select

from core.language.text import question_key
from core.stores.review_schema import review_asks, review_items, review_keys

MERGED_ORIGINS = ("auto", "refusal", "model_error")

@dataclass(frozen=True)
class Ask:
    """One asking of a queued question: who, when, with which sliders; `counted` is False for a re-run."""

    at: datetime
    asker: str | None
    threshold: float | None
    k: int | None
    counted: bool


def dedup_key(question: str, origin: str, fingerprint: str) -> str | None:
    """The key two askings share when they are the same item; None for origins that never merge."""
    if origin not in MERGED_ORIGINS:
        return None
    raw = "\x1f".join((question_key(question), origin, fingerprint or ""))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def find_pending(conn: Connection, key: str) -> tuple[int, float | None, int | None] | None:
    """(id, threshold, k) of the oldest pending item with this key, or None."""
    row = conn.execute(
        select(review_items.c.id, review_items.c.threshold, review_items.c.k)
        .join(review_keys, review_keys.c.item_id == review_items.c.id)
        .where(review_keys.c.key == key, review_items.c.status == "pending")
        .order_by(review_items.c.id).limit(1)).first()
    return (row.id, row.threshold, row.k) if row else None


def same_sliders(a: float | None, b: float | None, k_a: int | None, k_b: int | None) -> bool:
    close = (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-9)
    return close and k_a == k_b


def ask_counts(conn: Connection, ids: list[int]) -> dict[int, int]:
    """Counted askings per item; items queued before de-duplication existed count as 1."""
    if not ids:
        return {}
    rows = conn.execute(select(review_asks.c.item_id, func.count()).where(
        review_asks.c.item_id.in_(ids), review_asks.c.counted.is_(True)).group_by(review_asks.c.item_id)).all()
    found = dict(rows)
    return {i: max(1, found.get(i, 0)) for i in ids}


def asks_of(conn: Connection, item_id: int) -> tuple[Ask, ...]:
    rows = conn.execute(select(review_asks).where(review_asks.c.item_id == item_id).order_by(review_asks.c.id))
    return tuple(Ask(at=r.at, asker=r.asker, threshold=r.threshold, k=r.k, counted=bool(r.counted)) for r in rows)
