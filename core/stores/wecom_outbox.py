"""What the WeChat channel sends, on a `Database`: every part planned for a student, claimed with a lease before its
send_msg and marked after; each student's window and budget; the outbox rows (held answers a consultant released)
still to plan; and what the console shows of it.

A part is planned once (its unique (kind, source, part)) with the msgid it keeps for every attempt. An instance that
dies between send_msg and `finish` leaves the part claimed; when the claim runs out the part is sent again with the
same msgid, which WeCom refuses as a repeat, and the refusal marks it sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Connection, and_, func, select

from core.clock import as_utc, utcnow
from core.stores.db import Database, changed, insert_ignoring_duplicates
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations, exchanges, outbox
from core.stores.wecom_schema import WECOM_SCHEMA, wecom_sends, wecom_students
from core.values.exchanges import Citation
from core.values.wecom import FAILED, HELD, PENDING, RELEASE, SENT, UNCERTAIN, WAITING, WINDOW, Part, Send, Window


def insert_parts(conn: Connection, parts: Iterable[Part], now: datetime) -> int:
    """Plan parts inside the caller's transaction; one already planned (same kind, source and part) is left as it is."""
    planned = 0
    for p in parts:
        planned += insert_ignoring_duplicates(conn, wecom_sends, {
            "open_kfid": p.open_kfid, "external_userid": p.external_userid, "kind": p.kind, "source_id": p.source_id,
            "part": p.part, "parts": p.parts, "msgid": p.msgid, "text": p.text, "exchange": p.exchange,
            "state": p.state, "reason": p.reason, "attempts": 0, "created_at": now, "last_error": ""})
    return planned


