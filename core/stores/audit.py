"""An append-only audit log: who did what to which thing, and when (accounts, threshold, corpus).

Any store can write to it with `record(...)`, inside its own transaction when it passes `conn`,
so that the change and its audit line commit or roll back together. The log never holds a
secret: callers pass a short Chinese detail, never a password, key or token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, Connection, DateTime, Index, Integer, MetaData, String, Table, Text, select

from core.clock import utcnow
from core.errors import StoreError
from core.stores.db import Database, Migration, Schema, append_only, create_tables

MAX_ACTOR_CHARS = 200
MAX_ACTION_CHARS = 64
MAX_TARGET_CHARS = 500
MAX_DETAIL_CHARS = 2000

metadata = MetaData()
audit_log = Table(
    "audit_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(MAX_ACTOR_CHARS), nullable=False),
    Column("action", String(MAX_ACTION_CHARS), nullable=False),
    Column("target", String(MAX_TARGET_CHARS), nullable=False),
    Column("detail", Text, nullable=False),
)
Index("ix_audit_log_action", audit_log.c.action, audit_log.c.id)
Index("ix_audit_log_target", audit_log.c.target, audit_log.c.id)


AUDIT_SCHEMA = Schema("audit", (
    Migration(1, "audit log table", create_tables(audit_log)),
    Migration(2, "append-only audit log", append_only("audit_log")),
    Migration(3, "append-only also against replacing inserts and TRUNCATE", append_only("audit_log")),
))


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit log; `at` is UTC."""

    id: int
    at: datetime
    actor: str
    action: str
    target: str
    detail: str


def ensure(db: Database) -> None:
    """Create the audit table if needed. Call it before opening a transaction that records."""
    db.migrate(AUDIT_SCHEMA)


def record(db: Database | None, actor: str, action: str, target: str, detail: str = "", *,
           conn: Connection | None = None, now: Callable[[], datetime] = utcnow) -> None:
    """Append one line. With `conn`, it joins that transaction (call `ensure(db)` beforehand; `db` may then be None);
    without, it needs `db`."""
    values = _values(actor, action, target, detail, now())
    if conn is not None:
        conn.execute(audit_log.insert().values(**values))
        return
    assert db is not None, "audit.record needs a database or a connection"
    ensure(db)
    with db.transaction("写入操作记录") as own:
        own.execute(audit_log.insert().values(**values))


@dataclass(frozen=True)
class LoginSummary:
    """Sign-ins of one person: how many in the lines read, and the first and last of them (UTC)."""

    actor: str
    count: int
    first: datetime
    last: datetime


def recent(db: Database, *, limit: int = 100, action: str | None = None, actor: str | None = None,
           target: str | None = None, exclude: tuple[str, ...] = ()) -> tuple[AuditEntry, ...]:
    """The newest lines first, optionally only one action, actor or target, or without some actions."""
    ensure(db)
    query = select(audit_log).order_by(audit_log.c.id.desc()).limit(max(limit, 0))
    if action is not None:
        query = query.where(audit_log.c.action == action)
    if exclude:
        query = query.where(audit_log.c.action.not_in(exclude))
    if actor is not None:
        query = query.where(audit_log.c.actor == actor)
    if target is not None:
        query = query.where(audit_log.c.target == target)
    with db.read("读取操作记录") as conn:
        rows = conn.execute(query).all()
    return tuple(AuditEntry(id=r.id, at=_aware(r.at), actor=r.actor, action=r.action, target=r.target,
                            detail=r.detail) for r in rows)


def login_summary(db: Database, *, limit: int = 5000) -> tuple[LoginSummary, ...]:
    """Sign-ins per person over the newest `limit` login lines, most recent first: a login is a
    summary line, not one line per sign-in flooding the audit view."""
    summary: dict[str, LoginSummary] = {}
    for entry in recent(db, limit=limit, action="login"):
        seen = summary.get(entry.actor)
        summary[entry.actor] = (LoginSummary(entry.actor, 1, entry.at, entry.at) if seen is None else
                                LoginSummary(entry.actor, seen.count + 1, entry.at, seen.last))
    return tuple(summary.values())


def _values(actor: str, action: str, target: str, detail: str, at: datetime) -> dict:
    actor, action = (actor or "").strip(), (action or "").strip()
    if not actor or not action:
        raise StoreError("操作记录缺少操作人或操作名称，无法保存（这是程序错误，请联系维护人员）。")
    at = at.astimezone(UTC) if at.tzinfo else at  # SQLite drops the offset: store UTC
    return {"at": at, "actor": actor[:MAX_ACTOR_CHARS], "action": action[:MAX_ACTION_CHARS],
            "target": (target or "")[:MAX_TARGET_CHARS], "detail": (detail or "")[:MAX_DETAIL_CHARS]}


def _aware(value: datetime) -> datetime:
    """SQLite gives back naive datetimes; everything stored is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
