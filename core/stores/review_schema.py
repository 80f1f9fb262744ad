"""Tables, migrations and vocabulary (lanes, statuses, actions, bounds) of the review queue.

Reasons and candidates are child tables rather than JSON: a lane filter is then an indexed
`EXISTS` on `review_reasons.code`, and "which queued answers used source X" (needed when a
corpus file changes) is an indexed lookup on `review_candidates.source`, the same on SQLite
and PostgreSQL. Events are append-only; migration 2 makes the database itself refuse edits.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from core.stores.db import Migration, Schema, append_only, create_tables
from core.stores.roles import SYSTEM_ACTOR  # noqa: F401 - re-exported for the queue's readers

MAX_NOTE_CHARS = 2_000
MAX_CORRECTED_CHARS = 20_000
MAX_NAME_CHARS = 100
MAX_TOPIC_CHARS = 100  # the topic a consultant gives an expected refusal



    # Lives here rather than in core/errors.py on purpose (the brief asks to leave that file alone);
    # the lead may move it there as a generic ValidationError.



metadata = MetaData()

# Migration 1 creates these tables as written here. A column added later must come with its
# own numbered migration (ALTER TABLE) so that existing files catch up.
review_items = Table(
    "review_items", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("origin", String(32), nullable=False),
    Column("question", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("threshold", Float),
    Column("k", Integer),
    Column("fingerprint", String(128), nullable=False),
    Column("flagged_by", String(MAX_NAME_CHARS)),
    Column("status", String(16), nullable=False),
    Column("reviewer", String(MAX_NAME_CHARS)),
    Column("decided_at", DateTime(timezone=True)),
    Column("note", Text),
    Column("corrected_answer", Text),
    Column("version", Integer, nullable=False),
)
# The list page filters on status (and often lane) and sorts by time; id breaks ties.
Index("ix_review_items_status_created", review_items.c.status, review_items.c.created_at, review_items.c.id)
Index("ix_review_items_origin_status", review_items.c.origin, review_items.c.status, review_items.c.created_at)
Index("ix_review_items_created", review_items.c.created_at, review_items.c.id)

review_reasons = Table(
    "review_reasons", metadata,
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("code", String(64), nullable=False),
    Column("message", Text, nullable=False),
    Column("span_start", Integer),
    Column("span_end", Integer),
)
Index("ix_review_reasons_code", review_reasons.c.code, review_reasons.c.item_id)

review_candidates = Table(
    "review_candidates", metadata,
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("rank", Integer, primary_key=True),
    Column("source", String(500), nullable=False),
    Column("heading", Text, nullable=False),
    Column("chunk", Integer, nullable=False),
    Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("passed", Boolean, nullable=False),
    Column("text", Text, nullable=False),
)
Index("ix_review_candidates_source", review_candidates.c.source, review_candidates.c.item_id)

review_events = Table(
    "review_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", Integer, ForeignKey("review_items.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(MAX_NAME_CHARS), nullable=False),
    Column("action", String(16), nullable=False),
    Column("from_status", String(16)),
    Column("to_status", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    Column("note", Text),
    Column("corrected_answer", Text),
)
Index("ix_review_events_item", review_events.c.item_id, review_events.c.id)

# De-duplication (core/stores/review_dedup.py): the key an item is found by, and every asking of it.
review_keys = Table(
    "review_keys", metadata,
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("key", String(64), nullable=False),
)
Index("ix_review_keys_key", review_keys.c.key, review_keys.c.item_id)

review_asks = Table(
    "review_asks", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", Integer, ForeignKey("review_items.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("asker", String(MAX_NAME_CHARS)),
    Column("threshold", Float),
    Column("k", Integer),
    Column("counted", Boolean, nullable=False),
)
Index("ix_review_asks_item", review_asks.c.item_id, review_asks.c.id)


# The grader's verdict and cost for a queued item (core.answering.grader), one row per graded item. Its own
# component with its own migration numbers, so that it never collides with another branch's
# next review migration; it is migrated right after the review tables it refers to.
review_grades = Table(
    "review_grades", metadata,
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("answerable", Boolean, nullable=False),
    Column("chunks", String(200), nullable=False),  # the chunk numbers the model named, "1,3"
    Column("reason", Text, nullable=False),
    Column("fault", String(32), nullable=False),  # "" when a verdict came back, else the ModelError kind
    Column("prompt_tokens", Integer, nullable=False),
    Column("completion_tokens", Integer, nullable=False),
    Column("ms", Integer, nullable=False),
)

# The grounding check's sentence-by-sentence verdicts as they were when the item was queued (JSON of
# core.values.GroundingReport.to_dict): the Review page shows these, never a check re-run on the stored text.
review_reports = Table(
    "review_reports", metadata,
    Column("item_id", Integer, ForeignKey("review_items.id"), primary_key=True),
    Column("grounding", Text, nullable=False),
)

REVIEW_SCHEMA = Schema("review", (
    Migration(1, "review queue tables", create_tables(review_items, review_reasons, review_candidates,
                                                       review_events)),
    Migration(2, "append-only review events", append_only("review_events")),
    Migration(3, "de-duplication keys and askings", create_tables(review_keys, review_asks)),
    Migration(4, "append-only also against replacing inserts and TRUNCATE", append_only("review_events")),
))
GRADE_SCHEMA = Schema("review_grades", (
    Migration(1, "grader verdicts of queued items", create_tables(review_grades)),
))
REPORT_SCHEMA = Schema("review_reports", (
    Migration(1, "grounding verdicts stored with queued items", create_tables(review_reports)),
))


@dataclass(frozen=True)
class Lane:
    """A queue lane: an origin (`codes` empty) or a group of problem codes."""

    code: str
    label: str
    codes: tuple[str, ...] = ()


# A batch run's verdict against the label (core.evaluation.batch.outcome_problem); items queued by a run
# before outcomes were recorded through one method carry the origin "batch" instead.
EVAL_CODES = ("eval_wrong_refusal", "eval_wrong_answer", "eval_wrong_source")
ORIGIN_LANES = (
    Lane("auto", "自动标记"),
    Lane("manual", "人工标记"),
    Lane("refusal", "拒答"),
    Lane("model_error", "模型故障"),
    Lane("batch", "批量评测", EVAL_CODES),  # an origin (older items) and a reason lane (the run's verdict)
    Lane("grader", "模型判定可答"),  # answered because the grader said yes: kept until a consultant approves
    # The student service (core.exchanges): an answer the key's release policy holds until a consultant sends it,
    # a student's dislike of an answer they saw, a student message in a conversation a consultant took over.
    Lane("held", "待发送"),
    Lane("feedback", "学生反馈"),
    Lane("handoff", "转人工"),
    Lane("sensitive", "敏感内容"),  # a student message with a 敏感词: the configured reply, no retrieval, no model
)
REASON_LANES = (
    Lane("citation", "引用问题", ("bad_ref", "no_refs")),
    Lane("number", "数字无出处", ("unsupported_number",)),
    Lane("arithmetic", "计算错误", ("bad_arithmetic",)),
    Lane("uncited", "无出处陈述", ("uncited_claim",)),
    Lane("question", "与问题不符", ("question_mismatch",)),
    Lane("off_question", "答非所问", ("off_question",)),
    Lane("stale", "资料已更新", ("stale_corpus", "contradicted_source")),
)
LANES = {lane.code: lane for lane in ORIGIN_LANES + REASON_LANES}
ORIGINS = tuple(lane.code for lane in ORIGIN_LANES)
CODED_LANES = tuple(lane for lane in LANES.values() if lane.codes)  # lanes an item joins by a reason code
LANE_OF_CODE = {code: lane.code for lane in CODED_LANES for code in lane.codes}

STATUS_LABELS = {"pending": "待复核", "approved": "已通过", "rejected": "已驳回"}
ACTION_LABELS = {"enqueue": "入队", "approve": "通过", "reject": "驳回", "reopen": "重新打开", "expect": "预期拒答",
                 "mark_missing": "标记资料没写", "unmark_missing": "取消资料没写", "fix": "资料已补充",
                 "unstale": "资料已恢复", "corpus": "资料更新后又被问到", "handoff": "转人工"}
# action -> (statuses it may start from, status it leads to). 「预期拒答」 approves a refusal and marks it
# (core.stores.review_marks); the mark and fix actions are written by core.stores.review_marks, not here.
TRANSITIONS = {
    "approve": (("pending",), "approved"),
    "reject": (("pending",), "rejected"),
    "reopen": (("approved", "rejected"), "pending"),
    "expect": (("pending", "approved"), "approved"),
    "handoff": (("pending",), "rejected"),  # a held draft not sent: a consultant takes the conversation over
}


def lane_label(code: str) -> str:
    return LANES[code].label if code in LANES else code


def resolve_lane(value: str) -> tuple[str | None, str | None]:
    """(lane code, problem code) for a lane code, a Chinese lane label or a problem code; else (None, None)."""
    value = value.strip()
    for lane in LANES.values():
        if value in (lane.code, lane.label):
            return lane.code, None
    if value in LANE_OF_CODE:
        return None, value
    return None, None


def resolve_status(value: str) -> str | None:
    """The status code for a code or a Chinese label; None when it is neither."""
    value = value.strip()
    for code, label in STATUS_LABELS.items():
        if value in (code, label):
            return code
    return None
