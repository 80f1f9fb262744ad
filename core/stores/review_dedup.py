"""Queue de-duplication: the same question with the same decision is one pending item, whatever the corpus.

Two askings are "the same" when their questions have the same `core.language.text.question_key` and their
decision (the item's origin: refused, flagged, model error) is the same. A repeat joins the pending item as one
more asking (who, when, which sliders); it adds to the item's count only when it used the item's own threshold
and k, so re-running one question with other slider values is recorded once. A repeat asked after the documents
changed joins too, and the change goes into the item's history once per corpus version (`note_corpus`: the
fingerprints and the saves in between), since the item's answer and candidates are still those of the corpus it
was queued on. Decided items are not reopened by a repeat: a new pending item starts instead. Manual flags and
batch runs are never merged (each carries its own note or run). The table of corpora seen and the re-keying of
older items (keyed with the fingerprint) are their own migration component, `review_repeats`.
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
    Integer,
    String,
    Table,
    bindparam,
    func,
    inspect,
    select,
)

from core.clock import as_utc
from core.language.text import question_key
from core.stores.corpus_versions import ACTION_LABELS as CORPUS_ACTIONS
from core.stores.corpus_versions import corpus_versions
from core.stores.db import Migration, Schema, create_tables
from core.stores.review_schema import metadata, review_asks, review_events, review_items, review_keys

MERGED_ORIGINS = ("auto", "refusal", "model_error")
MAX_EDITS_SHOWN = 3

review_corpora = Table(
    "review_corpora", metadata,  # the corpora a pending item was asked on besides its own, each noted once
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("fingerprint", String(128), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
)


def _rekey(conn: Connection) -> None:
    """Pending items were keyed with the corpus fingerprint: key them by question and decision only, so a repeat
    asked after a document edit joins them instead of opening a second item."""
    rows = conn.execute(select(review_keys.c.item_id, review_items.c.question, review_items.c.origin)
                        .join(review_items, review_items.c.id == review_keys.c.item_id)
                        .where(review_items.c.status == "pending")).all()
    for row in rows:
        key = dedup_key(row.question, row.origin)
        if key is not None:
            conn.execute(review_keys.update().where(review_keys.c.item_id == row.item_id).values(key=key))


REPEATS_SCHEMA = Schema("review_repeats", (
    Migration(1, "pending items keyed by question and decision, not by corpus", _rekey),
    Migration(2, "the corpora a pending item was asked on", create_tables(review_corpora)),
))

@dataclass(frozen=True)
class Ask:
    """One asking of a queued question: who, when, with which sliders; `counted` is False for a re-run."""

    at: datetime
    asker: str | None
    threshold: float | None
    k: int | None
    counted: bool


def dedup_key(question: str, origin: str) -> str | None:
    """The key two askings share when they are the same item; None for origins that never merge."""
    if origin not in MERGED_ORIGINS:
        return None
    raw = "\x1f".join((question_key(question), origin))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def note_corpus(conn: Connection, item_id: int, fingerprint: str, *, actor: str, at: datetime) -> bool:
    """A repeat of a pending item asked on another corpus than the item's: the first time for that corpus, append
    an event to the item's history naming both fingerprints and the document saves since the item (or its last
    such note); True when one was written."""
    item = conn.execute(select(review_items.c.fingerprint, review_items.c.status, review_items.c.version,
                               review_items.c.created_at).where(review_items.c.id == item_id)).first()
    if item is None or not fingerprint or not item.fingerprint or fingerprint == item.fingerprint:
        return False
    seen = conn.execute(select(review_corpora.c.fingerprint, review_corpora.c.at)
                        .where(review_corpora.c.item_id == item_id)).all()
    if any(r.fingerprint == fingerprint for r in seen):
        return False
    since = max([as_utc(item.created_at), *(as_utc(r.at) for r in seen)])
    conn.execute(review_corpora.insert().values(item_id=item_id, fingerprint=fingerprint, at=at))
    edits = _saves_since(conn, since)
    note = (f"资料更新后又被问到（资料指纹 {item.fingerprint[:8]} → {fingerprint[:8]}）" + (f"，期间：{edits}" if edits else "")
            + "。这一条的回答和候选片段仍是入队时那一版资料的结果，处理前可以在提问页用现在的资料再问一次。")
    conn.execute(review_events.insert().values(item_id=item_id, at=at, actor=actor, action="corpus",
                                               from_status=item.status, to_status=item.status, version=item.version,
                                               note=note))
    return True


def _saves_since(conn: Connection, since: datetime) -> str:
    """「「02-退费与转班制度.md」第 3 版（王校长，在线编辑）」 for each document save after `since`, newest first; "" when
    the corpus versions are not kept in this database."""
    if not inspect(conn).has_table("corpus_versions"):
        return ""
    rows = conn.execute(select(corpus_versions.c.source, corpus_versions.c.version, corpus_versions.c.actor,
                               corpus_versions.c.action)
                        .where(corpus_versions.c.at > since, corpus_versions.c.action != "baseline")
                        .order_by(corpus_versions.c.id.desc()).limit(MAX_EDITS_SHOWN + 1)).all()
    shown = [f"「{r.source}」第 {r.version} 版（{r.actor}，{CORPUS_ACTIONS.get(r.action, r.action)}）"
             for r in rows[:MAX_EDITS_SHOWN]]
    return "、".join(shown) + ("等" if len(rows) > MAX_EDITS_SHOWN else "")


def find_pending(conn: Connection, key: str) -> tuple[int, float | None, int | None] | None:
    """(id, threshold, k) of the oldest pending item with this key, or None."""
    row = conn.execute(_PENDING, {"key": key}).first()
    return (row.id, row.threshold, row.k) if row else None


# `find_pending` runs for every repeat queued: built once.
_PENDING = (select(review_items.c.id, review_items.c.threshold, review_items.c.k)
            .join(review_keys, review_keys.c.item_id == review_items.c.id)
            .where(review_keys.c.key == bindparam("key"), review_items.c.status == "pending")
            .order_by(review_items.c.id).limit(1))


def same_sliders(a: float | None, b: float | None, k_a: int | None, k_b: int | None) -> bool:
    close = (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-9)
    return close and k_a == k_b


def ask_counts(conn: Connection, ids: list[int]) -> dict[int, int]:
    """Counted askings per item; items queued before de-duplication existed count as 1."""
    if not ids:
        return {}
    rows = conn.execute(select(review_asks.c.item_id, func.count()).where(
        review_asks.c.item_id.in_(ids), review_asks.c.counted.is_(True)).group_by(review_asks.c.item_id)).all()
    found: dict[int, int] = {item_id: count for item_id, count in rows}
    return {i: max(1, found.get(i, 0)) for i in ids}


def asks_of(conn: Connection, item_id: int) -> tuple[Ask, ...]:
    rows = conn.execute(select(review_asks).where(review_asks.c.item_id == item_id).order_by(review_asks.c.id))
    return tuple(Ask(at=r.at, asker=r.asker, threshold=r.threshold, k=r.k, counted=bool(r.counted)) for r in rows)
