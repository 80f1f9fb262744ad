"""Each consultant's test questions on the Ask page: the question, the knobs, the decision and when, per asker.

What 「我最近问过」 lists across reloads and devices. Only the newest KEEP_PER_ASKER rows of an asker are kept
(older ones are deleted in the same transaction as a new one), so the table stays small; the review queue, not
this table, is the record of what was answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Boolean, Column, DateTime, Integer, MetaData, String, Table, Text, delete, select

from core.clock import as_utc, utcnow
from core.errors import StoreError
from core.knobs import Knobs
from core.stores.db import Database, Migration, Schema, create_tables
from core.stores.roles import Authorize, checked

KEEP_PER_ASKER = 200
MAX_ASKER_CHARS = 100

metadata = MetaData()
asked_questions = Table(
    "asked_questions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("asker", String(MAX_ASKER_CHARS), nullable=False, index=True),
    Column("question", Text, nullable=False),
    Column("knobs", Text, nullable=False),  # JSON: Knobs.to_dict()
    Column("refused", Boolean, nullable=False),
    Column("reason", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

ASKED_SCHEMA = Schema("asked", (Migration(1, "questions asked on the Ask page", create_tables(asked_questions)),))


@dataclass(frozen=True)
class AskedQuestion:
    question: str
    knobs: Knobs
    refused: bool
    reason: str
    at: datetime

    @property
    def decision(self) -> str:
        return "拒答" if self.refused else "作答"


class AskedStore:
    """The Ask page's per-consultant history on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(ASKED_SCHEMA)

    def record(self, asker: str, question: str, knobs: Knobs, *, refused: bool, reason: str,
               authorize: Authorize | None = None) -> None:
        asker = (asker or "").strip()
        if not asker or len(asker) > MAX_ASKER_CHARS:
            raise StoreError("记录提问时缺少提问人，没有保存到「我最近问过」。")
        with self.db.transaction("记录提问") as conn:
            checked(conn, authorize, "ask")
            conn.execute(asked_questions.insert().values(
                asker=asker, question=question, knobs=json.dumps(knobs.to_dict(), sort_keys=True),
                refused=refused, reason=reason or "", at=self._clock()))
            keep = select(asked_questions.c.id).where(asked_questions.c.asker == asker) \
                .order_by(asked_questions.c.id.desc()).limit(KEEP_PER_ASKER)
            conn.execute(delete(asked_questions).where(asked_questions.c.asker == asker,
                                                       asked_questions.c.id.not_in(keep.scalar_subquery())))

    def recent(self, asker: str, *, limit: int = 8) -> tuple[AskedQuestion, ...]:
        """The asker's questions, newest first, each question once (its newest asking)."""
        with self.db.read("读取最近的提问") as conn:
            rows = conn.execute(select(asked_questions).where(asked_questions.c.asker == asker)
                                .order_by(asked_questions.c.id.desc()).limit(KEEP_PER_ASKER)).all()
        seen: dict[str, AskedQuestion] = {}
        for row in rows:
            if row.question not in seen:
                seen[row.question] = AskedQuestion(row.question, Knobs(**json.loads(row.knobs)), bool(row.refused),
                                                   row.reason, as_utc(row.at))
            if len(seen) >= limit:
                break
        return tuple(seen.values())
