"""A conversation's context: the last exchanges as their standalone questions, the student's case figures and the
decisions (never the raw text), and the masked values' placeholders (a keyed digest each, never the value).

Its own component (`conversation_context`), so the student service's tables stay as they are. `context` reads the
turn a new message follows (None when the conversation is new, or idle longer than the timeout); `record_in` writes a
turn inside the transaction that finishes the exchange; `masks` / `keep_masks_in` give and keep the placeholders
that stay the same within a conversation.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import (
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection

from core.clock import as_utc, utcnow
from core.privacy.mask import MaskEntry
from core.stores.db import Database, Migration, Schema, create_tables, insert_ignoring_duplicates
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations, exchanges
from core.values.conversations import Standalone, Turn

metadata = MetaData()
# conversation_id / exchange_id name rows of the service's tables (another component, so no foreign key across
# the two metadata); `xiaoe conversations purge` removes these rows with the conversation.

conversation_turns = Table(
    "conversation_turns", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conversation_id", Integer, nullable=False),
    Column("exchange_id", Integer, nullable=False, unique=True),
    Column("standalone", Text, nullable=False),  # the question the gate and the answer used (masked)
    Column("kind", String(32), nullable=False),  # core.values.conversations kinds
    Column("rules", Text, nullable=False, default="[]"),
    Column("derived_from", String(64), nullable=False, default=""),  # the message id of the turn it came from
    Column("decision", String(16), nullable=False),
    Column("refused", Integer, nullable=False, default=0),
    Column("case_figures", Text, nullable=False, default="[]"),  # [[kind, values], …] from core.case
    Column("created_at", DateTime(timezone=True), nullable=False),
    # the sentences of the answer the student was sent, each as the documents' words it used
    # (core.conversations.answered; JSON list of lists): never a figure nor a word the documents lack
    Column("answer_words", Text, nullable=False, server_default="[]"),
)
Index("ix_conversation_turns_conversation", conversation_turns.c.conversation_id, conversation_turns.c.id)

conversation_masks = Table(
    "conversation_masks", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conversation_id", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("digest", String(64), nullable=False),  # HMAC-SHA256 of the value under the conversation's key
    Column("placeholder", String(64), nullable=False),
    UniqueConstraint("conversation_id", "digest", name="uq_conversation_masks_digest"),
)

conversation_mask_keys = Table(
    "conversation_mask_keys", metadata,
    Column("conversation_id", Integer, primary_key=True),
    Column("mask_key", String(64), nullable=False),  # random per conversation; removed with it by the purge
)

def _add_answer_words(conn: Connection) -> None:
    """Databases made before migration 2 lack the column; newer ones got it from migration 1."""
    if "answer_words" not in {c["name"] for c in inspect(conn).get_columns("conversation_turns")}:
        conn.execute(text("ALTER TABLE conversation_turns ADD COLUMN answer_words TEXT NOT NULL DEFAULT '[]'"))


CONTEXT_SCHEMA = Schema("conversation_context", (
    Migration(1, "conversation turns (standalone questions) and masked values' placeholders",
              create_tables(conversation_turns, conversation_masks, conversation_mask_keys)),
    Migration(2, "a turn keeps the documents' words of the answer sent", _add_answer_words),
))


# Every student message runs these: built once, values as parameters (core/stores/exchanges.py says why).
_RECENT_TURNS = (select(conversation_turns, exchanges.c.message_id)
                 .join(exchanges, exchanges.c.id == conversation_turns.c.exchange_id, isouter=True)
                 .where(conversation_turns.c.conversation_id == bindparam("row"))
                 .order_by(conversation_turns.c.id.desc()).limit(bindparam("limit")))
_MASK_KEY = (select(conversations.c.id, conversation_mask_keys.c.mask_key)
             .join(conversation_mask_keys, conversation_mask_keys.c.conversation_id == conversations.c.id,
                   isouter=True)
             .where(conversations.c.public_id == bindparam("public_id")))
_MASKS = (select(conversation_masks).where(conversation_masks.c.conversation_id == bindparam("row"))
          .order_by(conversation_masks.c.id))
_NEW_TURN = conversation_turns.insert()


@dataclass(frozen=True)
class MaskState:
    """What masking a conversation's next message needs: its key and the placeholders given so far."""

    key: bytes
    entries: tuple[MaskEntry, ...] = ()
    fresh: bool = True  # the key is new (the conversation has none yet): keep it with the conversation


