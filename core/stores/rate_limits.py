"""Rate limits every instance agrees on: fixed one-minute windows counted in one database row per scope.

A request increments its scopes' counters with one upsert each (INSERT … ON CONFLICT DO UPDATE … RETURNING, the
same statement on SQLite and PostgreSQL), inside the caller's transaction; over the limit, the caller rolls back
and answers 429 with the seconds left in the window. `peek` reads the counters without counting, so a request
already over a limit is refused before any work is done (the count in the write still decides). Old windows are
deleted by `prune`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from core.clock import as_utc
from core.stores.db import changed
from core.stores.exchange_schema import rate_counters

WINDOW_S = 60


@dataclass(frozen=True)
class Limit:
    """At most `per_minute` requests in one window of `scope`; `label` says whose limit it is, in Chinese."""

    scope: str
    per_minute: int
    label: str


@dataclass(frozen=True)
class Exceeded:
    """The first limit a request went over, and when to try again."""

    limit: Limit
    retry_after: int  # whole seconds, at least 1


def window_of(now: datetime) -> int:
    return int(as_utc(now).timestamp()) // WINDOW_S


def count_in(conn: Connection, limits: tuple[Limit, ...], now: datetime) -> Exceeded | None:
    """Count one request against each limit; the first one exceeded (the caller then rolls back), else None."""
    window = window_of(now)
    for limit in limits:
        if limit.per_minute <= 0:  # 0: no limit of this kind
            continue
        statement = _upsert(conn).values(scope=limit.scope, window=window, count=1)
        statement = statement.on_conflict_do_update(index_elements=[rate_counters.c.scope, rate_counters.c.window],
                                                    set_={"count": rate_counters.c.count + 1})
        count = conn.execute(statement.returning(rate_counters.c.count)).scalar_one()
        if count > limit.per_minute:
            return _exceeded(limit, window, now)
    return None


def _exceeded(limit: Limit, window: int, now: datetime) -> Exceeded:
    left = (window + 1) * WINDOW_S - as_utc(now).timestamp()
    return Exceeded(limit, max(1, int(left + 0.999)))


def peek(conn: Connection, limits: tuple[Limit, ...], now: datetime) -> Exceeded | None:
    """The first limit whose window is already used up (one more request would exceed it), else None; counts
    nothing."""
    active = [limit for limit in limits if limit.per_minute > 0]
    if not active:
        return None
    window = window_of(now)
    counts = dict(conn.execute(select(rate_counters.c.scope, rate_counters.c.count).where(
        rate_counters.c.window == window, rate_counters.c.scope.in_([limit.scope for limit in active]))).all())
    for limit in active:
        if counts.get(limit.scope, 0) >= limit.per_minute:
            return _exceeded(limit, window, now)
    return None


def prune(conn: Connection, now: datetime) -> int:
    """Delete the counters of windows that ended more than a minute ago; how many rows went."""
    return changed(conn, delete(rate_counters).where(rate_counters.c.window < window_of(now) - 1))


def _upsert(conn: Connection):
    if conn.dialect.name == "postgresql":
        return postgresql_insert(rate_counters)
    return sqlite_insert(rate_counters)
