"""The `sessions` table and the two writes every account change needs: end an account's sessions, purge old rows.

Kept apart from core.stores.sessions (sign-in, resume) so that core.stores.accounts can end the
sessions of an account in the same transaction that resets its password, lowers its role or
disables it: a stolen cookie must not outlive the usual fix for a stolen account. A row is one
session; `end_reason` says why it ended, which the other tabs of that browser are then told.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Column, Connection, DateTime, Index, Integer, MetaData, String, Table, delete, or_, select

from core.stores.db import Migration, Schema, changed, create_tables

# How long an ended or expired row is kept, so a tab still holding its token hears why it ended.
KEEP_ENDED = timedelta(days=1)

metadata = MetaData()
# login_failures and login_locks are migration 1's; sign-in throttling now lives in core/stores/login_throttle.py.
login_failures = Table(
    "login_failures", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(64), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)
Index("ix_login_failures_username", login_failures.c.username, login_failures.c.at)
login_locks = Table(
    "login_locks", metadata,
    Column("username", String(64), primary_key=True),
    Column("locked_until", DateTime(timezone=True), nullable=False),
)
sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("username", String(64), nullable=False),
    Column("method", String(16), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("last_seen", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True)),
    Column("end_reason", String(16)),
)
Index("ix_sessions_username", sessions.c.username)
by_last_seen = Index("ix_sessions_last_seen", sessions.c.last_seen)


def _index_last_seen(conn: Connection) -> None:
    by_last_seen.create(conn, checkfirst=True)


SESSIONS_SCHEMA = Schema("sessions", (
    Migration(1, "login failures, locks and sessions", create_tables(login_failures, login_locks, sessions)),
    Migration(2, "sessions by last activity, for purging old rows", _index_last_seen),
))

# end_reason -> what a tab still holding the token is told on its next action (Chinese).
END_MESSAGES = {
    "disabled": "你的账号已被停用或删除，已自动退出；如有疑问请联系管理员。",
    "password": "你的密码已被重设，为了安全，这个账号的所有登录都已退出，请用新密码重新登录。",
    "role": "你的角色已被管理员调整，为了安全已退出，请重新登录。",
}


def end_sessions(conn: Connection, username: str, reason: str, now: datetime) -> int:
    """End every live session of `username` inside the caller's transaction; how many were live."""
    return changed(conn, sessions.update().where(sessions.c.username == username, sessions.c.ended_at.is_(None))
                   .values(ended_at=now, end_reason=reason))


def purge(conn: Connection, now: datetime, *, idle_limit: timedelta, absolute_limit: timedelta) -> int:
    """Delete rows ended, idle past the limit or past the absolute lifetime more than a day ago; how many.

    Rows another transaction holds are skipped (SKIP LOCKED on PostgreSQL), so this never waits.
    """
    old = now - KEEP_ENDED
    stale = (select(sessions.c.token_hash)
             .where(or_(sessions.c.ended_at <= old, sessions.c.last_seen <= old - idle_limit,
                        sessions.c.started_at <= old - absolute_limit))
             .with_for_update(skip_locked=True))
    return changed(conn, delete(sessions).where(sessions.c.token_hash.in_(stale.scalar_subquery())))
