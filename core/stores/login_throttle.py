"""Sign-in throttling: failures counted and locks kept per user name and source, around the password check.

When the client's address (the "source") is known, three counters ("scopes") guard every password check:
- one user name from one source: 5 failures lock that pair for 10 minutes, so an anonymous visitor
  can lock a name only for themselves, never for its owner elsewhere;
- one source, whatever names it tries: 20 failures stop that source (password spraying);
- one user name from all sources together: 50 failures lock the name everywhere (a distributed
  guess); an admin lifts it with `python -m core users unlock NAME`.
When the source is unknown (localhost, the CLI, the API, or a reverse proxy that is not listed in
XIAOE_TRUSTED_PROXIES) every visitor looks the same, so no lock may hang on the source: there is no
source-wide scope, and the user name from unknown sources slows down instead of locking (after 5
failures each retry waits 1, 2, 4 … up to 60 seconds), while the all-sources scope still locks at 50.
Those waits add up to at most SLOW_DOWN_WAITS per hour for one name: anyone can sit at the end of each wait
and fail once more, so a wait without a bound kept the owner out for as long as someone kept doing that.

An attempt is two short transactions around the password check, never one holding it (argon2 takes tens of
milliseconds, and on SQLite a transaction that writes holds the whole database): `Guard.admit` counts the attempt
as a failure in advance, and sets the lock or wait the attempt would bring if it is wrong, before the password is
checked; `Guard.settle` then keeps the count (wrong) or takes back the failures and the locks it set (right). So
concurrent attempts still queue on the guard rows (BEGIN IMMEDIATE on SQLite, SELECT … FOR UPDATE on
PostgreSQL) and at most the limit of wrong passwords is checked before a lock or a wait. The source behind a
trusted reverse proxy is found by core.stores.client_address.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import (
    Column,
    Connection,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    delete,
    func,
    or_,
    select,
)

from core.clock import as_utc
from core.stores import audit
from core.stores.db import Migration, Schema, changed, create_tables, dialect_insert
from core.stores.roles import SYSTEM_ACTOR

MAX_FAILURES = 5
SOURCE_MAX_FAILURES = 20
ACCOUNT_MAX_FAILURES = 50
FAILURE_WINDOW = timedelta(minutes=10)
LOCK_DURATION = timedelta(minutes=10)
SLOW_DOWN_MAX = timedelta(seconds=60)  # the longest wait between retries of one name from unknown sources
SLOW_DOWN_WAITS = 10  # at most this many waits per hour for one name from unknown sources (so ≤ 10 minutes)
SLOW_DOWN_HOUR = timedelta(hours=1)
LOCAL_SOURCE = "本机"  # the key of every unknown source (kept from the rows earlier versions wrote)
UNKNOWN_LABEL = "未知来源（本机、命令行，或未登记为可信代理的反向代理）"
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
failures_by_time = Index("ix_login_guard_failures_at", login_guard_failures.c.at)


def _index_failure_times(conn: Connection) -> None:
    failures_by_time.create(conn, checkfirst=True)


THROTTLE_SCHEMA = Schema("login_throttle", (
    Migration(1, "sign-in guards per user name, source and pair", create_tables(login_guards, login_guard_failures)),
    Migration(2, "failures by time, for purging the ones past the window", _index_failure_times),
))


@dataclass(frozen=True)
class Scope:
    """One counter: its row key, its limit, and what reaching it does."""

    key: str
    limit: int
    kind: str  # "pair", "source", "account", or "slow" (a name from unknown sources: waits, never locks)


@dataclass(frozen=True)
class Lock:
    """An active lock (or wait), for `users unlock --list`."""

    kind: str
    username: str | None
    source: str | None
    until: datetime

    @property
    def description(self) -> str:
        source = UNKNOWN_LABEL if self.source == LOCAL_SOURCE else self.source
        return {"pair": f"用户名「{self.username}」从 {source}",
                "slow": f"用户名「{self.username}」从{source}（重试等待）",
                "source": f"来源 {source} 的所有登录",
                "account": f"用户名「{self.username}」（各处）"}[self.kind]


def scopes(username: str, source: str | None) -> tuple[Scope, ...]:
    src = clean_source(source)
    if src == LOCAL_SOURCE:  # unknown: one source for every visitor, so nothing may lock on it
        return (Scope(f"account:{username}", ACCOUNT_MAX_FAILURES, "account"),
                Scope(f"pair:{username}|{src}", MAX_FAILURES, "slow"))
    return (Scope(f"account:{username}", ACCOUNT_MAX_FAILURES, "account"),
            Scope(f"pair:{username}|{src}", MAX_FAILURES, "pair"),
            Scope(f"source:{src}", SOURCE_MAX_FAILURES, "source"))


@dataclass(frozen=True)
class Ticket:
    """One admitted attempt, already counted as a failure: its failure rows, the locks it set in advance (scope key →
    until), the audit lines that go with them if the password is wrong, and what a wrong password is told next."""

    failures: tuple[tuple[str, int], ...]  # (scope key, failure row id)
    locks: tuple[tuple[str, datetime], ...] = field(default=())
    audits: tuple[tuple[str, str], ...] = field(default=())  # (target, detail) of login_locked lines
    next_step: str = ""


def clean_source(source: str | None) -> str:
    text = "".join(c for c in (source or "").strip() if c.isprintable() and c != "|")[:MAX_SOURCE_CHARS]
    return text or LOCAL_SOURCE


# --- one sign-in attempt -----------------------------------------------------------------------------

class Guard:
    """The locked counters of one sign-in attempt; use inside the caller's transaction."""

    def __init__(self, conn: Connection, username: str, source: str | None, now: datetime) -> None:
        self.conn, self.username, self.now = conn, username, now
        self.source = clean_source(source)
        self.scopes = scopes(username, source)
        keys = [s.key for s in self.scopes]
        for _ in range(3):  # a purge in another transaction may delete an idle row between the two statements
            _ensure_rows(conn, keys)
            rows = conn.execute(select(login_guards).where(login_guards.c.scope.in_(keys))
                                .order_by(login_guards.c.scope).with_for_update()).all()
            if len(rows) == len(keys):
                break
        self.until = {r.scope: as_utc(r.locked_until) for r in rows if r.locked_until is not None}

    def refusal(self) -> str | None:
        """The Chinese message of the first scope locked now, or None."""
        for scope in self.scopes:
            until = self.until.get(scope.key)
            if until is not None and until > self.now:
                return _message(scope, until - self.now)
        return None

    def admit(self) -> Ticket:
        """Count this attempt as a failure in every scope before its password is checked, and set now the lock (or
        wait) a wrong password would bring: attempts queued behind this one are refused at once, so however many
        arrive together at most the limit of wrong passwords is checked. `settle` takes it back if the password is
        right. The next-step message is the same for a name that exists and one that does not."""
        failures = tuple((scope.key, self.conn.execute(login_guard_failures.insert().values(
            scope=scope.key, at=self.now).returning(login_guard_failures.c.id)).scalar_one()) for scope in self.scopes)
        left: dict[str, int] = {}
        locks, audits = [], []
        spent = False
        for scope in self.scopes:
            recent = self._count(scope.key, self.now - FAILURE_WINDOW)
            if scope.kind == "slow":
                waits = self._count(scope.key, self.now - SLOW_DOWN_HOUR) - scope.limit  # waits already this hour
                spent = waits >= SLOW_DOWN_WAITS
                if recent >= scope.limit and not spent:
                    until = self.now + slow_down_wait(recent)
                    locks.append((scope.key, until))
                    self._set(scope.key, until)
                    if recent == scope.limit:  # once per run of failures, not on every retry
                        audits.append((self.username, f"从{UNKNOWN_LABEL}连续 {scope.limit} 次登录失败，之后每次重试需等待"
                                                      f"（最长 {int(SLOW_DOWN_MAX.total_seconds())} 秒，"
                                                      f"一小时内最多等 {SLOW_DOWN_WAITS} 次）"))
                if waits == SLOW_DOWN_WAITS:
                    audits.append((self.username, f"从{UNKNOWN_LABEL}一小时内的重试等待已满 {SLOW_DOWN_WAITS} 次，"
                                                  "之后不再等待（各处合计 10 分钟内失败 "
                                                  f"{ACCOUNT_MAX_FAILURES} 次仍会锁定账号）"))
            elif recent >= scope.limit:
                until = self.now + LOCK_DURATION
                locks.append((scope.key, until))
                self._set(scope.key, until)
                self.conn.execute(delete(login_guard_failures).where(login_guard_failures.c.scope == scope.key))
                audits.append(self._lock_line(scope))
            left[scope.kind] = max(0, scope.limit - recent)
        return Ticket(failures, tuple(locks), tuple(audits), _next_step(left, waits_spent=spent))

    def settle(self, ticket: Ticket, *, right: bool) -> None:
        """After the password check, in a new transaction holding the guard rows again: a wrong password keeps the
        failure and records the locks it brought; a right one forgets this name's failures from this source and
        everywhere (as `clear`), its own failure on the source, and lifts the locks it set in advance."""
        if not right:
            for target, detail in ticket.audits:
                audit.record(None, SYSTEM_ACTOR, "login_locked", target, detail, conn=self.conn, now=lambda: self.now)
            return
        self.clear()
        mine = [row_id for key, row_id in ticket.failures if key.startswith("source:")]
        if mine:
            self.conn.execute(delete(login_guard_failures).where(login_guard_failures.c.id.in_(mine)))
        for key, until in ticket.locks:  # only a lock this attempt set (another one may have come since)
            self.conn.execute(login_guards.update().where(login_guards.c.scope == key,
                                                          login_guards.c.locked_until == until)
                              .values(locked_until=None))

    def _count(self, key: str, since: datetime) -> int:
        return self.conn.execute(select(func.count()).select_from(login_guard_failures).where(
            login_guard_failures.c.scope == key, login_guard_failures.c.at > since)).scalar_one()

    def _set(self, key: str, until: datetime) -> None:
        self.conn.execute(login_guards.update().where(login_guards.c.scope == key).values(locked_until=until))

    def _lock_line(self, scope: Scope) -> tuple[str, str]:
        minutes = int(LOCK_DURATION.total_seconds() // 60)
        target = f"来源 {self.source}" if scope.kind == "source" else self.username
        detail = {"pair": f"从「{self.source}」连续 {scope.limit} 次登录失败，该来源锁定 {minutes} 分钟",
                  "source": f"该来源 {minutes} 分钟内 {scope.limit} 次登录失败，暂停从该来源登录 {minutes} 分钟",
                  "account": f"{minutes} 分钟内各处共 {scope.limit} 次登录失败，账号锁定 {minutes} 分钟"}[scope.kind]
        return target, detail

    def clear(self) -> None:
        """A correct password: forget this name's failures from this source and everywhere."""
        keys = [s.key for s in self.scopes if s.kind != "source"]  # else a spraying source resets itself
        self.conn.execute(delete(login_guard_failures).where(login_guard_failures.c.scope.in_(keys)))
        self.conn.execute(login_guards.update().where(login_guards.c.scope.in_(keys)).values(locked_until=None))


def slow_down_wait(failures: int) -> timedelta:
    """The wait after the `failures`-th failure of a name from unknown sources: 1 s at the limit, doubling, capped."""
    return min(timedelta(seconds=2 ** max(0, failures - MAX_FAILURES)), SLOW_DOWN_MAX)


# --- reading and lifting locks -------------------------------------------------------------------------

def locked_until(conn: Connection, username: str, source: str | None, now: datetime) -> datetime | None:
    """When the latest lock that stops this name from this source ends, or None."""
    keys = [s.key for s in scopes(username, source)]
    values = conn.execute(select(login_guards.c.locked_until).where(login_guards.c.scope.in_(keys))).scalars()
    live = [as_utc(v) for v in values if v is not None and as_utc(v) > now]
    return max(live) if live else None


def active_locks(conn: Connection, now: datetime) -> tuple[Lock, ...]:
    """Every lock (or wait) in force now, soonest to end last."""
    rows = conn.execute(select(login_guards).where(login_guards.c.locked_until.is_not(None))).all()
    locks = [_as_lock(r.scope, as_utc(r.locked_until)) for r in rows if as_utc(r.locked_until) > now]
    return tuple(sorted(locks, key=lambda lock: (lock.until, lock.kind, lock.username or "", lock.source or ""),
                        reverse=True))


def unlock(conn: Connection, username: str) -> int:
    """Lift every lock on this user name (all sources) and forget its failures; how many locks were live."""
    mine = or_(login_guards.c.scope == f"account:{username}", login_guards.c.scope.like(f"pair:{_like(username)}|%",
                                                                                     escape="\\"))
    lifted = changed(conn, login_guards.update().where(mine, login_guards.c.locked_until.is_not(None))
                     .values(locked_until=None))
    conn.execute(delete(login_guard_failures).where(or_(
        login_guard_failures.c.scope == f"account:{username}",
        login_guard_failures.c.scope.like(f"pair:{_like(username)}|%", escape="\\"))))
    return lifted


def unlock_source(conn: Connection, source: str | None) -> int:
    """Lift the lock on a source and on every name from it, and forget their failures; how many locks were live."""
    src = clean_source(source)
    theirs = or_(login_guards.c.scope == f"source:{src}", login_guards.c.scope.like(f"pair:%|{_like(src)}",
                                                                                  escape="\\"))
    lifted = changed(conn, login_guards.update().where(theirs, login_guards.c.locked_until.is_not(None))
                     .values(locked_until=None))
    conn.execute(delete(login_guard_failures).where(or_(
        login_guard_failures.c.scope == f"source:{src}",
        login_guard_failures.c.scope.like(f"pair:%|{_like(src)}", escape="\\"))))
    return lifted


def purge(conn: Connection, now: datetime) -> None:
    """Forget failures older than the window and idle counters, so sprayed random names do not pile up.

    Rows another sign-in holds are skipped (SKIP LOCKED on PostgreSQL; SQLite's write lock serialises
    anyway), so the purge never waits on, or deadlocks with, a sign-in; `Guard` recreates a row it finds gone.
    """
    # A name's failures from unknown sources are kept an hour: they bound its waits per hour (SLOW_DOWN_WAITS).
    unknown = login_guard_failures.c.scope.like(f"pair:%|{LOCAL_SOURCE}")
    conn.execute(delete(login_guard_failures).where(or_(
        login_guard_failures.c.at <= now - SLOW_DOWN_HOUR,
        and_(login_guard_failures.c.at <= now - FAILURE_WINDOW, ~unknown))))
    idle = (select(login_guards.c.scope)
            .where(or_(login_guards.c.locked_until.is_(None), login_guards.c.locked_until <= now),
                   login_guards.c.scope.not_in(select(login_guard_failures.c.scope).distinct()))
            .with_for_update(skip_locked=True))
    conn.execute(delete(login_guards).where(login_guards.c.scope.in_(idle.scalar_subquery())))


def _as_lock(scope: str, until: datetime) -> Lock:
    kind, _, rest = scope.partition(":")
    if kind == "source":
        return Lock("source", None, rest, until)
    if kind == "account":
        return Lock("account", rest, None, until)
    name, _, source = rest.rpartition("|")
    return Lock("slow" if source == LOCAL_SOURCE else "pair", name, source, until)


def _ensure_rows(conn: Connection, keys: list[str]) -> None:
    conn.execute(dialect_insert(conn, login_guards).on_conflict_do_nothing(),
                 [{"scope": k, "locked_until": None} for k in keys])


def _message(scope: Scope, left: timedelta) -> str:
    minutes = max(1, -(-int(left.total_seconds()) // 60))
    lock = int(LOCK_DURATION.total_seconds() // 60)
    if scope.kind == "slow":
        seconds = max(1, -(-int(left.total_seconds() * 1000) // 1000))
        return (f"这个用户名登录失败次数过多，请约 {seconds} 秒后再试（每多错一次，等待时间加倍，最长 "
                f"{int(SLOW_DOWN_MAX.total_seconds())} 秒）；如果忘记密码，请联系管理员重设。")
    if scope.kind == "pair":
        return (f"该账号连续 {scope.limit} 次登录失败，已锁定 {lock} 分钟，请约 {minutes} 分钟后再试；"
                "如果忘记密码，请联系管理员重设。")
    if scope.kind == "source":
        return (f"从你所在的网络地址登录失败次数过多（{lock} 分钟内 {scope.limit} 次），已暂停从这里登录，"
                f"请约 {minutes} 分钟后再试。")
    return (f"该账号 {lock} 分钟内在各处共登录失败 {scope.limit} 次，已锁定，请约 {minutes} 分钟后再试，"
            "或请管理员运行 python -m core users unlock 解除。")


def _next_step(left: dict[str, int], *, waits_spent: bool = False) -> str:
    """After a wrong password: what the next failures will do (the pair's or the source's lock, whichever comes first).

    The all-sources count is left out unless it just locked: it also counts other people's failures on
    this name, and saying it would hint that somebody else is using (or guessing) the name.
    """
    lock = int(LOCK_DURATION.total_seconds() // 60)
    if left.get("account") == 0:
        return f"这个用户名在各处登录失败太多次，已锁定 {lock} 分钟；请联系管理员解除。"
    if "slow" in left:
        if waits_spent:
            return (f"这个用户名一小时内从本机或未知来源输错太多次；不用再等，但各处合计 10 分钟内输错 {ACCOUNT_MAX_FAILURES} 次"
                    f"会锁定账号 {lock} 分钟。如果忘记密码，请联系管理员重设。")
        if left["slow"] == 0:
            return "输错次数过多：之后每次重试都要等几秒（每多错一次，等待时间加倍）。"
        return f"再输错 {left['slow']} 次后，每次重试都要等几秒。"
    pair, source = left.get("pair", MAX_FAILURES), left.get("source", SOURCE_MAX_FAILURES)
    if pair == 0:
        return f"已连续输错 {MAX_FAILURES} 次，这个用户名从你这里锁定 {lock} 分钟；如果忘记密码，请联系管理员重设。"
    if source == 0:
        return f"从你所在的网络地址输错太多次，已暂停从这里登录 {lock} 分钟。"
    if source < pair:
        return f"从你所在的网络地址再输错 {source} 次，将暂停从这里登录 {lock} 分钟。"
    return f"再输错 {pair} 次，这个用户名将从你这里锁定 {lock} 分钟。"


def _like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
