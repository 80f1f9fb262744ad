"""The record of every student message: answered once per (key, student, client_msg_id), written in one
transaction, replayed identically.

`look` runs before the assistant and only reads: a replay (the stored response), the conversation (it must belong to
the key and student; handed off?) and the rate limits as they stand, so a message over a limit is refused before
anything is answered. `record` runs after it: ONE write transaction inserts the exchange under its unique key (key,
student, client_msg_id), counts the rate limits (over one, it rolls back and answers 429), opens the conversation if
it is new, and writes the queue item, the reply stored for replays and whatever else belongs to the exchange (its
turn, the masked values' placeholders). Two identical requests at the same instant may both be answered, but only
the first insert stands: the other rolls back and returns the stored reply as a replay, so there is one exchange,
one item and one turn. An instance that dies while answering has written nothing, so the student's retry is answered
as if it were the first. (A `processing` exchange left by an older version, which claimed before answering, is
answered by the next retry and updated in place.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from core.clock import utcnow
from core.errors import XiaoEError
from core.stores.db import Database, changed
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations, exchanges, public_id
from core.stores.rate_limits import Exceeded, Limit, count_in, peek
from core.stores.review import ReviewStore
from core.stores.review_schema import review_items
from core.values.exchanges import HANDED_OFF, ApiKey, ChatReply, ChatRequest, Citation
from core.values.outcomes import Outcome

PROCESSING, DONE = "processing", "done"  # only older versions wrote `processing` (a claim before answering)

# Every message runs these statements: built once, so SQLAlchemy neither rebuilds them nor recomputes their cache key
# on each call (that was a measurable share of a message's CPU); the values go in as parameters.
_BY_CLIENT_ID = select(exchanges.c.id, exchanges.c.query_hash, exchanges.c.state, exchanges.c.response,
                       exchanges.c.conversation_id).where(
    exchanges.c.key_id == bindparam("key_id"), exchanges.c.user == bindparam("user"),
    exchanges.c.client_msg_id == bindparam("client_msg_id"))
_CONVERSATION = select(conversations.c.id, conversations.c.key_id, conversations.c.user,
                       conversations.c.handed_off_at).where(conversations.c.public_id == bindparam("public_id"))
_NEW_CONVERSATION = conversations.insert().returning(conversations.c.id)
_TOUCH_CONVERSATION = conversations.update().where(conversations.c.id == bindparam("row")).values(
    last_at=bindparam("at"))
_INSERT_EXCHANGE = {name: insert(exchanges).on_conflict_do_nothing().returning(exchanges.c.id)
                    for name, insert in (("sqlite", sqlite_insert), ("postgresql", postgresql_insert))}


class _Lost(Exception):
    """Another connection inserted the same exchange first; this transaction is rolled back and its reply returned."""


class NotFound(XiaoEError):
    """The conversation or message does not exist for this key and student (HTTP 404)."""


class IdempotencyConflict(XiaoEError):
    """The same client_msg_id came again with a different question (HTTP 422)."""


class RateLimited(XiaoEError):
    """Over a rate limit (HTTP 429); `retry_after` is in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Look:
    """What `look` found before the assistant runs: the stored reply to return (`replay`), or the conversation the
    new message belongs to (`conversation_row` 0: a new conversation, opened by `record`)."""

    replay: ChatReply | None = None
    conversation_row: int = 0
    conversation_id: str = ""
    handed_off: bool = False
    unfinished: int = 0  # a `processing` exchange an older version left: `record` finishes this row


@dataclass(frozen=True)
class Finished:
    """What came of an exchange, to record: the reply the student gets, the draft held back, the decision."""

    status: str
    answer: str
    citations: tuple[Citation, ...]
    reused_id: int | None
    draft: str
    reasons: tuple[tuple[str, str], ...]
    held: bool  # the release policy held the answer for a consultant (its item goes to 待发送)


@dataclass(frozen=True)
class Written:
    """Where `record` is writing, for what belongs beside the exchange (its item, its turn): the open transaction,
    the conversation's row (new or not) and the exchange's row (0 while the item is filed: it is inserted after)."""

    conn: Connection
    conversation_row: int
    exchange_id: int = 0


