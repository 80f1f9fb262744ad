"""Staff accounts: user names, roles, argon2 password hashes; every change audited.

Passwords are hashed with argon2id (argon2-cffi) and never stored, logged, audited or returned
in clear. Every account change appends a line to the audit log in the same transaction.
Sign-in throttling and sessions live in core/stores/sessions.py; this module only answers "is this
the password of this account"; what each role may do is in core/stores/roles.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Boolean, Column, Connection, DateTime, Integer, MetaData, String, Table, func, select, text

from core.clock import as_utc, utcnow
from core.errors import AccountError
from core.stores import audit
from core.stores.account_values import (  # noqa: F401 - MAX_DISPLAY_CHARS and normalize_username re-exported
    MAX_DISPLAY_CHARS,
    normalize_username,
    valid_display_name,
    valid_email,
    valid_role,
    valid_username,
)
from core.stores.db import Database, Migration, Schema, create_tables
from core.stores.password_policy import MAX_PASSWORD_CHARS, check_new_password
from core.stores.roles import PERMISSIONS, ROLES, Authorize, User, require
from core.stores.session_rows import SESSIONS_SCHEMA, end_sessions
from core.stores.user_names import skeleton

__all__ = ["PERMISSIONS", "ROLES", "Account", "AccountError", "AccountStore", "User", "normalize_username", "require"]

ROLE_RANK = {"consultant": 0, "admin": 1}  # a change to a lower rank ends the account's sessions
NEW_NAMES_LOCK_KEY = 0x78616363  # "xacc": PostgreSQL advisory lock held while a new account's name is checked



@dataclass(frozen=True)
class Account:
    """One stored account, without its password hash."""

    username: str
    display_name: str
    role: str
    email: str | None
    created_at: datetime
    last_login_at: datetime | None
    disabled: bool

    @property
    def user(self) -> User:
        return User(username=self.username, display_name=self.display_name, role=self.role)

    @property
    def role_label(self) -> str:
        return ROLES.get(self.role, self.role)


metadata = MetaData()
accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(64), nullable=False, unique=True),
    Column("display_name", String(MAX_DISPLAY_CHARS), nullable=False),
    Column("role", String(16), nullable=False),
    Column("email", String(254), unique=True),
    Column("password_hash", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_login_at", DateTime(timezone=True)),
    Column("disabled", Boolean, nullable=False, default=False),
)

ACCOUNTS_SCHEMA = Schema("accounts", (Migration(1, "accounts table", create_tables(accounts)),))


class AccountStore:
    """Accounts on a `Database`; opening it brings the accounts and audit tables up to date."""

    def __init__(self, db: Database, *, hasher: PasswordHasher | None = None,
                 now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.hasher = hasher or PasswordHasher()
        self._now = lambda: as_utc(now()).astimezone(UTC)  # SQLite drops the offset: store UTC
        self._dummy_hash: str | None = None
        self._any = False  # an account was seen: accounts are never deleted, so there always will be
        audit.ensure(db)
        db.migrate(ACCOUNTS_SCHEMA)
        db.migrate(SESSIONS_SCHEMA)  # a password reset, a lower role or a disable ends the account's sessions

    # --- reading -----------------------------------------------------------------------------

    def count(self, *, enabled_only: bool = False) -> int:
        query = select(func.count()).select_from(accounts)
        if enabled_only:
            query = query.where(accounts.c.disabled.is_(False))
        with self.db.read("读取账号") as conn:
            return conn.execute(query).scalar_one()

    def has_accounts(self) -> bool:
        """Whether any account exists (the login gate asks on every rerun; once true it is not asked again)."""
        if not self._any:
            with self.db.read("读取账号") as conn:
                self._any = conn.execute(select(accounts.c.id).limit(1)).first() is not None
        return self._any

    def find(self, username: str) -> Account | None:
        with self.db.read("读取账号") as conn:
            row = conn.execute(select(accounts).where(accounts.c.username == normalize_username(username))).first()
        return _account(row) if row else None

    def get(self, username: str) -> Account:
        found = self.find(username)
        if found is None:
            raise AccountError(f"没有名为「{normalize_username(username)}」的账号，请用 users list 查看现有账号。")
        return found

    def find_by_email(self, email: str) -> Account | None:
        """The account whose email, or else user name, equals `email` (case-insensitive)."""
        key = normalize_username(email)
        with self.db.read("读取账号") as conn:
            row = (conn.execute(select(accounts).where(accounts.c.email == key)).first()
                   or conn.execute(select(accounts).where(accounts.c.username == key)).first())
        return _account(row) if row else None

    def list(self) -> tuple[Account, ...]:
        with self.db.read("读取账号") as conn:
            rows = conn.execute(select(accounts).order_by(accounts.c.username)).all()
        return tuple(_account(r) for r in rows)

    # --- passwords ---------------------------------------------------------------------------

    def check_password(self, username: str, password: str) -> Account | None:
        """The account if `password` is its password (disabled ones included), else None. argon2 runs with no
        transaction open (on SQLite one that writes would hold the whole database meanwhile)."""
        with self.db.read("核对密码") as conn:
            found = self.credentials(conn, username)
        right = self.password_matches(found[1] if found else None, password)
        if not right or found is None:
            return None
        rehashed = self.rehashed(found[1], password)
        if rehashed is not None:
            with self.db.transaction("核对密码") as conn:
                self.store_rehash(conn, found[0].username, found[1], rehashed)
        return found[0]

    def credentials(self, conn: Connection, username: str) -> tuple[Account, str] | None:
        """(the account named `username`, its stored password hash), or None; read in the caller's transaction."""
        row = conn.execute(select(accounts).where(accounts.c.username == normalize_username(username))).first()
        return (_account(row), row.password_hash) if row else None

    def password_matches(self, stored: str | None, password: str) -> bool:
        """Whether `password` matches the stored hash. Call it with no transaction open: argon2 takes tens of
        milliseconds. An unknown name (None) still pays for one verify, so timing does not tell names apart."""
        if stored is None:
            self._verify(self._dummy(), password)
            return False
        return self._verify(stored, password)

    def rehashed(self, stored: str, password: str) -> str | None:
        """A new hash of a right password when the stored one was made with weaker parameters, else None (computed
        outside any transaction, like the check)."""
        return self.hasher.hash(password) if self.hasher.check_needs_rehash(stored) else None

    def store_rehash(self, conn: Connection, username: str, old: str, new: str) -> None:
        """Replace the hash in the caller's transaction, only if nobody changed the password since it was read."""
        conn.execute(accounts.update().where(accounts.c.username == username, accounts.c.password_hash == old)
                     .values(password_hash=new))

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password[:MAX_PASSWORD_CHARS + 1])
        except (VerificationError, InvalidHashError):
            return False

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self.hasher.hash(secrets.token_urlsafe(16))
        return self._dummy_hash

    def mark_login(self, username: str, conn) -> None:
        """Record a successful sign-in inside the caller's transaction."""
        conn.execute(accounts.update().where(accounts.c.username == normalize_username(username))
                     .values(last_login_at=self._now()))

    # --- changing ----------------------------------------------------------------------------

    def add(self, username: str, password: str, *, actor: str, role: str = "consultant",
            display_name: str | None = None, email: str | None = None,
            authorize: Authorize | None = None) -> Account:
        key = valid_username(username)
        role = valid_role(role)
        name = valid_display_name(display_name or key)
        mail = valid_email(email)
        digest = self.hasher.hash(check_new_password(password, key, mail, name))
        with self.db.transaction("新建账号", immediate=True) as conn:
            _serialise_new_names(conn)
            _authorized(conn, authorize)
            if conn.execute(select(accounts.c.id).where(accounts.c.username == key)).first():
                raise AccountError(f"账号「{key}」已经存在，请换一个用户名，或用 users passwd 重设它的密码。")
            _refuse_look_alike(conn, key)
            if mail and conn.execute(select(accounts.c.id).where(accounts.c.email == mail)).first():
                raise AccountError(f"邮箱「{mail}」已经属于另一个账号，请换一个邮箱。")
            conn.execute(accounts.insert().values(
                username=key, display_name=name, role=role, email=mail, password_hash=digest,
                created_at=self._now(), last_login_at=None, disabled=False))
            audit.record(self.db, actor, "account_add", key,
                         f"新建账号「{name}」，角色：{ROLES[role]}" + (f"，邮箱：{mail}" if mail else ""),
                         conn=conn, now=self._now)
        return self.get(key)

    def set_password(self, username: str, password: str, *, actor: str, authorize: Authorize | None = None,
                     also: Callable[[Connection, str], None] | None = None) -> None:
        """A new password; every session of the account ends in the same transaction (a stolen cookie dies with it).

        `also(conn, username)` runs in that transaction too (SessionStore.reset_password lifts the locks there).
        """
        account = self.get(username)
        key = account.username
        digest = self.hasher.hash(check_new_password(password, key, account.email, account.display_name))
        with self.db.transaction("修改密码", immediate=True) as conn:
            _authorized(conn, authorize)
            conn.execute(accounts.update().where(accounts.c.username == key).values(password_hash=digest))
            ended = end_sessions(conn, key, "password", self._now())
            audit.record(self.db, actor, "account_passwd", key,
                         "重设密码" + (f"，结束了 {ended} 个登录" if ended else ""), conn=conn, now=self._now)
            if also is not None:
                also(conn, key)

    def set_profile(self, username: str, *, actor: str, display_name: str | None = None,
                    email: str | None = None, authorize: Authorize | None = None) -> Account:
        """Change the display name and the email (None leaves one as it is, "" clears the email)."""
        account = self.get(username)
        name = account.display_name if display_name is None else valid_display_name(display_name)
        mail = account.email if email is None else valid_email(email)
        if (name, mail) == (account.display_name, account.email):
            return account
        with self.db.transaction("修改账号资料", immediate=True) as conn:
            _authorized(conn, authorize)
            if mail and conn.execute(select(accounts.c.id).where(accounts.c.email == mail,
                                                                 accounts.c.username != account.username)).first():
                raise AccountError(f"邮箱「{mail}」已经属于另一个账号，请换一个邮箱。")
            conn.execute(accounts.update().where(accounts.c.username == account.username)
                         .values(display_name=name, email=mail))
            changes = [f"显示名：{account.display_name} → {name}"] if name != account.display_name else []
            if mail != account.email:
                changes.append(f"邮箱：{account.email or '（无）'} → {mail or '（无）'}")
            audit.record(self.db, actor, "account_profile", account.username, "；".join(changes), conn=conn,
                         now=self._now)
        return self.get(account.username)

    def set_disabled(self, username: str, disabled: bool, *, actor: str,
                     authorize: Authorize | None = None) -> Account:
        """Disable (every session ends at once) or enable an account; the last usable admin cannot be disabled."""
        key = self.get(username).username
        with self.db.transaction("停用账号" if disabled else "启用账号", immediate=True) as conn:
            admins = _lock_admins(conn)
            _authorized(conn, authorize)
            account = _locked_account(conn, key)
            if account.disabled == disabled:
                return account
            if disabled and account.username in admins:
                _keep_one_admin(admins, account.username)
            conn.execute(accounts.update().where(accounts.c.username == key).values(disabled=disabled))
            ended = end_sessions(conn, key, "disabled", self._now()) if disabled else 0
            audit.record(self.db, actor, "account_disable" if disabled else "account_enable", key,
                         ("停用账号" + (f"，结束了 {ended} 个登录" if ended else "")) if disabled else "重新启用账号",
                         conn=conn, now=self._now)
        return self.get(key)

    def set_role(self, username: str, role: str, *, actor: str, authorize: Authorize | None = None) -> Account:
        """Change the role; a lower role ends the account's sessions; the last usable admin cannot be demoted."""
        key, role = self.get(username).username, valid_role(role)
        with self.db.transaction("修改角色", immediate=True) as conn:
            admins = _lock_admins(conn)
            _authorized(conn, authorize)
            account = _locked_account(conn, key)
            if account.role == role:
                return account
            if account.username in admins:
                _keep_one_admin(admins, account.username)
            conn.execute(accounts.update().where(accounts.c.username == key).values(role=role))
            lower = ROLE_RANK[role] < ROLE_RANK[account.role]
            ended = end_sessions(conn, key, "role", self._now()) if lower else 0
            audit.record(self.db, actor, "account_role", key,
                         f"角色：{account.role_label} → {ROLES[role]}" + (f"，结束了 {ended} 个登录" if ended else ""),
                         conn=conn, now=self._now)
        return self.get(key)


