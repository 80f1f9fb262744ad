"""The outbox: every message released to a student after their exchange was answered, written in the same
transaction as the consultant's decision that released it, and delivered from there exactly once.

Exactly once is three things here. A student message is released at most once (a unique key on the exchange), so
two consultants approving at once release once. The App can page through released messages by cursor
(`messages_after`). A key with a webhook gets each row POSTed by a worker that claims it with a lease
(`claim_due`); a crash between the POST and `mark_sent` lets the lease run out, and the row is sent again with
the same delivery id, which the App drops as a repeat.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, Row, or_, select

from core.clock import as_utc
from core.errors import InvalidReview
from core.stores.api_keys import api_keys
from core.stores.db import changed, insert_ignoring_duplicates
from core.stores.exchange_schema import (
    WEBHOOK_FAILED,
    WEBHOOK_NONE,
    WEBHOOK_PENDING,
    WEBHOOK_SENT,
    conversations,
    exchanges,
    feedbacks,
    outbox,
)
from core.values.exchanges import ANSWERED, HANDED_OFF, HELD, REFUSED, Citation, Released

MAX_ATTEMPTS = 12  # about an hour and a half of back-off in all (1, 2, 4 … 512 s, capped at 10 minutes)
MAX_BACKOFF_S = 600


@dataclass(frozen=True)
class Send:
    """What a decision on a queue item sends the students whose exchanges wait on it."""

    text: str
    citations: tuple[Citation, ...]
    status: str = ANSWERED
    only_held: bool = False  # a standard reply or a handoff notice goes to held messages only
    hand_off: bool = False  # the conversation is taken over by a consultant (转人工)


def release_in(conn: Connection, item_id: int, send: Send, *, actor: str, now: datetime,
               message_id: Callable[[], str]) -> list[str]:
    """Release `send` to every exchange waiting on queue item `item_id`, inside the decision's transaction; the
    message ids released. Held exchanges wait on any decision; refused ones (and disliked ones) only on a
    correction. An exchange already released is skipped (its unique outbox key), never sent twice."""
    statuses = (HELD,) if send.only_held else (HELD, REFUSED, ANSWERED, HANDED_OFF)
    rows = conn.execute(select(exchanges.c.id, exchanges.c.message_id, exchanges.c.conversation_id,
                               exchanges.c.key_id, exchanges.c.user, exchanges.c.status)
                        .where(exchanges.c.item_id == item_id, exchanges.c.status.in_(statuses))
                        .order_by(exchanges.c.id)).all()
    released: list[str] = []
    for row in rows:
        if not send.text.strip():
            raise InvalidReview("这条消息没有可以发给学员的回答：请写好修改后的回答再发送，或改发标准回复。")
        if _insert(conn, exchange_id=row.id, conversation_row=row.conversation_id, key_id=row.key_id, user=row.user,
                   reply_to=row.message_id, send=send, actor=actor, now=now, item_id=item_id, message_id=message_id()):
            released.append(row.message_id)
        if send.hand_off:
            conn.execute(conversations.update().where(conversations.c.id == row.conversation_id,
                                                      conversations.c.handed_off_at.is_(None))
                         .values(handed_off_at=now, handed_off_by=actor))
    return released



def follow_up_in(conn: Connection, item_id: int, send: Send, *, actor: str, now: datetime,
                 message_id: Callable[[], str]) -> list[str]:
    """A consultant's correction on a 学生反馈 item, sent to each student whose dislike joined it, as a new message
    replying to the one they disliked (their exchange may have been released already)."""
    rows = conn.execute(select(feedbacks.c.message_id, exchanges.c.conversation_id, exchanges.c.key_id,
                               exchanges.c.user)
                        .join(exchanges, exchanges.c.id == feedbacks.c.exchange_id)
                        .where(feedbacks.c.item_id == item_id, feedbacks.c.rating == "dislike")
                        .order_by(feedbacks.c.id)).all()
    sent = []
    for row in rows:
        _insert(conn, exchange_id=None, conversation_row=row.conversation_id, key_id=row.key_id, user=row.user,
                reply_to=row.message_id, send=send, actor=actor, now=now, item_id=item_id, message_id=message_id())
        sent.append(row.message_id)
    return sent


def answers_students(db, item_id: int) -> bool:
    """Whether any student's message waits on (or was answered through) queue item `item_id`."""
    with db.read("读取学员消息") as conn:
        return conn.execute(select(exchanges.c.id).where(exchanges.c.item_id == item_id).limit(1)).first() is not None \
            or conn.execute(select(feedbacks.c.id).where(feedbacks.c.item_id == item_id).limit(1)).first() is not None


def post_in(conn: Connection, conversation_row: int, text: str, *, actor: str, now: datetime, message_id: str,
            reply_to: str = "", status: str = ANSWERED) -> None:
    """A consultant's own message into a conversation (after a handoff): one outbox row, no exchange."""
    conv = conn.execute(select(conversations).where(conversations.c.id == conversation_row)).one()
    _insert(conn, exchange_id=None, conversation_row=conv.id, key_id=conv.key_id, user=conv.user, reply_to=reply_to,
            send=Send(text, (), status), actor=actor, now=now, item_id=None, message_id=message_id)


