"""What the WeChat channel receives, on a `Database`: leases (one instance per account at a time), the callbacks, each
account's cursor, the shared access token, every message pulled from WeCom, and each student's conversation and
session state.

A page of sync_msg is stored in one transaction with the cursor that follows it, under the account's lease, so the
cursor never runs ahead of the messages and an instance that lost its lease writes nothing. A msgid is stored once
per account, so a replayed page or a second instance adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Connection, func, select

from core.clock import as_utc, utcnow
from core.errors import StoreError
from core.stores.db import Database, changed, insert_ignoring_duplicates, inserted_id
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations
from core.stores.wecom_outbox import insert_parts
from core.stores.wecom_schema import (
    WECOM_SCHEMA,
    wecom_cursors,
    wecom_events,
    wecom_leases,
    wecom_messages,
    wecom_students,
    wecom_tokens,
)
from core.values.wecom import Inbound, Part, Pulled, Recorded

PENDING, DONE, HISTORY = "pending", "done", "history"
CALLBACK_TOKEN_LIFE = timedelta(minutes=10)  # a callback's Token is good for sync_msg this long


class LeaseLost(StoreError):
    """This instance's lease ran out and another instance may hold it now: nothing was written."""


class WeComInbox:
    """The receiving side of the WeChat channel; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(EXCHANGES_SCHEMA)
        db.migrate(WECOM_SCHEMA)

    # --- leases ----------------------------------------------------------------------------------------

    def take(self, name: str, owner: str, ttl: timedelta) -> bool:
        """Take or renew the lease `name` for `owner`: True when it is ours until now + ttl. A conditional update, so
        of two instances asking at once exactly one gets it."""
        now = self._clock()
        with self.db.transaction("领取微信客服任务") as conn:
            if insert_ignoring_duplicates(conn, wecom_leases, {"name": name, "owner": owner, "until": now + ttl}):
                return True
            updated = changed(conn, wecom_leases.update().where(
                wecom_leases.c.name == name, (wecom_leases.c.owner == owner) | (wecom_leases.c.until < now))
                .values(owner=owner, until=now + ttl))
            return updated == 1

    def give_up(self, name: str, owner: str) -> None:
        with self.db.transaction("交出微信客服任务") as conn:
            conn.execute(wecom_leases.update().where(wecom_leases.c.name == name, wecom_leases.c.owner == owner)
                         .values(until=self._clock() - timedelta(seconds=1)))

    @staticmethod
    def _still_ours(conn: Connection, name: str, owner: str, now: datetime, ttl: timedelta) -> None:
        """Renew the lease inside a write, or LeaseLost (the write rolls back)."""
        renewed = changed(conn, wecom_leases.update().where(
            wecom_leases.c.name == name, wecom_leases.c.owner == owner, wecom_leases.c.until >= now)
            .values(until=now + ttl))
        if renewed != 1:
            raise LeaseLost(f"微信客服任务「{name}」已由另一台实例接手，这一页没有保存。")

    # --- callbacks and the cursor ----------------------------------------------------------------------

    def record_event(self, open_kfid: str, token: str) -> int:
        """A callback saying `open_kfid` has news; its Token is kept for the pull."""
        with self.db.transaction("记录微信客服回调") as conn:
            return inserted_id(conn.execute(wecom_events.insert().values(open_kfid=open_kfid, token=token[:200],
                                                                         received_at=self._clock())))

    def news(self, open_kfid: str) -> tuple[int, str]:
        """(the newest unconsumed callback's id, the newest Token still good), (0, "") when nothing is new."""
        now = self._clock()
        with self.db.read("读取微信客服回调") as conn:
            newest = conn.execute(select(func.max(wecom_events.c.id)).where(
                wecom_events.c.open_kfid == open_kfid, wecom_events.c.consumed_at.is_(None))).scalar_one_or_none()
            token = conn.execute(select(wecom_events.c.token).where(
                wecom_events.c.open_kfid == open_kfid, wecom_events.c.received_at >= now - CALLBACK_TOKEN_LIFE)
                .order_by(wecom_events.c.id.desc()).limit(1)).scalar_one_or_none()
        return newest or 0, token or ""

    def cursor(self, open_kfid: str) -> tuple[str | None, datetime | None]:
        """(the stored cursor, when it was last pulled); (None, None) before the account's first start."""
        with self.db.read("读取微信客服游标") as conn:
            row = conn.execute(select(wecom_cursors).where(wecom_cursors.c.open_kfid == open_kfid)).first()
        return (None, None) if row is None else (row.cursor, as_utc(row.pulled_at))

    def save_page(self, open_kfid: str, messages: Sequence[Inbound], next_cursor: str, *, lease: tuple[str, str],
                  ttl: timedelta, history: bool = False, consumed_up_to: int = 0) -> int:
        """Store one page and the cursor after it in one transaction, under the lease; how many messages were new.
        `history`: the first start's walk to the current cursor (stored, never answered)."""
        now = self._clock()
        new = 0
        with self.db.transaction("保存微信客服消息", immediate=True) as conn:
            self._still_ours(conn, *lease, now, ttl)
            for m in messages:
                new += insert_ignoring_duplicates(conn, wecom_messages, {
                    "open_kfid": open_kfid, "msgid": m.msgid, "external_userid": m.external_userid,
                    "origin": m.origin, "msgtype": m.msgtype, "event_type": m.event_type, "content": m.content,
                    "raw": m.raw, "send_time": m.send_time, "received_at": now,
                    "state": HISTORY if history else PENDING,
                    "outcome": "第一次启动前的历史消息，没有回答" if history else "", "exchange": "", "attempts": 0})
            if not insert_ignoring_duplicates(conn, wecom_cursors, {
                    "open_kfid": open_kfid, "cursor": next_cursor, "started_at": now, "updated_at": now,
                    "pulled_at": now}):
                conn.execute(wecom_cursors.update().where(wecom_cursors.c.open_kfid == open_kfid)
                             .values(cursor=next_cursor, updated_at=now, pulled_at=now))
            if consumed_up_to:
                conn.execute(wecom_events.update().where(
                    wecom_events.c.open_kfid == open_kfid, wecom_events.c.id <= consumed_up_to,
                    wecom_events.c.consumed_at.is_(None)).values(consumed_at=now))
        return new

    # --- pulled messages -------------------------------------------------------------------------------

    def pending(self, open_kfid: str, limit: int = 50) -> tuple[Pulled, ...]:
        """Stored messages still to answer or record, oldest first (a deferred one once its time has come)."""
        now = self._clock()
        with self.db.read("读取微信客服消息") as conn:
            rows = conn.execute(select(wecom_messages).where(
                wecom_messages.c.open_kfid == open_kfid, wecom_messages.c.state == PENDING,
                (wecom_messages.c.next_attempt_at.is_(None)) | (wecom_messages.c.next_attempt_at <= now))
                .order_by(wecom_messages.c.send_time, wecom_messages.c.id).limit(limit)).all()
        return tuple(Pulled(r.id, _inbound(r), r.attempts) for r in rows)

    def finish(self, row_id: int, outcome: str, *, exchange: str = "", parts: Sequence[Part] = ()) -> None:
        """The message is answered or recorded: its outcome, and the parts to send for it, in one transaction."""
        now = self._clock()
        with self.db.transaction("记录微信客服消息的处理结果") as conn:
            insert_parts(conn, parts, now)
            conn.execute(wecom_messages.update().where(wecom_messages.c.id == row_id).values(
                state=DONE, outcome=outcome[:2000], exchange=exchange, next_attempt_at=None))

    def defer(self, row_id: int, wait: timedelta, note: str) -> None:
        """Try the message again after `wait` (a rate limit, the database or the model was unavailable)."""
        with self.db.transaction("推迟微信客服消息") as conn:
            conn.execute(wecom_messages.update().where(wecom_messages.c.id == row_id).values(
                attempts=wecom_messages.c.attempts + 1, next_attempt_at=self._clock() + wait, outcome=note[:2000]))

    def messages(self, open_kfid: str | None = None, *, user: str | None = None, limit: int = 200
                 ) -> tuple[Recorded, ...]:
        """Recent pulled messages, newest first, with their state and outcome (the console's record)."""
        query = select(wecom_messages).order_by(wecom_messages.c.id.desc()).limit(limit)
        if open_kfid is not None:
            query = query.where(wecom_messages.c.open_kfid == open_kfid)
        if user is not None:
            query = query.where(wecom_messages.c.external_userid == user)
        with self.db.read("读取微信客服消息") as conn:
            return tuple(Recorded(_inbound(r), r.state, r.outcome, r.exchange) for r in conn.execute(query))

    # --- students --------------------------------------------------------------------------------------

    def student_wrote(self, open_kfid: str, user: str, at: datetime) -> None:
        """The student sent a message at `at` (WeCom's time): their window runs from their latest message."""
        with self.db.transaction("记录学员消息时间") as conn:
            self._ensure_student(conn, open_kfid, user)
            conn.execute(wecom_students.update().where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user,
                (wecom_students.c.last_student_at.is_(None)) | (wecom_students.c.last_student_at < at))
                .values(last_student_at=at))

    def conversation(self, open_kfid: str, user: str) -> str | None:
        with self.db.read("读取学员会话") as conn:
            found = conn.execute(select(wecom_students.c.conversation_id).where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user)).scalar_one_or_none()
        return found or None

    def set_conversation(self, open_kfid: str, user: str, conversation_id: str) -> None:
        with self.db.transaction("记录学员会话") as conn:
            self._ensure_student(conn, open_kfid, user)
            conn.execute(wecom_students.update().where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user)
                .values(conversation_id=conversation_id))

    def student_of(self, conversation_id: str) -> tuple[str, str] | None:
        """(open_kfid, external_userid) of a conversation that came through WeChat, None for one of the App."""
        with self.db.read("读取学员会话") as conn:
            row = conn.execute(select(wecom_students.c.open_kfid, wecom_students.c.external_userid).where(
                wecom_students.c.conversation_id == conversation_id)).first()
        return None if row is None else (row.open_kfid, row.external_userid)

    def set_state(self, open_kfid: str, user: str, state: int) -> None:
        """WeCom's session state as just read (or just changed by us)."""
        with self.db.transaction("记录会话状态") as conn:
            self._ensure_student(conn, open_kfid, user)
            conn.execute(wecom_students.update().where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user)
                .values(service_state=state, state_seen_at=self._clock()))

    def want_handoff(self, open_kfid: str, user: str, direction: str) -> None:
        """Ask the account's worker to change WeCom's session state: "to_person" (转人工) or "to_bot" (交还小E)."""
        with self.db.transaction("记录转人工") as conn:
            self._ensure_student(conn, open_kfid, user)
            conn.execute(wecom_students.update().where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user)
                .values(handoff=direction))

    def handoffs(self, open_kfid: str) -> tuple[tuple[str, str], ...]:
        """(student, direction) of the session changes still to make on this account."""
        with self.db.read("读取转人工") as conn:
            return tuple((r.external_userid, r.handoff) for r in conn.execute(select(
                wecom_students.c.external_userid, wecom_students.c.handoff).where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.handoff != "")
                .order_by(wecom_students.c.id)))

    def handoff_done(self, open_kfid: str, user: str, direction: str) -> None:
        with self.db.transaction("记录转人工") as conn:
            conn.execute(wecom_students.update().where(
                wecom_students.c.open_kfid == open_kfid, wecom_students.c.external_userid == user,
                wecom_students.c.handoff == direction).values(handoff=""))

    def set_handed_off(self, conversation_id: str, by: str | None) -> bool:
        """A WeCom 接待人员 took the session (`by` names them), or ended it (`by` None: 小E answers again); False when
        the conversation already was so."""
        with self.db.transaction("记录企业微信里的转人工") as conn:
            query = conversations.update().where(conversations.c.public_id == conversation_id)
            if by is None:
                return changed(conn, query.where(conversations.c.handed_off_at.isnot(None))
                                    .values(handed_off_at=None, handed_off_by="")) == 1
            return changed(conn, query.where(conversations.c.handed_off_at.is_(None))
                                .values(handed_off_at=self._clock(), handed_off_by=by[:200])) == 1

    @staticmethod
    def _ensure_student(conn: Connection, open_kfid: str, user: str) -> None:
        insert_ignoring_duplicates(conn, wecom_students, {"open_kfid": open_kfid, "external_userid": user,
                                                          "conversation_id": "", "handoff": ""})

    # --- the access token (one for every instance) ----------------------------------------------------

    def token(self, corp_id: str) -> tuple[str, datetime] | None:
        with self.db.read("读取企业微信凭证") as conn:
            row = conn.execute(select(wecom_tokens).where(wecom_tokens.c.corp_id == corp_id)).first()
        return None if row is None else (row.access_token, as_utc(row.expires_at))

    def save_token(self, corp_id: str, token: str, expires_at: datetime) -> None:
        now = self._clock()
        with self.db.transaction("保存企业微信凭证") as conn:
            if not insert_ignoring_duplicates(conn, wecom_tokens, {"corp_id": corp_id, "access_token": token,
                                                                   "expires_at": expires_at, "fetched_at": now}):
                conn.execute(wecom_tokens.update().where(wecom_tokens.c.corp_id == corp_id)
                             .values(access_token=token, expires_at=expires_at, fetched_at=now))

    def drop_token(self, corp_id: str, token: str) -> None:
        """WeCom refused `token`: forget it, unless another instance already put a new one in its place."""
        with self.db.transaction("作废企业微信凭证") as conn:
            conn.execute(wecom_tokens.update().where(wecom_tokens.c.corp_id == corp_id,
                                                     wecom_tokens.c.access_token == token)
                         .values(expires_at=self._clock() - timedelta(seconds=1)))


def _inbound(row) -> Inbound:
    return Inbound(msgid=row.msgid, open_kfid=row.open_kfid, external_userid=row.external_userid, origin=row.origin,
                   msgtype=row.msgtype, send_time=as_utc(row.send_time), content=row.content,
                   event_type=row.event_type, raw=row.raw)


def event_of(message: Inbound) -> dict:
    """The `event` object of an event message (empty when it has none or its JSON is unreadable)."""
    try:
        found = json.loads(message.raw).get("event", {})
    except (ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}
