"""Tables of the student service's record: conversations, exchanges (one per student message), the outbox of
released messages, students' feedback, and the rate-limit counters every instance shares.

Idempotency and exactly-once release are unique keys here, not checks in process memory: one exchange per
(key, student, client_msg_id), one released answer per exchange, one feedback per (message, student).
"""

from __future__ import annotations

import secrets

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from core.stores.db import Migration, Schema, create_tables


def public_id(prefix: str) -> str:
    """An id the App sees (msg_…, conv_…): random, so it says nothing about volumes or order."""
    return f"{prefix}_{secrets.token_hex(12)}"


MAX_USER_CHARS = 128
MAX_CLIENT_ID_CHARS = 128
MAX_PUBLIC_ID_CHARS = 64

metadata = MetaData()

conversations = Table(
    "conversations", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("public_id", String(MAX_PUBLIC_ID_CHARS), nullable=False, unique=True),
    Column("key_id", Integer, nullable=False),
    Column("user", String(MAX_USER_CHARS), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_at", DateTime(timezone=True), nullable=False),
    Column("handed_off_at", DateTime(timezone=True)),  # a consultant took the conversation over (转人工)
    Column("handed_off_by", String(200), nullable=False, default=""),
)
Index("ix_conversations_user", conversations.c.key_id, conversations.c.user, conversations.c.last_at)
Index("ix_conversations_last", conversations.c.last_at, conversations.c.id)

exchanges = Table(
    "exchanges", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("message_id", String(MAX_PUBLIC_ID_CHARS), nullable=False, unique=True),
    Column("key_id", Integer, nullable=False),
    Column("user", String(MAX_USER_CHARS), nullable=False),
    Column("conversation_id", Integer, ForeignKey("conversations.id"), nullable=False),
    Column("client_msg_id", String(MAX_CLIENT_ID_CHARS), nullable=False),
    Column("query", Text, nullable=False),
    Column("query_hash", String(64), nullable=False),
    Column("state", String(16), nullable=False),  # processing → done
    Column("lease_until", DateTime(timezone=True)),  # a processing exchange whose lease ran out may be taken over
    Column("status", String(16), nullable=False, default=""),
    Column("answer", Text, nullable=False, default=""),  # what the student was shown at once
    Column("draft", Text, nullable=False, default=""),  # the held answer, not shown to the student
    Column("reasons", Text, nullable=False, default="[]"),  # JSON [[code, message], …]
    Column("reused_id", Integer),
    Column("item_id", Integer),
    Column("policy", String(16), nullable=False, default=""),
    Column("response", Text, nullable=False, default=""),  # the exact JSON a replay returns
    Column("gate_runs", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("answered_at", DateTime(timezone=True)),
    UniqueConstraint("key_id", "user", "client_msg_id", name="uq_exchanges_client_msg"),
)
Index("ix_exchanges_conversation", exchanges.c.conversation_id, exchanges.c.id)
Index("ix_exchanges_item", exchanges.c.item_id)
Index("ix_exchanges_key_created", exchanges.c.key_id, exchanges.c.created_at)

# One row per message released to a student after the exchange was answered: a held answer a consultant sent, a
# standard reply, a correction after a refusal, a consultant's own message in a handed-off conversation.
outbox = Table(
    "outbox", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),  # the App's cursor
    Column("message_id", String(MAX_PUBLIC_ID_CHARS), nullable=False, unique=True),
    Column("exchange_id", Integer, ForeignKey("exchanges.id")),  # NULL: a consultant's message after a handoff
    Column("conversation_id", Integer, ForeignKey("conversations.id"), nullable=False),
    Column("key_id", Integer, nullable=False),
    Column("user", String(MAX_USER_CHARS), nullable=False),
    Column("reply_to", String(MAX_PUBLIC_ID_CHARS), nullable=False, default=""),
    Column("status", String(16), nullable=False),
    Column("answer", Text, nullable=False),
    Column("citations", Text, nullable=False, default="[]"),
    Column("released_at", DateTime(timezone=True), nullable=False),
    Column("released_by", String(200), nullable=False),
    Column("item_id", Integer),
    # Webhook delivery: none (the key has no webhook), pending, sent, failed (gave up after the last retry).
    Column("webhook", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", DateTime(timezone=True)),
    Column("claimed_until", DateTime(timezone=True)),
    Column("sent_at", DateTime(timezone=True)),
    Column("last_error", Text, nullable=False, default=""),
    UniqueConstraint("exchange_id", name="uq_outbox_exchange"),  # one release per student message, ever
)
Index("ix_outbox_conversation", outbox.c.conversation_id, outbox.c.id)
Index("ix_outbox_due", outbox.c.webhook, outbox.c.next_attempt_at)

feedbacks = Table(
    "feedbacks", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("message_id", String(MAX_PUBLIC_ID_CHARS), nullable=False),
    Column("exchange_id", Integer, ForeignKey("exchanges.id"), nullable=False),
    Column("key_id", Integer, nullable=False),
    Column("user", String(MAX_USER_CHARS), nullable=False),
    Column("rating", String(16)),  # like, dislike, NULL (revoked)
    Column("reasons", Text, nullable=False, default="[]"),
    Column("content", Text, nullable=False, default=""),
    Column("shown", Text, nullable=False),  # the answer exactly as the student saw it
    Column("reused_id", Integer),  # the approved answer the student was served, for its like count
    Column("item_id", Integer),
    Column("writes", Integer, nullable=False, default=1),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("message_id", "user", name="uq_feedbacks_message_user"),
)
Index("ix_feedbacks_reused", feedbacks.c.reused_id, feedbacks.c.rating)

# Fixed one-minute windows per scope ("user:<key>:<student>", "key:<key>"); every instance counts in the same row.
rate_counters = Table(
    "rate_counters", metadata,
    Column("scope", String(300), primary_key=True),
    Column("window", Integer, primary_key=True),  # minutes since the epoch
    Column("count", Integer, nullable=False),
)

EXCHANGES_SCHEMA = Schema("exchanges", (
    Migration(1, "conversations, exchanges, outbox, feedback and rate counters of the student service",
              create_tables(conversations, exchanges, outbox, feedbacks, rate_counters)),
))

# The outbox `webhook` states.
WEBHOOK_NONE, WEBHOOK_PENDING, WEBHOOK_SENT, WEBHOOK_FAILED = "none", "pending", "sent", "failed"
WEBHOOK_LABELS = {WEBHOOK_NONE: "无回调（App 轮询）", WEBHOOK_PENDING: "待推送", WEBHOOK_SENT: "已推送",
                  WEBHOOK_FAILED: "推送失败"}
