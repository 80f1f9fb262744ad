"""Signing in and out: password and SSO sign-in, lockout after repeated failures, idle and absolute expiry.

A session is a random token; the database keeps only its sha256, so a copied database file
cannot be used to sign in. The page keeps the token in its session state and calls `resume`
on every rerun, which also notices idle time, the absolute lifetime, disabled accounts and role
changes; `guard` re-checks the session inside the transaction of every state-changing call. A
password reset, a lower role and a disable end the account's sessions at once (core.stores.accounts,
through core.stores.session_rows). Failures are counted per typed user name (known or not, so a lock
does not tell which names exist) and source, in core/stores/login_throttle.py; a disabled account
answers exactly as a wrong password does. Time comes from the injected `now`, so tests can move the clock.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, bindparam, select

from core.clock import as_utc, utcnow
from core.errors import AccountLocked, AuthError, SessionExpired
from core.stores import audit, login_throttle, session_rows
from core.stores.accounts import AccountStore, User, normalize_username
from core.stores.accounts import accounts as account_rows
from core.stores.login_throttle import (  # noqa: F401 - re-exported
    FAILURE_WINDOW,
    LOCK_DURATION,
    MAX_FAILURES,
    THROTTLE_SCHEMA,
    Guard,
    Lock,
)
from core.stores.roles import (
    SYSTEM_ACTOR,  # noqa: F401 - re-exported for the queue's readers
    Authorize,
    require,
)
from core.stores.session_rows import SESSIONS_SCHEMA, login_failures, login_locks, sessions  # noqa: F401 - re-exported

IDLE_LIMIT = timedelta(hours=8)
ABSOLUTE_LIMIT = timedelta(days=7)  # XIAOE_SESSION_MAX_HOURS; the page passes the setting
TOUCH_EVERY = timedelta(minutes=1)  # write last_seen at most this often, not on every rerun
PURGE_EVERY = timedelta(minutes=10)  # delete old session and throttle rows at most this often per process

BAD_CREDENTIALS = "用户名或密码不正确，请重新输入。"






@dataclass(frozen=True)
class Session:
    """A signed-in session: who, since when, last seen when; `token` is the bearer secret."""

    token: str = field(repr=False)
    user: User
    method: str
    started_at: datetime
    last_seen: datetime


# The session with its account, read on every page rerun: built once (building and keying a statement costs more
# than running this one).
_RESUME = (select(sessions, account_rows.c.display_name, account_rows.c.role, account_rows.c.disabled,
                  account_rows.c.id.label("account_id"))
           .select_from(sessions.outerjoin(account_rows, account_rows.c.username == sessions.c.username))
           .where(sessions.c.token_hash == bindparam("digest")))


class SessionStore:
    """Sign-in, resume and sign-out on the accounts' database."""

    def __init__(self, accounts: AccountStore, *, now: Callable[[], datetime] = utcnow,
                 idle_limit: timedelta = IDLE_LIMIT, absolute_limit: timedelta = ABSOLUTE_LIMIT) -> None:
        self.accounts = accounts
        self.db = accounts.db
        self._now = lambda: _utc(now())
        self.idle_limit = idle_limit
        self.absolute_limit = absolute_limit
        self._purged_at: datetime | None = None
        self.db.migrate(SESSIONS_SCHEMA)
        self.db.migrate(THROTTLE_SCHEMA)

    # --- signing in --------------------------------------------------------------------------

    def sign_in(self, username: str, password: str, *, source: str | None = None) -> Session:
        """A new session for a correct password; AuthError with one message for every bad pair.

        Two short transactions around the password check, each holding the throttle rows
        (core/stores/login_throttle.py): the first refuses a locked name or source, or counts the attempt as a
        failure in advance and reads the stored hash; argon2 then runs with no transaction open, so on SQLite a
        sign-in never holds the database's write lock while it hashes (staff writes waited behind anonymous
        attempts and failed); the second keeps the failure, or takes it back and opens the session if the
        password is right and the account unchanged. Parallel attempts still cannot get past a lock.
        `source` is the client address (None when unknown: localhost, the CLI, the API, an unlisted proxy).
        A disabled account is refused with the wrong-password message and counted as a failure whether or not
        the password was right, so neither the answer nor the lock tells that the password was right; the audit
        log records the attempt for the admins.
        """
        key = normalize_username(username)[:64]
        if not isinstance(password, str) or not key or not password:
            raise AuthError("请输入用户名和密码。")
        now = self._now()
        with self.db.transaction("登录", immediate=True) as conn:
            guard = Guard(conn, key, source, now)
            refusal = guard.refusal()
            if refusal is None:
                ticket = guard.admit()
                found = self.accounts.credentials(conn, key)
        if refusal is not None:
            self._purge_if_due(now)
            raise AccountLocked(refusal)
        stored = found[1] if found else None
        right = self.accounts.password_matches(stored, password)
        rehashed = self.accounts.rehashed(stored, password) if right and stored else None
        token = secrets.token_urlsafe(32)
        with self.db.transaction("登录", immediate=True) as conn:
            guard = Guard(conn, key, source, now)
            current = self.accounts.credentials(conn, key)  # disabled or given a new password meanwhile?
            account, current_hash = current if current else (None, None)
            if account is not None and account.disabled:
                audit.record(self.db, SYSTEM_ACTOR, "login_disabled", key,
                             f"已停用的账号尝试登录（密码{'正确' if right else '错误'}），已按密码错误拒绝",
                             conn=conn, now=lambda: now)
            signed_in = right and account is not None and not account.disabled and current_hash == stored
            guard.settle(ticket, right=signed_in)
            user = None
            if signed_in:
                assert account is not None and stored is not None  # a live account whose stored hash matched
                if rehashed is not None:
                    self.accounts.store_rehash(conn, key, stored, rehashed)
                user = account.user
                self._open(conn, token, user, "password", now)
        self._purge_if_due(now)
        if user is None:  # not signed in
            raise AuthError(BAD_CREDENTIALS + ticket.next_step)
        return Session(token=token, user=user, method="password", started_at=now, last_seen=now)

    def sign_in_sso(self, email: str, *, email_verified: bool | None = None) -> Session:
        """A session for the local account matching an SSO identity (email or user name).

        The identity provider has verified who this is, so a disabled account may say so here.
        """
        if not email:
            raise AuthError("单位账号没有提供邮箱，无法对应到小E 账号，请改用用户名和密码登录或联系管理员。")
        if email_verified is False:
            raise AuthError(f"单位账号的邮箱「{email}」尚未验证，不能用来登录小E，请先在单位账号里完成验证。")
        account = self.accounts.find_by_email(email)
        if account is None:
            raise AuthError(f"单位账号「{email}」在小E 中没有对应的账号。请管理员先为你新建一个用户名或邮箱为"
                            "该地址的账号，然后再试；也可以改用用户名和密码登录。")
        if account.disabled:
            raise AuthError("该账号已被停用，请联系管理员。")
        return self._start(account.user, "sso")

    def _start(self, user: User, method: str) -> Session:
        token, now = secrets.token_urlsafe(32), self._now()
        with self.db.transaction("登录") as conn:
            self._open(conn, token, user, method, now)
        self._purge_if_due(now)
        return Session(token=token, user=user, method=method, started_at=now, last_seen=now)

    def _open(self, conn, token: str, user: User, method: str, now: datetime) -> None:
        conn.execute(sessions.insert().values(token_hash=_digest(token), username=user.username,
                                              method=method, started_at=now, last_seen=now))
        self.accounts.mark_login(user.username, conn)
        audit.record(self.db, user.username, "login", user.username,
                     "单位账号登录" if method == "sso" else "密码登录", conn=conn, now=lambda: now)

    def _purge_if_due(self, now: datetime) -> None:
        """Delete old session rows and idle throttle rows, at most every PURGE_EVERY, in a transaction of its own."""
        if self._purged_at is not None and now - self._purged_at < PURGE_EVERY:
            return
        self._purged_at = now
        with self.db.transaction("清理过期的登录记录") as conn:
            session_rows.purge(conn, now, idle_limit=self.idle_limit, absolute_limit=self.absolute_limit)
            login_throttle.purge(conn, now)

    # --- lockout -----------------------------------------------------------------------------

    def locked_until(self, username: str, *, source: str | None = None) -> datetime | None:
        """When the lock that stops this user name from `source` ends, or None if it is not locked now."""
        with self.db.read("读取登录状态") as conn:
            return login_throttle.locked_until(conn, normalize_username(username)[:64], source, self._now())

    def locks(self) -> tuple[Lock, ...]:
        """Every sign-in lock (or wait) in force now, on names and on sources."""
        with self.db.read("读取登录锁定") as conn:
            return login_throttle.active_locks(conn, self._now())

    def unlock(self, username: str, *, actor: str, authorize: Authorize | None = None) -> None:
        """Lift every lock on this user name, from every source, and forget its failures."""
        key = normalize_username(username)[:64]
        with self.db.transaction("解除锁定", immediate=authorize is not None) as conn:
            if authorize is not None:
                authorize(conn, "manage_accounts")
            if login_throttle.unlock(conn, key):
                audit.record(self.db, actor, "login_unlock", key, "解除登录锁定", conn=conn, now=self._now)

    def reset_password(self, username: str, password: str, *, actor: str,
                       authorize: Authorize | None = None) -> None:
        """A new password, every session of the account ended and every lock on its name lifted, in one transaction."""
        def lift(conn: Connection, key: str) -> None:
            if login_throttle.unlock(conn, key):
                audit.record(self.db, actor, "login_unlock", key, "重设密码时解除登录锁定", conn=conn, now=self._now)

        self.accounts.set_password(username, password, actor=actor, authorize=authorize, also=lift)

    def unlock_source(self, source: str, *, actor: str, authorize: Authorize | None = None) -> int:
        """Lift the lock on a source (an address, or unknown sources) and on every name from it; how many."""
        source = (source or "").strip()
        with self.db.transaction("解除锁定", immediate=authorize is not None) as conn:
            if authorize is not None:
                authorize(conn, "manage_accounts")
            lifted = login_throttle.unlock_source(conn, source or None)
            if lifted:
                audit.record(self.db, actor, "login_unlock", f"来源 {login_throttle.clean_source(source)}",
                             f"解除来源的登录锁定（{lifted} 项）", conn=conn, now=self._now)
        return lifted

    # --- resuming and ending -----------------------------------------------------------------

    def resume(self, token: str) -> Session:
        """The live session for `token`, with the account's current name and role; else SessionExpired.

        One query reads the session with its account (the page calls this on every rerun).
        """
        now = self._now()
        with self.db.read("读取登录状态") as conn:
            row = conn.execute(_RESUME, {"digest": _digest(token or "")}).first()
        if row is None:
            raise SessionExpired("登录已失效，请重新登录。")
        if row.ended_at is not None:  # ended by an account change, a sign-out elsewhere, or earlier expiry
            raise SessionExpired(session_rows.END_MESSAGES.get(row.end_reason or "", "登录已失效，请重新登录。"))
        expired = self._expired(row, now)
        if expired:
            reason, message = expired
            self._end(row.token_hash, reason)
            raise SessionExpired(message)
        if row.account_id is None or row.disabled:
            self._end(row.token_hash, "disabled")
            raise SessionExpired(session_rows.END_MESSAGES["disabled"])
        last_seen = as_utc(row.last_seen)
        if now - last_seen >= TOUCH_EVERY:
            with self.db.transaction("更新登录状态") as conn:
                conn.execute(sessions.update().where(sessions.c.token_hash == row.token_hash).values(last_seen=now))
            last_seen = now
        user = User(username=row.username, display_name=row.display_name, role=row.role)
        return Session(token=token, user=user, method=row.method, started_at=as_utc(row.started_at),
                       last_seen=last_seen)

    def _expired(self, row, now: datetime) -> tuple[str, str] | None:
        """(end reason, Chinese message) when the session is idle past the limit or older than its lifetime."""
        if now - as_utc(row.started_at) > self.absolute_limit:
            return "expired", (f"这次登录已超过 {_span(self.absolute_limit)}（登录的最长有效期），为了安全已自动退出，"
                               "请重新登录。")
        if now - as_utc(row.last_seen) > self.idle_limit:
            return "idle", f"你已超过 {_span(self.idle_limit)}没有操作，为了安全已自动退出，请重新登录。"
        return None

    def guard(self, token: str) -> Authorize:
        """A check for `token` to run first inside a state-changing transaction (see core.stores.roles.Authorize).

        It reads the session and the account in that transaction, locking both rows against a
        concurrent disable (FOR SHARE on PostgreSQL; the caller's BEGIN IMMEDIATE on SQLite), so
        a session disabled, idle past the limit, past its lifetime or signed out before the change
        commits cannot make it. It writes nothing: `resume` on the next rerun ends the session and says why.
        """
        digest = _digest(token or "")

        def check(conn: Connection, permission: str) -> User:
            row = conn.execute(select(sessions).where(sessions.c.token_hash == digest)
                               .with_for_update(read=True)).first()
            if row is None or row.ended_at is not None:
                raise SessionExpired("登录已失效，这次操作没有保存，请重新登录。")
            expired = self._expired(row, self._now())
            if expired:
                raise SessionExpired(expired[1].replace("请重新登录", "这次操作没有保存，请重新登录"))
            account = conn.execute(select(account_rows).where(account_rows.c.username == row.username)
                                   .with_for_update(read=True)).first()
            if account is None or account.disabled:
                raise SessionExpired("你的账号已被停用或删除，这次操作没有保存；如有疑问请联系管理员。")
            return require(User(username=account.username, display_name=account.display_name, role=account.role),
                           permission)

        return check

    def sign_out(self, token: str) -> None:
        self._end(_digest(token or ""), "signed_out")

    def _end(self, token_hash: str, reason: str) -> None:
        with self.db.transaction("退出登录") as conn:
            conn.execute(sessions.update().where(sessions.c.token_hash == token_hash, sessions.c.ended_at.is_(None))
                         .values(ended_at=self._now(), end_reason=reason))


def _span(limit: timedelta) -> str:
    """「8 小时」, 「7 天」: the limit as a person says it."""
    hours = limit.total_seconds() / 3600
    if hours >= 24 and hours % 24 == 0:
        return f"{hours / 24:g} 天"
    return f"{hours:g} 小时"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _utc(value: datetime) -> datetime:
    """Aware UTC: SQLite drops the offset, so every stored or compared time must be UTC."""
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