def _insert(conn: Connection, *, exchange_id: int | None, conversation_row: int, key_id: int, user: str,
            reply_to: str, send: Send, actor: str, now: datetime, item_id: int | None, message_id: str) -> bool:
    webhook = conn.execute(select(api_keys.c.webhook_url).where(api_keys.c.id == key_id)).scalar_one_or_none()
    return insert_ignoring_duplicates(conn, outbox, {
        "message_id": message_id, "exchange_id": exchange_id, "conversation_id": conversation_row, "key_id": key_id,
        "user": user, "reply_to": reply_to, "status": send.status, "answer": send.text,
        "citations": json.dumps([c.to_dict() for c in send.citations], ensure_ascii=False), "released_at": now,
        "released_by": actor, "item_id": item_id, "webhook": WEBHOOK_PENDING if webhook else WEBHOOK_NONE,
        "attempts": 0, "next_attempt_at": now if webhook else None, "last_error": ""})


def messages_after(conn: Connection, conversation_row: int, after: int, limit: int) -> tuple[Released, ...]:
    """Released messages of a conversation with a cursor greater than `after`, oldest first."""
    rows = conn.execute(_released_query().where(outbox.c.conversation_id == conversation_row, outbox.c.id > after)
                        .order_by(outbox.c.id).limit(limit)).all()
    return tuple(as_released(r) for r in rows)


def released_for(conn: Connection, exchange_ids: Sequence[int]) -> dict[int, list[Released]]:
    found: dict[int, list[Released]] = {}
    if not exchange_ids:
        return found
    for row in conn.execute(_released_query().where(outbox.c.exchange_id.in_(list(exchange_ids)))
                            .order_by(outbox.c.id)):
        found.setdefault(row.exchange_id, []).append(as_released(row))
    return found


def _released_query():
    return select(outbox, conversations.c.public_id.label("conversation_public")).join(
        conversations, conversations.c.id == outbox.c.conversation_id)


def as_released(row: Row) -> Released:
    return Released(seq=row.id, message_id=row.message_id, reply_to=row.reply_to,
                    conversation_id=row.conversation_public, user=row.user, status=row.status, answer=row.answer,
                    citations=tuple(Citation(**c) for c in json.loads(row.citations)),
                    released_at=as_utc(row.released_at), released_by=row.released_by)


# --- webhook delivery ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Due:
    """One outbox row claimed for a webhook POST, with where and how to sign it."""

    released: Released
    url: str
    secret: str
    attempt: int


def claim_due(conn: Connection, now: datetime, lease: timedelta, limit: int = 10) -> list[Due]:
    """Claim up to `limit` rows due for a webhook POST: pending, due, and not claimed by a live worker. The claim is
    a conditional UPDATE, so two workers (two instances) never hold the same row at once."""
    due = conn.execute(select(outbox.c.id).where(
        outbox.c.webhook == WEBHOOK_PENDING, outbox.c.next_attempt_at <= now,
        or_(outbox.c.claimed_until.is_(None), outbox.c.claimed_until < now)).order_by(outbox.c.id)
        .limit(limit)).scalars().all()
    claimed: list[Due] = []
    for row_id in due:
        if changed(conn, outbox.update().where(
                outbox.c.id == row_id, outbox.c.webhook == WEBHOOK_PENDING,
                or_(outbox.c.claimed_until.is_(None), outbox.c.claimed_until < now))
                .values(claimed_until=now + lease, attempts=outbox.c.attempts + 1)) != 1:
            continue
        row = conn.execute(_released_query().add_columns(api_keys.c.webhook_url, api_keys.c.webhook_secret)
                           .join(api_keys, api_keys.c.id == outbox.c.key_id).where(outbox.c.id == row_id)).one()
        claimed.append(Due(as_released(row), row.webhook_url, row.webhook_secret, row.attempts))
    return claimed


def mark_sent(conn: Connection, seq: int, now: datetime) -> None:
    conn.execute(outbox.update().where(outbox.c.id == seq, outbox.c.webhook == WEBHOOK_PENDING)
                 .values(webhook=WEBHOOK_SENT, sent_at=now, claimed_until=None, last_error=""))


def mark_failed(conn: Connection, seq: int, attempt: int, error: str, now: datetime) -> None:
    """A failed POST: try again after an exponential back-off, or give up after MAX_ATTEMPTS."""
    values: dict[str, object]
    if attempt >= MAX_ATTEMPTS:
        values = {"webhook": WEBHOOK_FAILED, "claimed_until": None, "last_error": error[:500]}
    else:
        wait = min(MAX_BACKOFF_S, 2 ** (attempt - 1))
        values = {"claimed_until": None, "next_attempt_at": now + timedelta(seconds=wait), "last_error": error[:500]}
    conn.execute(outbox.update().where(outbox.c.id == seq, outbox.c.webhook == WEBHOOK_PENDING).values(**values))


