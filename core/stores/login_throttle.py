"""Sign-in throttling: failures counted and locks kept per user name and source, inside the sign-in transaction.

Three counters ("scopes") guard every password check:
- one user name from one source (the client address Streamlit reports): 5 failures lock that pair,
  so an anonymous visitor can lock a name only for themselves, never for its owner elsewhere;
- one source, whatever names it tries: 20 failures stop that source (password spraying);
- one user name from all sources together: 50 failures lock the name everywhere (a distributed
  guess); an admin lifts it with `python -m core users unlock NAME`.
The caller opens the transaction (BEGIN IMMEDIATE on SQLite) and `Guard.lock` locks the three
rows (SELECT … FOR UPDATE on PostgreSQL) before the password is checked, so concurrent attempts
queue behind each other and at most the limit of wrong passwords is ever checked in a window.
It leaves out anything a reverse proxy must do (one address for every visitor behind it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Column, Connection, DateTime, Index, Integer, MetaData, String, Table, delete, func, or_, select

from core.stores import audit
from core.stores.db import Migration, Schema, create_tables
from core.stores.roles import SYSTEM_ACTOR

MAX_FAILURES = 5
SOURCE_MAX_FAILURES = 20
ACCOUNT_MAX_FAILURES = 50
FAILURE_WINDOW = timedelta(minutes=10)
LOCK_DURATION = timedelta(minutes=10)
LOCAL_SOURCE = "本机"  # Streamlit reports no address for localhost; the CLI and the API have none either
MAX_SOURCE_CHARS = 64

metadata = MetaData()
login_guards = Table(
    "login_guards", metadata,
    Column("scope", String(200), primary_key=True),
    Column("locked_until", DateTime(timezone=True)),
)
login_guard_failures = Table(
    "login_guard_failures", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("scope", String(200), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)
Index("ix_login_guard_failures_scope", login_guard_failures.c.scope, login_guard_failures.c.at)

THROTTLE_SCHEMA = Schema("login_throttle", (
    Migration(1, "sign-in guards per user name, source and pair", create_tables(login_guards, login_guard_failures)),
))


@dataclass(frozen=True)
class Scope:
    """One counter: its row key, its limit, and the Chinese sentence a lock on it shows."""

    key: str
    limit: int
    kind: str  # "pair", "source" or "account"


def scopes(username: str, source: str | None) -> tuple[Scope, ...]:
    src = clean_source(source)
    return (Scope(f"account:{username}", ACCOUNT_MAX_FAILURES, "account"),
            Scope(f"pair:{username}|{src}", MAX_FAILURES, "pair"),
            Scope(f"source:{src}", SOURCE_MAX_FAILURES, "source"))


def clean_source(source: str | None) -> str:
    text = "".join(c for c in (source or "").strip() if c.isprintable())[:MAX_SOURCE_CHARS]
    return text or LOCAL_SOURCE


class Guard:
    """The locked counters of one sign-in attempt; use inside the caller's transaction."""

    def __init__(self, conn: Connection, username: str, source: str | None, now: datetime) -> None:
        self.conn, self.username, self.now = conn, username, now
        self.source = clean_source(source)
        self.scopes = scopes(username, source)
        keys = [s.key for s in self.scopes]
        _ensure_rows(conn, keys)
        rows = conn.execute(select(login_guards).where(login_guards.c.scope.in_(keys))
                            .order_by(login_guards.c.scope).with_for_update()).all()
        self.until = {r.scope: _utc(r.locked_until) for r in rows if r.locked_until is not None}

    def refusal(self) -> str | None:
        """The Chinese message of the first scope locked now, or None."""
        for scope in self.scopes:
            until = self.until.get(scope.key)
            if until is not None and until > self.now:
                return _message(scope, until - self.now)
        return None

    def fail(self) -> None:
        """Count one wrong password in every scope; lock (and audit) the scopes that reach their limit."""
        self.conn.execute(login_guard_failures.insert(),
                          [{"scope": s.key, "at": self.now} for s in self.scopes])
        since = self.now - FAILURE_WINDOW
        for scope in self.scopes:
            recent = self.conn.execute(select(func.count()).select_from(login_guard_failures).where(
                login_guard_failures.c.scope == scope.key, login_guard_failures.c.at > since)).scalar_one()
            if recent >= scope.limit:
                self._lock(scope)

    def _lock(self, scope: Scope) -> None:
        self.conn.execute(login_guards.update().where(login_guards.c.scope == scope.key)
                          .values(locked_until=self.now + LOCK_DURATION))
        self.conn.execute(delete(login_guard_failures).where(login_guard_failures.c.scope == scope.key))
        minutes = int(LOCK_DURATION.total_seconds() // 60)
        target = f"来源 {self.source}" if scope.kind == "source" else self.username
        detail = {"pair": f"从「{self.source}」连续 {scope.limit} 次登录失败，该来源锁定 {minutes} 分钟",
                  "source": f"该来源 {minutes} 分钟内 {scope.limit} 次登录失败，暂停从该来源登录 {minutes} 分钟",
                  "account": f"{minutes} 分钟内各处共 {scope.limit} 次登录失败，账号锁定 {minutes} 分钟"}[scope.kind]
        audit.record(None, SYSTEM_ACTOR, "login_locked", target, detail, conn=self.conn, now=lambda: self.now)

    def clear(self) -> None:
        """A correct password: forget this name's failures from this source and everywhere."""
        keys = [s.key for s in self.scopes if s.kind != "source"]  # else a spraying source resets itself
        self.conn.execute(delete(login_guard_failures).where(login_guard_failures.c.scope.in_(keys)))
        self.conn.execute(login_guards.update().where(login_guards.c.scope.in_(keys)).values(locked_until=None))


def locked_until(conn: Connection, username: str, source: str | None, now: datetime) -> datetime | None:
    """When the latest lock that stops this name from this source ends, or None."""
    keys = [s.key for s in scopes(username, source)]
    values = conn.execute(select(login_guards.c.locked_until).where(login_guards.c.scope.in_(keys))).scalars()
    live = [_utc(v) for v in values if v is not None and _utc(v) > now]
    return max(live) if live else None


def unlock(conn: Connection, username: str) -> int:
    """Lift every lock on this user name (all sources) and forget its failures; how many locks were live."""
    mine = or_(login_guards.c.scope == f"account:{username}", login_guards.c.scope.like(f"pair:{_like(username)}|%",
                                                                                     escape="\\"))
    lifted = conn.execute(login_guards.update().where(mine, login_guards.c.locked_until.is_not(None))
                          .values(locked_until=None)).rowcount
    conn.execute(delete(login_guard_failures).where(or_(
        login_guard_failures.c.scope == f"account:{username}",
        login_guard_failures.c.scope.like(f"pair:{_like(username)}|%", escape="\\"))))
    return lifted


def _ensure_rows(conn: Connection, keys: list[str]) -> None:
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    conn.execute(insert(login_guards).on_conflict_do_nothing(), [{"scope": k, "locked_until": None} for k in keys])


def _message(scope: Scope, left: timedelta) -> str:
    minutes = max(1, -(-int(left.total_seconds()) // 60))
    lock = int(LOCK_DURATION.total_seconds() // 60)
    if scope.kind == "pair":
        return (f"该账号连续 {scope.limit} 次登录失败，已锁定 {lock} 分钟，请约 {minutes} 分钟后再试；"
                "如果忘记密码，请联系管理员重设。")
    if scope.kind == "source":
        return (f"从你所在的网络地址登录失败次数过多（{lock} 分钟内 {scope.limit} 次），已暂停从这里登录，"
                f"请约 {minutes} 分钟后再试。")
    return (f"该账号 {lock} 分钟内在各处共登录失败 {scope.limit} 次，已锁定，请约 {minutes} 分钟后再试，"
            "或请管理员运行 python -m core users unlock 解除。")


def _like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
