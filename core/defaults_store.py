"""The saved default threshold and k: an append-only audit table whose newest row is the default.

Saving never updates a row: each save appends who, when, old → new and the metrics seen at
that moment (JSON), in one transaction, so the current default and its audit trail cannot
disagree. `effective_settings` applies the newest row on top of the environment settings;
the saved default takes precedence over XIAOE_MIN_SCORE / XIAOE_TOP_K (see core/settings.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Float, Integer, MetaData, String, Table, Text, select

from core.db import Database, Migration, Schema, create_tables, open_database, utcnow
from core.errors import ConfigError
from core.roles import Authorize
from core.settings import MAX_TOP_K, Settings

MAX_ACTOR_CHARS = 100
MAX_NOTE_CHARS = 500

metadata = MetaData()
default_changes = Table(
    "default_changes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(MAX_ACTOR_CHARS), nullable=False),
    Column("old_threshold", Float, nullable=False),
    Column("new_threshold", Float, nullable=False),
    Column("old_k", Integer, nullable=False),
    Column("new_k", Integer, nullable=False),
    Column("metrics", Text, nullable=False),  # JSON: the evaluation shown when the default was saved
    Column("note", Text, nullable=False),
)

DEFAULTS_SCHEMA = Schema("defaults", (
    Migration(1, "saved default threshold and k, append-only", create_tables(default_changes)),
))


@dataclass(frozen=True)
class DefaultChange:
    """One save of the default: the audit record, and (for the newest) the default in force."""

    id: int
    at: datetime
    actor: str
    old_threshold: float
    new_threshold: float
    old_k: int
    new_k: int
    metrics: dict = field(default_factory=dict)
    note: str = ""

    @property
    def summary(self) -> str:
        return (f"{self.actor} 把默认阈值从 {self.old_threshold:.2f} 改为 {self.new_threshold:.2f}，"
                f"k 从 {self.old_k} 改为 {self.new_k}")


class DefaultsStore:
    """The saved default on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(DEFAULTS_SCHEMA)

    def current(self) -> DefaultChange | None:
        """The newest save, or None when nobody has saved a default yet."""
        history = self.history(limit=1)
        return history[0] if history else None

    def history(self, *, limit: int = 50) -> tuple[DefaultChange, ...]:
        """Saves, newest first."""
        with self.db.read("读取默认阈值记录") as conn:
            rows = conn.execute(select(default_changes).order_by(default_changes.c.id.desc()).limit(limit)).all()
        return tuple(_change(row) for row in rows)

    def save(self, threshold: float, k: int, *, actor: str, settings: Settings,
             metrics: Mapping | None = None, note: str = "", authorize: Authorize | None = None) -> DefaultChange:
        """Make (threshold, k) the default; the old values are the newest save, else `settings`.

        With `authorize`, the saver's session is re-checked inside the same transaction."""
        threshold, k = validate_default(threshold, k)
        actor = (actor or "").strip()
        if not actor:
            raise ConfigError("请先填写操作人姓名，再设为默认阈值（每次修改都会记录是谁改的）。")
        if len(actor) > MAX_ACTOR_CHARS:
            raise ConfigError(f"操作人姓名有 {len(actor)} 个字，超过了 {MAX_ACTOR_CHARS} 字的上限。")
        note = (note or "").strip()
        if len(note) > MAX_NOTE_CHARS:
            raise ConfigError(f"备注有 {len(note)} 个字，超过了 {MAX_NOTE_CHARS} 字的上限。")
        payload = json.dumps(dict(metrics or {}), ensure_ascii=False, sort_keys=True, default=str)
        now = self._clock()
        with self.db.transaction("保存默认阈值", immediate=authorize is not None) as conn:
            if authorize is not None:
                authorize(conn, "set_threshold")
            # Read the old value inside the write transaction so old → new is exact even when
            # two consultants save at nearly the same time.
            last = conn.execute(select(default_changes.c.new_threshold, default_changes.c.new_k)
                                .order_by(default_changes.c.id.desc()).limit(1)).first()
            old_threshold, old_k = (last.new_threshold, last.new_k) if last else (settings.min_score, settings.top_k)
            new_id = conn.execute(default_changes.insert().values(
                at=now, actor=actor, old_threshold=old_threshold, new_threshold=threshold, old_k=old_k,
                new_k=k, metrics=payload, note=note)).inserted_primary_key[0]
        return DefaultChange(id=new_id, at=now, actor=actor, old_threshold=old_threshold, new_threshold=threshold,
                             old_k=old_k, new_k=k, metrics=json.loads(payload), note=note)


def validate_default(threshold: float, k: int) -> tuple[float, int]:
    threshold, k = round(float(threshold), 4), int(k)
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(f"阈值（{threshold}）必须在 0 到 1 之间。")
    if not 1 <= k <= MAX_TOP_K:
        raise ConfigError(f"k（{k}）必须在 1 到 {MAX_TOP_K} 之间。")
    return threshold, k


def effective_settings(settings: Settings, db: Database | None = None) -> Settings:
    """`settings` with the saved default threshold and k applied, if one was saved.

    Call it wherever settings are resolved (ui/state.get_settings, the CLI, the queue) so the
    Ask page, the CLI and batch runs all use the saved default. `db` defaults to the database
    named by `settings`. Idempotent: applying it twice gives the same result.
    """
    store = DefaultsStore(db or open_database(settings.db_url))
    saved = store.current()
    if saved is None:
        return settings
    return settings.with_defaults(min_score=saved.new_threshold, top_k=saved.new_k)


def _change(row) -> DefaultChange:
    return DefaultChange(id=row.id, at=as_utc(row.at), actor=row.actor, old_threshold=row.old_threshold,
                         new_threshold=row.new_threshold, old_k=row.old_k, new_k=row.new_k,
                         metrics=json.loads(row.metrics or "{}"), note=row.note)


def as_utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were written in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
