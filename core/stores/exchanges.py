"""The record of every student message: claimed once per (key, student, client_msg_id), answered once, replayed
identically.

`claim` runs before the assistant: inside one transaction it finds a replay (the stored response), checks the
conversation belongs to the key and student, counts the rate limits and inserts the exchange as `processing` with a
lease. The unique key (key, student, client_msg_id) makes two identical requests at the same instant one exchange:
the loser waits for the winner's answer and returns it as a replay. A processing exchange whose lease ran out (its
instance died mid-answer) is taken over by the next retry. `finish` writes the outcome, its review item and the
reply in one transaction, so a replay never sees half of it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, Row, func, select

from core.clock import as_utc, utcnow
from core.errors import StoreError, XiaoEError
from core.stores.db import Database, insert_ignoring_duplicates
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations, exchanges, public_id
from core.stores.rate_limits import Exceeded, Limit, count_in
from core.stores.review import ReviewStore
from core.stores.review_schema import review_items
from core.values.exchanges import HANDED_OFF, ApiKey, ChatReply, ChatRequest, Citation
from core.values.outcomes import Outcome

PROCESSING, DONE = "processing", "done"
WAIT_POLL_S = 0.05


class _Lost(Exception):
    """Another connection inserted the same exchange first; this transaction is rolled back and the claim retried."""


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
class Claim:
    """This request owns the exchange and must answer it (`replay` None), or the stored reply to return."""

    exchange_id: int = 0
    message_id: str = ""
    conversation_id: str = ""
    conversation_row: int = 0
    handed_off: bool = False
    replay: ChatReply | None = None
    waiting_on: int = 0  # another request is answering this exchange right now: wait for it


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


def query_hash(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()


class ExchangeStore:
    """Students' exchanges on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(EXCHANGES_SCHEMA)
        self.review = ReviewStore(db, clock=clock)

    # --- before the assistant ------------------------------------------------------------------

    def claim(self, key: ApiKey, request: ChatRequest, *, limits: tuple[Limit, ...] = (),
              lease: timedelta = timedelta(seconds=60)) -> Claim:
        """Own this message's exchange, or learn it was answered (a replay) or is being answered (wait)."""
        for _attempt in range(3):
            try:
                with self.db.transaction("记录学员消息", immediate=True) as conn:
                    return self._claim_in(conn, key, request, limits, lease)
            except _Lost:  # rolled back: the same message arrived on another connection a moment ago
                continue
        raise StoreError("记录学员消息失败：同一条消息同时到达太多次，请稍后用同一个 client_msg_id 重试。")

    def _claim_in(self, conn: Connection, key: ApiKey, request: ChatRequest, limits: tuple[Limit, ...],
                  lease: timedelta) -> Claim:
        now = self._clock()
        found = conn.execute(select(exchanges).where(
            exchanges.c.key_id == key.id, exchanges.c.user == request.user,
            exchanges.c.client_msg_id == request.client_msg_id)).first()
        if found is not None:
            return self._existing(conn, found, request, now, lease)
        exceeded = count_in(conn, limits, now)
        if exceeded is not None:
            raise _limited(exceeded)
        if request.conversation_id is not None:
            conv = conn.execute(select(conversations).where(
                conversations.c.public_id == request.conversation_id)).first()
            if conv is None or conv.key_id != key.id or conv.user != request.user:
                raise NotFound(f"会话「{request.conversation_id[:64]}」不存在，或不属于这位学员（user）：请检查 "
                               "conversation_id 和 user 是否配对；开始新会话时 conversation_id 传 null。")
            conv_id, conv_public, handed_off = conv.id, conv.public_id, conv.handed_off_at is not None
        else:
            conv_public = public_id("conv")
            conv_id = conn.execute(conversations.insert().values(
                public_id=conv_public, key_id=key.id, user=request.user, created_at=now, last_at=now,
                handed_off_by="").returning(conversations.c.id)).scalar_one()
            handed_off = False
        message_id = public_id("msg")
        inserted = insert_ignoring_duplicates(conn, exchanges, {
            "message_id": message_id, "key_id": key.id, "user": request.user, "conversation_id": conv_id,
            "client_msg_id": request.client_msg_id, "query": request.query, "query_hash": query_hash(request.query),
            "state": PROCESSING, "lease_until": now + lease, "status": "", "answer": "", "draft": "", "reasons": "[]",
            "policy": key.policy, "response": "", "gate_runs": 0, "created_at": now})
        if not inserted:  # the same message arrived on another connection a moment ago: start over, see it
            raise _Lost
        row = conn.execute(select(exchanges.c.id).where(exchanges.c.message_id == message_id)).scalar_one()
        conn.execute(conversations.update().where(conversations.c.id == conv_id).values(last_at=now))
        return Claim(row, message_id, conv_public, conv_id, handed_off)

    def _existing(self, conn: Connection, row: Row, request: ChatRequest, now: datetime,
                  lease: timedelta) -> Claim:
        if row.query_hash != query_hash(request.query):
            raise IdempotencyConflict(
                f"client_msg_id「{request.client_msg_id[:64]}」已经用在另一条不同的消息上了：重试时请原样发送同一条 "
                "query；新的消息请换一个新的 client_msg_id。")
        if row.state == DONE:
            return Claim(replay=replay_of(row.response))
        if row.lease_until is not None and as_utc(row.lease_until) > now:
            return Claim(waiting_on=row.id)
        # The instance that claimed it died before answering: this retry takes the exchange over.
        conn.execute(exchanges.update().where(exchanges.c.id == row.id).values(lease_until=now + lease))
        conv = conn.execute(select(conversations).where(conversations.c.id == row.conversation_id)).one()
        return Claim(row.id, row.message_id, conv.public_id, conv.id, conv.handed_off_at is not None)

    def wait(self, exchange_id: int, *, timeout_s: float = 30.0) -> ChatReply:
        """The reply of an exchange another request is answering, once it is written (polled)."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self.db.read("读取学员消息") as conn:
                row = conn.execute(select(exchanges.c.state, exchanges.c.response)
                                   .where(exchanges.c.id == exchange_id)).one()
            if row.state == DONE:
                return replay_of(row.response)
            if time.monotonic() > deadline:
                raise StoreError("这条消息正在另一处处理，还没有结果：请稍后用同一个 client_msg_id 重试。")
            time.sleep(WAIT_POLL_S)

    def abandon(self, claim: Claim) -> None:
        """The answer could not be written (an error on the way): end the lease now, so the student's retry with the
        same client_msg_id takes the exchange over at once."""
        with self.db.transaction("释放学员消息") as conn:
            conn.execute(exchanges.update().where(exchanges.c.id == claim.exchange_id, exchanges.c.state == PROCESSING)
                         .values(lease_until=self._clock()))

    # --- after the assistant -------------------------------------------------------------------

    def finish(self, claim: Claim, finished: Finished, outcome: Outcome | None, *,
               handoff_item: Callable[[Connection], int | None] | None = None,
               also: Callable[[Connection, int | None], None] | None = None) -> ChatReply:
        """Record what came of the exchange in one transaction: its queue item (through ReviewStore.record_in), the
        reply (stored for replays) and the conversation's time. `outcome` is None when no assistant ran (a
        handed-off conversation, a 敏感词, a student's 转人工: `handoff_item` files the message in its lane). `also`
        writes what else belongs to the exchange (its turn of the conversation's context, the masked values'
        placeholders) in the same transaction, given the item's id."""
        reply = ChatReply(message_id=claim.message_id, conversation_id=claim.conversation_id,
                          status=finished.status, answer=finished.answer, citations=finished.citations,
                          reused=finished.reused_id is not None)
        now = self._clock()
        with self.db.transaction("记录回答", immediate=True) as conn:
            current = conn.execute(select(exchanges.c.state, exchanges.c.response)
                                   .where(exchanges.c.id == claim.exchange_id)).one()
            if current.state == DONE:  # a takeover raced a slow original: the first answer stands
                return replay_of(current.response)
            if outcome is not None:
                held_reason = next((message for code, message in finished.reasons if code == "held"), "")
                item_id = self.review.record_in(conn, outcome, held=finished.held, held_reason=held_reason, asker=None)
            else:
                item_id = handoff_item(conn) if handoff_item else None
            conn.execute(exchanges.update().where(exchanges.c.id == claim.exchange_id).values(
                state=DONE, lease_until=None, status=finished.status, answer=finished.answer, draft=finished.draft,
                reasons=json.dumps([list(r) for r in finished.reasons], ensure_ascii=False),
                reused_id=finished.reused_id, item_id=item_id,
                response=json.dumps(reply.to_dict(), ensure_ascii=False), answered_at=now,
                gate_runs=exchanges.c.gate_runs + (1 if outcome is not None else 0)))
            conn.execute(conversations.update().where(conversations.c.id == claim.conversation_row)
                         .values(last_at=now))
            if also is not None:
                also(conn, item_id)
        return reply

    def hand_off_in(self, conn: Connection, conversation_row: int, actor: str) -> None:
        """The student asked for a person (「转人工」): the conversation is a consultant's until one hands it back."""
        conn.execute(conversations.update().where(conversations.c.id == conversation_row,
                                                  conversations.c.handed_off_at.is_(None))
                     .values(handed_off_at=self._clock(), handed_off_by=actor))

    def thread_text(self, conn: Connection, conversation_row: int, *, limit: int = 10) -> str:
        """The conversation's last exchanges as a consultant reads them on a 转人工 item (masked, as stored)."""
        rows = conn.execute(select(exchanges.c.query, exchanges.c.answer, exchanges.c.state)
                            .where(exchanges.c.conversation_id == conversation_row)
                            .order_by(exchanges.c.id.desc()).limit(limit)).all()
        lines = []
        for row in reversed(rows):
            lines.append(f"学员：{row.query}")
            if row.state == DONE and row.answer:
                lines.append(f"小E：{row.answer}")
        return "\n".join(lines)

    def pending_handoff_item(self, conn: Connection, conversation_row: int) -> int | None:
        """The 转人工 item of this conversation still waiting for a consultant, if any (its new messages join it)."""
        return conn.execute(
            select(func.max(exchanges.c.item_id)).join(review_items, review_items.c.id == exchanges.c.item_id).where(
                exchanges.c.conversation_id == conversation_row, exchanges.c.status == HANDED_OFF,
                review_items.c.status == "pending", review_items.c.origin == "handoff")).scalar_one_or_none()


def replay_of(response: str) -> ChatReply:
    data = json.loads(response)
    return ChatReply(message_id=data["message_id"], conversation_id=data["conversation_id"], status=data["status"],
                     answer=data["answer"], citations=tuple(Citation(**c) for c in data["citations"]),
                     reused=data["reused"], replay=True)


def _limited(exceeded: Exceeded) -> RateLimited:
    return RateLimited(f"{exceeded.limit.label}发得太快了：每分钟最多 {exceeded.limit.per_minute} 条，请 "
                       f"{exceeded.retry_after} 秒后再试。", exceeded.retry_after)