def _lock_admins(conn: Connection) -> set[str]:
    """The usable admins, their rows locked for this transaction (FOR UPDATE on PostgreSQL; SQLite's
    BEGIN IMMEDIATE holds the whole database), taken before anything else and in one order, so two
    admins demoting or disabling each other at once queue up: the second sees the first's change."""
    return set(conn.execute(select(accounts.c.username).where(accounts.c.role == "admin",
                                                              accounts.c.disabled.is_(False))
                            .order_by(accounts.c.id).with_for_update()).scalars())


def _locked_account(conn: Connection, key: str) -> Account:
    row = conn.execute(select(accounts).where(accounts.c.username == key).with_for_update()).first()
    if row is None:
        raise AccountError(f"没有名为「{key}」的账号，请用 users list 查看现有账号。")
    return _account(row)


def _keep_one_admin(admins: set[str], leaving: str) -> None:
    if not admins - {leaving}:
        raise AccountError(f"「{leaving}」是最后一个可用的管理员，不能停用或降级；请先新建或启用另一个管理员。")


def _authorized(conn: Connection, authorize: Authorize | None) -> None:
    """The acting admin's session, re-checked inside the change's transaction (None: the CLI)."""
    if authorize is not None:
        authorize(conn, "manage_accounts")


# --- one new name at a time --------------------------------------------------------------------

def _serialise_new_names(conn: Connection) -> None:
    """One new account at a time: the look-alike check reads every name, and a name being added by another
    transaction is invisible to it (BEGIN IMMEDIATE on SQLite; a transaction-scoped advisory lock on PostgreSQL)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": NEW_NAMES_LOCK_KEY})


def _refuse_look_alike(conn: Connection, key: str) -> None:
    """AccountError when `key` looks like an existing user name (same confusable skeleton); inside the add's
    transaction, after `_serialise_new_names`, so two look-alikes added at once cannot both pass."""
    mine = skeleton(key)
    for other in conn.execute(select(accounts.c.username)).scalars():
        if other != key and skeleton(other) == mine:
            raise AccountError(f"用户名「{key}」和已有账号「{other}」看起来一样（有形状相同的字符），"
                               "在操作记录里会分不清，请换一个用户名。")


def _account(row) -> Account:
    return Account(username=row.username, display_name=row.display_name, role=row.role, email=row.email,
                   created_at=as_utc(row.created_at), last_login_at=as_utc(row.last_login_at),
                   disabled=bool(row.disabled))