def new_mask_state() -> MaskState:
    return MaskState(secrets.token_bytes(32))


class TurnStore:
    """Conversation contexts on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(EXCHANGES_SCHEMA)
        db.migrate(CONTEXT_SCHEMA)

    def context(self, conversation_row: int, *, idle: timedelta, limit: int) -> tuple[Turn, ...]:
        """The conversation's last `limit` turns, oldest first; () when the newest is older than `idle` (the
        conversation went quiet: the next message is read alone)."""
        with self.db.read("读取对话上下文") as conn:
            rows = conn.execute(_RECENT_TURNS, {"row": conversation_row, "limit": limit}).all()
        if not rows or (idle != timedelta.max and self._clock() - as_utc(rows[0].created_at) > idle):
            return ()
        return tuple(Turn(r.standalone, bool(r.refused), r.message_id or "", r.decision,
                          tuple((k, v) for k, v in json.loads(r.case_figures)),
                          tuple(map(tuple, json.loads(r.answer_words)))) for r in reversed(rows))

    def last_turn(self, conversation_public_id: str) -> Turn | None:
        """The newest turn of a conversation, whatever its age (a consultant testing a thread: `xiaoe ask
        --conversation`); StoreError when there is no such conversation."""
        from core.errors import StoreError

        with self.db.read("读取对话上下文") as conn:
            row = conn.execute(select(conversations.c.id).where(
                conversations.c.public_id == conversation_public_id)).first()
        if row is None:
            raise StoreError(f"没有找到会话「{conversation_public_id[:64]}」：请用 xiaoe conversations list 查会话编号。")
        found = self.context(row.id, idle=timedelta.max, limit=1)
        return found[-1] if found else None

    def record_in(self, conn: Connection, *, conversation_row: int, exchange_id: int, standalone: Standalone,
                  decision: str, refused: bool, case: Sequence[tuple[str, str]] = (),
                  answer_words: Sequence[Sequence[str]] = ()) -> None:
        """Write the turn an exchange became, inside the transaction that finishes it."""
        conn.execute(_NEW_TURN, {
            "conversation_id": conversation_row, "exchange_id": exchange_id, "standalone": standalone.question,
            "kind": standalone.kind, "rules": json.dumps(list(standalone.rules)),
            "derived_from": standalone.derived_from, "decision": decision, "refused": 1 if refused else 0,
            "case_figures": json.dumps([list(c) for c in case], ensure_ascii=False), "created_at": self._clock(),
            "answer_words": json.dumps([list(s) for s in answer_words], ensure_ascii=False)})

    def turns_of(self, exchange_ids: Sequence[int]) -> dict[int, tuple[str, str, tuple[str, ...], str]]:
        """exchange id → (standalone question, kind, rules, derived from) for the console."""
        if not exchange_ids:
            return {}
        with self.db.read("读取对话上下文") as conn:
            rows = conn.execute(select(conversation_turns).where(
                conversation_turns.c.exchange_id.in_(list(exchange_ids)))).all()
        return {r.exchange_id: (r.standalone, r.kind, tuple(json.loads(r.rules)), r.derived_from) for r in rows}

    # --- masking -----------------------------------------------------------------------------------------------

    def masks(self, conversation_public_id: str | None) -> MaskState:
        """The key and placeholders of a conversation (a new key when it has none yet, or it does not exist)."""
        if conversation_public_id is None:
            return new_mask_state()
        with self.db.read("读取对话上下文") as conn:
            row = conn.execute(_MASK_KEY, {"public_id": conversation_public_id}).first()
            if row is None or row.mask_key is None:
                return new_mask_state()
            entries = conn.execute(_MASKS, {"row": row.id}).all()
        return MaskState(bytes.fromhex(row.mask_key),
                         tuple(MaskEntry(e.kind, e.digest, e.placeholder) for e in entries), fresh=False)

    def keep_masks_in(self, conn: Connection, conversation_row: int, state: MaskState,
                      new: Sequence[MaskEntry]) -> None:
        """Keep the conversation's key (when new) and the placeholders given to values it had not seen."""
        if state.fresh:
            insert_ignoring_duplicates(conn, conversation_mask_keys,
                                       {"conversation_id": conversation_row, "mask_key": state.key.hex()})
        for entry in new:
            insert_ignoring_duplicates(conn, conversation_masks, {
                "conversation_id": conversation_row, "kind": entry.kind, "digest": entry.digest,
                "placeholder": entry.placeholder})