class WeComOutbox:
    """The sending side of the WeChat channel; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(EXCHANGES_SCHEMA)
        db.migrate(WECOM_SCHEMA)

    def plan(self, parts: Sequence[Part]) -> int:
        with self.db.transaction("安排微信客服消息") as conn:
            return insert_parts(conn, parts, self._clock())

    # --- sending ---------------------------------------------------------------------------------------

    def due(self, open_kfid: str, limit: int = 100) -> tuple[Send, ...]:
        """Pending parts nobody holds, in the order they were planned."""
        now = self._clock()
        with self.db.read("读取待发的微信客服消息") as conn:
            rows = conn.execute(select(wecom_sends).where(
                wecom_sends.c.open_kfid == open_kfid, wecom_sends.c.state == PENDING,
                (wecom_sends.c.claimed_until.is_(None)) | (wecom_sends.c.claimed_until < now),
                (wecom_sends.c.next_attempt_at.is_(None)) | (wecom_sends.c.next_attempt_at <= now))
                .order_by(wecom_sends.c.id).limit(limit)).all()
        return tuple(_send(r) for r in rows)

    def claim(self, send_id: int, lease: timedelta) -> int | None:
        """Hold a pending part for one send_msg: the attempt number, or None when another worker holds it or it is
        no longer pending. A conditional update, so two workers never hold the same part."""
        now = self._clock()
        with self.db.transaction("领取微信客服消息") as conn:
            updated = changed(conn, wecom_sends.update().where(
                wecom_sends.c.id == send_id, wecom_sends.c.state == PENDING,
                (wecom_sends.c.claimed_until.is_(None)) | (wecom_sends.c.claimed_until < now))
                .values(claimed_until=now + lease, attempts=wecom_sends.c.attempts + 1))
            if updated != 1:
                return None
            return conn.execute(select(wecom_sends.c.attempts).where(wecom_sends.c.id == send_id)).scalar_one()

    def finish(self, send_id: int, state: str, *, reason: str = "", error: str = "") -> None:
        """A part's end: sent, or why it never will be."""
        now = self._clock()
        with self.db.transaction("记录微信客服消息的发送结果") as conn:
            conn.execute(wecom_sends.update().where(wecom_sends.c.id == send_id, wecom_sends.c.state == PENDING)
                         .values(state=state, reason=reason[:1000], last_error=error[:1000], claimed_until=None,
                                 sent_at=now if state in (SENT, UNCERTAIN) else None))

    def retry(self, send_id: int, wait: timedelta, *, reason: str = "", error: str = "") -> None:
        """Leave the part pending and try it again after `wait` (or when `wait` is zero, next round)."""
        with self.db.transaction("推迟微信客服消息") as conn:
            conn.execute(wecom_sends.update().where(wecom_sends.c.id == send_id, wecom_sends.c.state == PENDING)
                         .values(claimed_until=None, next_attempt_at=self._clock() + wait, reason=reason[:1000],
                                 last_error=error[:1000]))

    def close_all(self, open_kfid: str, user: str, state: str, reason: str, *, kinds: Sequence[str] = ()) -> int:
        """Every pending part for a student ends as `state` (the window closed, a person took the session)."""
        with self.db.transaction("记录微信客服消息的发送结果") as conn:
            query = wecom_sends.update().where(wecom_sends.c.open_kfid == open_kfid,
                                               wecom_sends.c.external_userid == user, wecom_sends.c.state == PENDING)
            if kinds:
                query = query.where(wecom_sends.c.kind.in_(list(kinds)))
            return changed(conn, query.values(state=state, reason=reason[:1000], claimed_until=None))

    def delivery_failed(self, open_kfid: str, msgid: str, reason: str) -> bool:
        """WeCom took a part but could not deliver it (msg_send_fail): it is marked failed, with WeCom's reason."""
        with self.db.transaction("记录微信客服投递失败") as conn:
            return changed(conn, wecom_sends.update().where(
                wecom_sends.c.open_kfid == open_kfid, wecom_sends.c.msgid == msgid,
                wecom_sends.c.state.in_((SENT, UNCERTAIN))).values(state=FAILED, reason=reason[:1000])) == 1

    # --- a student's window and budget ------------------------------------------------------------------

    def window(self, open_kfid: str, user: str) -> Window:
        """When the student last wrote, and how many messages went out since (each part counts)."""
        now = self._clock()
        with self.db.read("读取学员的发送额度") as conn:
            student = conn.execute(select(wecom_students).where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user)).first()
            return _window(conn, student, now)

    def window_of(self, conversation_id: str) -> Window | None:
        """The window of a conversation that came through WeChat; None for one of the App."""
        now = self._clock()
        with self.db.read("读取学员的发送额度") as conn:
            student = conn.execute(select(wecom_students).where(
                wecom_students.c.conversation_id == conversation_id)).first()
            return None if student is None else _window(conn, student, now)

    # --- held answers -----------------------------------------------------------------------------------

    def waiting_closed(self, open_kfid: str) -> tuple[tuple[str, str], ...]:
        """Held answers still with a consultant whose student's window has closed: (exchange, student)."""
        now = self._clock()
        with self.db.read("读取待发送的回答") as conn:
            rows = conn.execute(select(wecom_sends.c.exchange, wecom_sends.c.external_userid).join(
                wecom_students, and_(wecom_students.c.open_kfid == wecom_sends.c.open_kfid,
                                     wecom_students.c.external_userid == wecom_sends.c.external_userid)).where(
                wecom_sends.c.open_kfid == open_kfid, wecom_sends.c.kind == HELD, wecom_sends.c.state == WAITING,
                wecom_students.c.last_student_at < now - WINDOW).order_by(wecom_sends.c.id)).all()
        return tuple((r.exchange, r.external_userid) for r in rows)

    def mark_held(self, exchange: str, state: str, reason: str = "") -> bool:
        """A held answer's marker moves on (released, or expired); False when it had already moved."""
        with self.db.transaction("记录待发送的回答") as conn:
            return changed(conn, wecom_sends.update().where(
                wecom_sends.c.kind == HELD, wecom_sends.c.source_id == exchange, wecom_sends.c.state == WAITING)
                .values(state=state, reason=reason[:1000])) == 1

    def held_state(self, exchange: str) -> str | None:
        with self.db.read("读取待发送的回答") as conn:
            return conn.execute(select(wecom_sends.c.state).where(
                wecom_sends.c.kind == HELD, wecom_sends.c.source_id == exchange)).scalar_one_or_none()

    def unplanned_releases(self, open_kfid: str, limit: int = 50) -> tuple[dict, ...]:
        """Messages a consultant released (the outbox) to students of this account, not planned for WeChat yet."""
        planned = select(wecom_sends.c.source_id).where(wecom_sends.c.kind == RELEASE, wecom_sends.c.part == 1)
        with self.db.read("读取顾问放行的消息") as conn:
            rows = conn.execute(select(outbox.c.message_id, outbox.c.reply_to, outbox.c.status, outbox.c.answer,
                                       outbox.c.citations, wecom_students.c.external_userid)
                                .join(conversations, conversations.c.id == outbox.c.conversation_id)
                                .join(wecom_students, wecom_students.c.conversation_id == conversations.c.public_id)
                                .where(wecom_students.c.open_kfid == open_kfid,
                                       outbox.c.message_id.notin_(planned))
                                .order_by(outbox.c.id).limit(limit)).all()
        return tuple({"message_id": r.message_id, "reply_to": r.reply_to, "status": r.status, "answer": r.answer,
                      "citations": tuple(Citation(**c) for c in json.loads(r.citations or "[]")),
                      "user": r.external_userid} for r in rows)

    # --- what the console shows -------------------------------------------------------------------------

    def deliveries(self, exchange_ids: Sequence[str]) -> dict[str, tuple[Send, ...]]:
        """Every part planned for each student message (by exchange message_id), in order."""
        found: dict[str, list[Send]] = {}
        if not exchange_ids:
            return {}
        with self.db.read("读取微信客服消息") as conn:
            for row in conn.execute(select(wecom_sends).where(wecom_sends.c.exchange.in_(list(exchange_ids)))
                                    .order_by(wecom_sends.c.id)):
                found.setdefault(row.exchange, []).append(_send(row))
        return {k: tuple(v) for k, v in found.items()}

    def exchange_of(self, message_id: str) -> tuple[str, str] | None:
        """The held exchange a released message answers and its status, for a release's marker."""
        with self.db.read("读取学员消息") as conn:
            row = conn.execute(select(exchanges.c.message_id, exchanges.c.status).where(
                exchanges.c.message_id == message_id)).first()
        return None if row is None else (row.message_id, row.status)


def _window(conn: Connection, student, now: datetime) -> Window:
    if student is None:
        return Window(None, 0, now)
    since = as_utc(student.last_student_at)
    used = 0
    if since is not None:
        used = conn.execute(select(func.count()).where(
            wecom_sends.c.open_kfid == student.open_kfid, wecom_sends.c.external_userid == student.external_userid,
            wecom_sends.c.state.in_((SENT, UNCERTAIN)), wecom_sends.c.sent_at >= since)).scalar_one()
    return Window(since, used, now, student.service_state)


def _send(row) -> Send:
    part = Part(open_kfid=row.open_kfid, external_userid=row.external_userid, kind=row.kind, source_id=row.source_id,
                part=row.part, parts=row.parts, msgid=row.msgid, text=row.text, exchange=row.exchange,
                state=row.state, reason=row.reason)
    return Send(row.id, part, row.state, row.reason, row.attempts, as_utc(row.created_at), as_utc(row.sent_at),
                row.last_error)

