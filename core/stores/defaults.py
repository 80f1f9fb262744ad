"""The saved default knobs of the gate: an append-only audit table whose newest row is the default.

Saving never updates a row: each save appends who, when, old → new and the metrics seen at
that moment (JSON), in one transaction, so the current default and its audit trail cannot
disagree. `effective_settings` applies the newest row on top of the environment settings;
the saved default takes precedence over XIAOE_MIN_SCORE / XIAOE_TOP_K / XIAOE_MIN_COVERAGE /
XIAOE_MAX_UNKNOWN_WEIGHT (see core/settings.py). All four knobs are saved together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Column, DateTime, Float, Integer, MetaData, String, Table, Text, inspect, select, text

from core.clock import as_utc, utcnow
from core.errors import ConfigError
from core.knobs import Knobs
from core.settings import Settings
from core.stores.db import Database, Migration, Schema, append_only, create_tables, inserted_id, open_database
from core.stores.roles import Authorize

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

DECISION_KNOBS = ("min_coverage", "max_unknown_weight")
for _name in DECISION_KNOBS:  # added by migration 2; NULL in rows saved before it
    default_changes.append_column(Column(f"old_{_name}", Float, nullable=True))
    default_changes.append_column(Column(f"new_{_name}", Float, nullable=True))


def _add_decision_knobs(conn) -> None:
    """Databases created before migration 2 lack the columns; newer ones got them from migration 1."""
    present = {c["name"] for c in inspect(conn).get_columns("default_changes")}
    for name in DECISION_KNOBS:
        for side in ("old", "new"):
            if f"{side}_{name}" not in present:
                conn.execute(text(f"ALTER TABLE default_changes ADD COLUMN {side}_{name} FLOAT"))


DEFAULTS_SCHEMA = Schema("defaults", (
    Migration(1, "saved default threshold and k, append-only",
              create_tables(default_changes)),
    Migration(2, "the two decision knobs are saved with the threshold and k", _add_decision_knobs),
    Migration(3, "append-only enforced by the database", append_only("default_changes")),
))


@dataclass(frozen=True)
class DefaultChange:
    """One save of the default: the audit record, and (for the newest) the default in force.

    The decision knobs are None in rows saved before they were saved at all (migration 2)."""

    id: int
    at: datetime
    actor: str
    old_threshold: float
    new_threshold: float
    old_k: int
    new_k: int
    metrics: dict = field(default_factory=dict)
    note: str = ""
    old_min_coverage: float | None = None
    new_min_coverage: float | None = None
    old_max_unknown_weight: float | None = None
    new_max_unknown_weight: float | None = None

    def knobs(self, base: Knobs) -> Knobs:
        """The saved knobs; a knob this row did not save keeps its value in `base`."""
        return base.with_(threshold=self.new_threshold, k=self.new_k, min_coverage=self.new_min_coverage,
                          max_unknown_weight=self.new_max_unknown_weight)

    @property
    def summary(self) -> str:
        parts = [f"阈值 {self.old_threshold:.2f} → {self.new_threshold:.2f}", f"k {self.old_k} → {self.new_k}"]
        for label, old, new, fmt in (("关键词覆盖下限", self.old_min_coverage, self.new_min_coverage, "{:.0%}"),
                                     ("资料外词权重上限", self.old_max_unknown_weight, self.new_max_unknown_weight,
                                      "{:.2f}")):
            if new is not None:
                parts.append(f"{label} {fmt.format(old) if old is not None else '—'} → {fmt.format(new)}")
        return f"{self.actor} 修改了默认值：" + "，".join(parts)


# The newest save, read on every page rerun (`DefaultsStore.current`): built once.
_NEWEST = select(default_changes).order_by(default_changes.c.id.desc()).limit(1)


class DefaultsStore:
    """The saved default on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(DEFAULTS_SCHEMA)

    def current(self) -> DefaultChange | None:
        """The newest save, or None when nobody has saved a default yet."""
        with self.db.read("读取默认阈值记录") as conn:
            row = conn.execute(_NEWEST).first()
        return _change(row) if row is not None else None

    def history(self, *, limit: int = 50) -> tuple[DefaultChange, ...]:
        """Saves, newest first."""
        with self.db.read("读取默认阈值记录") as conn:
            rows = conn.execute(select(default_changes).order_by(default_changes.c.id.desc()).limit(limit)).all()
        return tuple(_change(row) for row in rows)

    def save(self, knobs: Knobs, *, actor: str, settings: Settings, metrics: Mapping | None = None,
             note: str = "", authorize: Authorize | None = None) -> DefaultChange:
        """Make all four knobs the default together; the old values are the newest save, else `settings`.

        With `authorize`, the saver's session is re-checked inside the same transaction."""
        if not isinstance(knobs, Knobs):
            raise ConfigError("默认值必须是一组完整的闸门参数（阈值、k、关键词覆盖下限、资料外词权重上限）。")
        actor = (actor or "").strip()
        if not actor:
            raise ConfigError("请先填写操作人姓名，再设为默认值（每次修改都会记录是谁改的）。")
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
            last = conn.execute(select(default_changes).order_by(default_changes.c.id.desc()).limit(1)).first()
            old = _change(last).knobs(settings.knobs) if last else settings.knobs
            values = dict(at=now, actor=actor, old_threshold=old.threshold, new_threshold=knobs.threshold,
                          old_k=old.k, new_k=knobs.k, old_min_coverage=old.min_coverage,
                          new_min_coverage=knobs.min_coverage, old_max_unknown_weight=old.max_unknown_weight,
                          new_max_unknown_weight=knobs.max_unknown_weight, metrics=payload, note=note)
            new_id = inserted_id(conn.execute(default_changes.insert().values(**values)))
        return DefaultChange(id=new_id, **{**values, "metrics": json.loads(payload)})


@dataclass(frozen=True)
class Resolved:
    """The settings a run uses: `settings` with the saved default applied, and that save (None if never)."""

    settings: Settings
    saved: DefaultChange | None


def resolve_defaults(settings: Settings, db: Database | None = None) -> Resolved:
    """`settings` with the saved default knobs applied (one read of the newest save), and the save itself.

    The console resolves once per run (ui/state.py), each CLI command once (core.assistant.open_assistant):
    the Ask page, the CLI and batch runs all use the saved default. `db` defaults to the database named by
    `settings`. Idempotent: resolving resolved settings gives the same settings.
    """
    saved = DefaultsStore(db or open_database(settings.db_url)).current()
    return Resolved(settings if saved is None else settings.with_knobs(saved.knobs(settings.knobs)), saved)


def effective_settings(settings: Settings, db: Database | None = None) -> Settings:
    """`resolve_defaults(settings, db).settings`."""
    return resolve_defaults(settings, db).settings


def _change(row) -> DefaultChange:
    return DefaultChange(id=row.id, at=as_utc(row.at), actor=row.actor, old_threshold=row.old_threshold,
                         new_threshold=row.new_threshold, old_k=row.old_k, new_k=row.new_k,
                         metrics=json.loads(row.metrics or "{}"), note=row.note,
                         old_min_coverage=row.old_min_coverage, new_min_coverage=row.new_min_coverage,
                         old_max_unknown_weight=row.old_max_unknown_weight,
                         new_max_unknown_weight=row.new_max_unknown_weight)


