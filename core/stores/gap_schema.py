"""The 资料缺口 board's tables and migrations (component `gaps`): topics, their questions, re-checks, events, pins.

A topic is open until it is closed, either because every question passed the gate after a fix (`fixed_by` names
the corpus version) or because an admin merged it into another (`merged_into`). A topic an admin made and named
(`named_by`) keeps its name when the board regroups. `gap_events` is append-only in the database itself.
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, ForeignKey, Index, Integer, MetaData, String, Table, Text, inspect, text

from core.stores.db import Migration, Schema, append_only, create_tables

OPEN, SUPPLIED, DECLINED = "open", "supplied", "declined"
STATUS_LABELS = {OPEN: "待补充", SUPPLIED: "已补充", DECLINED: "不补充，保持拒答"}
EVENT_LABELS = {"create": "新话题", "assign": "指定负责人", "status": "修改状态", "check": "重新核对", "close": "关闭",
                "merge": "合并话题", "move": "移动问题"}

metadata = MetaData()
gap_topics = Table(
    "gap_topics", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("label", Text, nullable=False),
    Column("terms", Text, nullable=False),  # the most telling terms, space-separated
    Column("owner", String(100)),
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True)),
    Column("fixed_by", Text),  # the corpus version under which every question passed
)
LATER_COLUMNS = (  # added by migration 4; NULL in rows written before it
    Column("merged_into", Integer),  # the topic this one was merged into (it is closed then)
    Column("named_by", String(100)),  # the admin who made and named the topic: a regrouping keeps its name
)
for _column in LATER_COLUMNS:
    gap_topics.append_column(_column)
gap_members = Table(
    "gap_members", metadata,
    Column("topic_id", Integer, ForeignKey("gap_topics.id"), primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("question", Text, nullable=False),  # how it was first asked, for a closed topic's record
)
Index("ix_gap_members_key", gap_members.c.key)
gap_checks = Table(
    "gap_checks", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("topic_id", Integer, ForeignKey("gap_topics.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("fingerprint", String(128), nullable=False),
    Column("version_note", Text, nullable=False),
    Column("results", Text, nullable=False),  # JSON: [{question, answerable, reason}]
)
Index("ix_gap_checks_topic", gap_checks.c.topic_id, gap_checks.c.id)
gap_events = Table(
    "gap_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("topic_id", Integer, ForeignKey("gap_topics.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(100), nullable=False),
    Column("action", String(16), nullable=False),
    Column("detail", Text, nullable=False),
)
gap_pins = Table(
    "gap_pins", metadata,  # an admin's word on where a question belongs (merge, move, new topic): kept across regroupings
    Column("key", String(64), primary_key=True),
    Column("topic_id", Integer, ForeignKey("gap_topics.id"), nullable=False),
    Column("actor", String(100), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


def _add_later_columns(conn) -> None:
    """Databases made before migration 4 lack the columns; newer ones got them from migration 1."""
    present = {c["name"] for c in inspect(conn).get_columns("gap_topics")}
    for column in LATER_COLUMNS:
        if column.name not in present:
            kind = column.type.compile(dialect=conn.dialect)
            conn.execute(text(f"ALTER TABLE gap_topics ADD COLUMN {column.name} {kind}"))


GAPS_SCHEMA = Schema("gaps", (
    Migration(1, "gap topics, members, re-checks and events", create_tables(gap_topics, gap_members, gap_checks,
                                                                             gap_events)),
    Migration(2, "append-only gap events", append_only("gap_events")),
    Migration(3, "an admin's placement of a question in a topic", create_tables(gap_pins)),
    Migration(4, "a merged topic is closed and names the topic it went into; an admin's topic keeps its name",
              _add_later_columns),
))
