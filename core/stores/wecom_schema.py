"""Tables of the WeChat channel (component `wecom`): leases, the callbacks received, each account's cursor, the access
token, every message pulled from WeCom, each student's window, and every message planned for sending.

Exactly once is unique keys here: a WeCom msgid is stored once per account, a reply part is planned once per
(kind, source, part), and each part carries the msgid WeCom itself refuses to take twice.
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, Integer, MetaData, String, Table, Text, UniqueConstraint

from core.stores.db import Migration, Schema, create_tables

MAX_KFID = 64
MAX_USERID = 128
MAX_MSGID = 128  # a pulled msgid (WeCom's own, no stated limit); the ones we send are at most 32 bytes

metadata = MetaData()

# A named lease (an account's pull and sends, the token refresh): one owner until `until`, then anyone may take it.
wecom_leases = Table(
    "wecom_leases", metadata,
    Column("name", String(120), primary_key=True),
    Column("owner", String(120), nullable=False),
    Column("until", DateTime(timezone=True), nullable=False),
)

# Each callback that said "there are new messages" (its Token lets sync_msg skip the strict rate limit for 10 minutes).
wecom_events = Table(
    "wecom_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("open_kfid", String(MAX_KFID), nullable=False),
    Column("token", String(200), nullable=False),
    Column("received_at", DateTime(timezone=True), nullable=False),
    Column("consumed_at", DateTime(timezone=True)),
)
Index("ix_wecom_events_open", wecom_events.c.open_kfid, wecom_events.c.consumed_at)

wecom_cursors = Table(
    "wecom_cursors", metadata,
    Column("open_kfid", String(MAX_KFID), primary_key=True),
    Column("cursor", String(200), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),  # first start: history before it was not answered
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("pulled_at", DateTime(timezone=True)),
)

wecom_tokens = Table(
    "wecom_tokens", metadata,
    Column("corp_id", String(64), primary_key=True),
    Column("access_token", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
)

# Every message and event pulled (never dropped): pending until answered or recorded, then done.
wecom_messages = Table(
    "wecom_messages", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("open_kfid", String(MAX_KFID), nullable=False),
    Column("msgid", String(MAX_MSGID), nullable=False),
    Column("external_userid", String(MAX_USERID), nullable=False, default=""),
    Column("origin", Integer, nullable=False),
    Column("msgtype", String(32), nullable=False),
    Column("event_type", String(64), nullable=False, default=""),
    Column("content", Text, nullable=False, default=""),
    Column("raw", Text, nullable=False),
    Column("send_time", DateTime(timezone=True), nullable=False),
    Column("received_at", DateTime(timezone=True), nullable=False),
    Column("state", String(16), nullable=False),  # pending → done
    Column("outcome", Text, nullable=False, default=""),  # what was done with it, in Chinese
    Column("exchange", String(64), nullable=False, default=""),  # the exchange's message_id, for a text
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", DateTime(timezone=True)),
    UniqueConstraint("open_kfid", "msgid", name="uq_wecom_messages_msgid"),
)
Index("ix_wecom_messages_pending", wecom_messages.c.open_kfid, wecom_messages.c.state, wecom_messages.c.id)

# One row per student of an account: their conversation, when they last wrote, WeCom's session state as last seen.
wecom_students = Table(
    "wecom_students", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("open_kfid", String(MAX_KFID), nullable=False),
    Column("external_userid", String(MAX_USERID), nullable=False),
    Column("conversation_id", String(64), nullable=False, default=""),  # conversations.public_id
    Column("last_student_at", DateTime(timezone=True)),
    Column("service_state", Integer),
    Column("state_seen_at", DateTime(timezone=True)),
    Column("handoff", String(16), nullable=False, default=""),  # "", "to_person" (转人工 to do), "to_bot" (交还)
    UniqueConstraint("open_kfid", "external_userid", name="uq_wecom_students"),
)
Index("ix_wecom_students_conversation", wecom_students.c.conversation_id)

# Every part of every message planned for a student; msgid is what send_msg gets, the same on every attempt.
wecom_sends = Table(
    "wecom_sends", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("open_kfid", String(MAX_KFID), nullable=False),
    Column("external_userid", String(MAX_USERID), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("source_id", String(MAX_MSGID), nullable=False),
    Column("part", Integer, nullable=False),
    Column("parts", Integer, nullable=False),
    Column("msgid", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("exchange", String(64), nullable=False, default=""),
    Column("state", String(16), nullable=False),
    Column("reason", Text, nullable=False, default=""),
    Column("attempts", Integer, nullable=False, default=0),
    Column("claimed_until", DateTime(timezone=True)),
    Column("next_attempt_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True)),
    Column("last_error", Text, nullable=False, default=""),
    UniqueConstraint("kind", "source_id", "part", name="uq_wecom_sends_source"),
    UniqueConstraint("open_kfid", "msgid", name="uq_wecom_sends_msgid"),
)
Index("ix_wecom_sends_due", wecom_sends.c.open_kfid, wecom_sends.c.state, wecom_sends.c.id)
Index("ix_wecom_sends_student", wecom_sends.c.open_kfid, wecom_sends.c.external_userid, wecom_sends.c.sent_at)
Index("ix_wecom_sends_exchange", wecom_sends.c.exchange)

WECOM_SCHEMA = Schema("wecom", (
    Migration(1, "the WeChat channel: leases, callbacks, cursors, token, pulled messages, students and sends",
              create_tables(wecom_leases, wecom_events, wecom_cursors, wecom_tokens, wecom_messages, wecom_students,
                            wecom_sends)),
))