def query_hash(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()


class ExchangeStore:
    """Students' exchanges on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(EXCHANGES_SCHEMA)
        self.review = ReviewStore(db, clock=clock)

    # --- before the assistant: reads only -------------------------------------------------------

    def look(self, key: ApiKey, request: ChatRequest, *, limits: tuple[Limit, ...] = ()) -> Look:
        """A replay, or the conversation a new message joins; IdempotencyConflict (the id came with another query),
        NotFound (not this student's conversation) or RateLimited (a limit is already used up) before any answer."""
        with self.db.read("读取学员消息") as conn:
            found = conn.execute(_BY_CLIENT_ID, {"key_id": key.id, "user": request.user,
                                                 "client_msg_id": request.client_msg_id}).first()
            if found is not None:
                _same_query(found.query_hash, request)
                if found.state == DONE:
                    return Look(replay=replay_of(found.response))
                old = conn.execute(select(conversations).where(conversations.c.id == found.conversation_id)).one()
                return Look(None, old.id, old.public_id, old.handed_off_at is not None, unfinished=found.id)
            exceeded = peek(conn, limits, self._clock())
            if exceeded is not None:
                raise _limited(exceeded)
            if request.conversation_id is None:
                return Look()
            conv = conn.execute(_CONVERSATION, {"public_id": request.conversation_id}).first()
        if conv is None or conv.key_id != key.id or conv.user != request.user:
            raise NotFound(f"会话「{request.conversation_id[:64]}」不存在，或不属于这位学员（user）：请检查 "
                           "conversation_id 和 user 是否配对；开始新会话时 conversation_id 传 null。")
        return Look(None, conv.id, request.conversation_id, conv.handed_off_at is not None)

    # --- after the assistant: one write ---------------------------------------------------------

    def record(self, key: ApiKey, request: ChatRequest, look: Look, finished: Finished, outcome: Outcome | None, *,
               limits: tuple[Limit, ...] = (), item: Callable[[Written], int | None] | None = None,
               also: Callable[[Written], None] | None = None) -> ChatReply:
        """Record the answered message in one transaction (see the module doc) and return the reply. Its queue item
        comes from `ReviewStore.record_in` when the assistant ran (`outcome`), else from `item` (a handed-off
        conversation, a 敏感词, a student's 转人工 file the message in their lane); `also` writes the exchange's turn
        and placeholders. A duplicate that lost the race returns the first reply, marked as a replay."""
        now = self._clock()
        message_id = public_id("msg")
        conv_public = look.conversation_id or public_id("conv")
        reasons = json.dumps([list(r) for r in finished.reasons], ensure_ascii=False)
        held_reason = next((message for code, message in finished.reasons if code == "held"), "")
        try:
            with self.db.transaction("记录学员消息", immediate=True) as conn:
                conv_row = look.conversation_row or conn.execute(_NEW_CONVERSATION, {
                    "public_id": conv_public, "key_id": key.id, "user": request.user, "created_at": now,
                    "last_at": now, "handed_off_at": None, "handed_off_by": ""}).scalar_one()
                if look.unfinished:  # the reply keeps the message id the older version gave it
                    message_id = conn.execute(select(exchanges.c.message_id)
                                              .where(exchanges.c.id == look.unfinished)).scalar_one()
                reply = ChatReply(message_id=message_id, conversation_id=conv_public, status=finished.status,
                                  answer=finished.answer, citations=finished.citations,
                                  reused=finished.reused_id is not None)
                if outcome is not None:
                    item_id = self.review.record_in(conn, outcome, held=finished.held, held_reason=held_reason,
                                                    asker=None)
                else:
                    item_id = item(Written(conn, conv_row)) if item is not None else None
                values = {"status": finished.status, "answer": finished.answer, "draft": finished.draft,
                          "reasons": reasons, "reused_id": finished.reused_id, "item_id": item_id,
                          "response": json.dumps(reply.to_dict(), ensure_ascii=False), "answered_at": now,
                          "state": DONE, "lease_until": None, "gate_runs": 1 if outcome is not None else 0}
                exchange_id = self._insert_in(conn, key, request, conv_row, message_id, now, look.unfinished,
                                              values)
                if look.conversation_row:
                    conn.execute(_TOUCH_CONVERSATION, {"row": conv_row, "at": now})
                if also is not None:
                    also(Written(conn, conv_row, exchange_id))
                exceeded = count_in(conn, limits, now)  # last: on PostgreSQL a counter's row lock is held briefly
                if exceeded is not None:
                    raise _limited(exceeded)
        except _Lost:  # rolled back: the same message was recorded a moment ago on another connection
            return self._stored(key, request)
        return reply

    @staticmethod
    def _insert_in(conn: Connection, key: ApiKey, request: ChatRequest, conv_row: int, message_id: str,
                   now: datetime, unfinished: int, values: dict) -> int:
        if unfinished:
            if changed(conn, exchanges.update().where(exchanges.c.id == unfinished, exchanges.c.state == PROCESSING)
                       .values(**values)) != 1:
                raise _Lost
            return unfinished
        row = conn.execute(_INSERT_EXCHANGE[conn.dialect.name], {
            "message_id": message_id, "key_id": key.id, "user": request.user, "conversation_id": conv_row,
            "client_msg_id": request.client_msg_id, "query": request.query, "query_hash": query_hash(request.query),
            "policy": key.policy, "created_at": now, **values}).first()
        if row is None:
            raise _Lost
        return row.id

    def _stored(self, key: ApiKey, request: ChatRequest) -> ChatReply:
        with self.db.read("读取学员消息") as conn:
            row = conn.execute(select(exchanges.c.query_hash, exchanges.c.state, exchanges.c.response).where(
                exchanges.c.key_id == key.id, exchanges.c.user == request.user,
                exchanges.c.client_msg_id == request.client_msg_id)).one()
        _same_query(row.query_hash, request)
        return replay_of(row.response)

    # --- inside record's transaction (its `item` and `also`) ------------------------------------------

    def hand_off_in(self, conn: Connection, conversation_row: int, actor: str) -> None:
        """The student asked for a person (「转人工」): the conversation is a consultant's until one hands it back."""
        conn.execute(conversations.update().where(conversations.c.id == conversation_row,
                                                  conversations.c.handed_off_at.is_(None))
                     .values(handed_off_at=self._clock(), handed_off_by=actor))

    def thread_text(self, conn: Connection, conversation_row: int, *, latest: str = "", limit: int = 10) -> str:
        """The conversation's last exchanges as a consultant reads them on a 转人工 item (masked, as stored), ending
        with the student's `latest` message, which is being recorded."""
        rows = conn.execute(select(exchanges.c.query, exchanges.c.answer, exchanges.c.state)
                            .where(exchanges.c.conversation_id == conversation_row)
                            .order_by(exchanges.c.id.desc()).limit(limit - 1 if latest else limit)).all()
        lines = []
        for row in reversed(rows):
            lines.append(f"学员：{row.query}")
            if row.state == DONE and row.answer:
                lines.append(f"小E：{row.answer}")
        if latest:
            lines.append(f"学员：{latest}")
        return "\n".join(lines)

    def pending_handoff_item(self, conn: Connection, conversation_row: int) -> int | None:
        """The 转人工 item of this conversation still waiting for a consultant, if any (its new messages join it)."""
        return conn.execute(
            select(func.max(exchanges.c.item_id)).join(review_items, review_items.c.id == exchanges.c.item_id).where(
                exchanges.c.conversation_id == conversation_row, exchanges.c.status == HANDED_OFF,
                review_items.c.status == "pending", review_items.c.origin == "handoff")).scalar_one_or_none()


def _same_query(stored_hash: str, request: ChatRequest) -> None:
    if stored_hash != query_hash(request.query):
        raise IdempotencyConflict(
            f"client_msg_id「{request.client_msg_id[:64]}」已经用在另一条不同的消息上了：重试时请原样发送同一条 "
            "query；新的消息请换一个新的 client_msg_id。")


def replay_of(response: str) -> ChatReply:
    data = json.loads(response)
    return ChatReply(message_id=data["message_id"], conversation_id=data["conversation_id"], status=data["status"],
                     answer=data["answer"], citations=tuple(Citation(**c) for c in data["citations"]),
                     reused=data["reused"], replay=True)


def _limited(exceeded: Exceeded) -> RateLimited:
    return RateLimited(f"{exceeded.limit.label}发得太快了：每分钟最多 {exceeded.limit.per_minute} 条，请 "
                       f"{exceeded.retry_after} 秒后再试。", exceeded.retry_after)
