"""API keys of the student service: made by an admin, shown once, stored only as a hash, revoked for good.

A key's secret is 256 random bits, so a plain SHA-256 of it is what is stored and looked up (a slow password hash
buys nothing against a secret that cannot be guessed, and every request would pay for it). Every request reads
the key's row, so a key revoked on one instance is refused by every instance at the next request. The webhook
signing secret is made with the key and kept, because the service needs it to sign each delivery.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Column, DateTime, Integer, MetaData, Row, String, Table, Text, bindparam, select

from core.clock import as_utc, utcnow
from core.errors import AuthError, InvalidReview, StoreError
from core.stores import audit
from core.stores.db import Database, Migration, Schema, changed, create_tables
from core.stores.roles import Authorize, User, require
from core.values.exchanges import POLICIES, POLICY_ALL, SCOPES, ApiKey, NewKey

SECRET_PREFIX = "xiaoe_"
PREFIX_CHARS = 12  # "xiaoe_" and six characters of the secret: enough to tell keys apart, useless to guess one
MAX_KEY_NAME_CHARS = 64
MAX_WEBHOOK_CHARS = 500
KEY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# A used key's row is written at most this often (every request reads it; few write it).
LAST_USED_EVERY = timedelta(seconds=60)

metadata = MetaData()
api_keys = Table(
    "api_keys", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(MAX_KEY_NAME_CHARS), nullable=False, unique=True),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("prefix", String(PREFIX_CHARS), nullable=False),
    Column("scopes", String(100), nullable=False),
    Column("release", String(16), nullable=False),
    Column("webhook_url", Text, nullable=False),
    Column("webhook_secret", String(100), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
    Column("revoked_by", String(200), nullable=False, default=""),
    Column("last_used_at", DateTime(timezone=True)),
)

KEYS_SCHEMA = Schema("api_keys", (Migration(1, "API keys of the student service", create_tables(api_keys)),))


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def parse_scopes(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """`chat,feedback` → ("chat", "feedback"); an unknown scope is refused, naming the known ones."""
    parts = value.split(",") if isinstance(value, str) else list(value)
    scopes = tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not scopes:
        raise InvalidReview(f"权限范围「{'、'.join(unknown) or '（空）'}」不认识；可选：{'、'.join(SCOPES)}，用逗号分隔，"
                            "例如 chat,feedback。")
    return scopes


def parse_release(value: str) -> str:
    value = (value or "").strip()
    if value not in POLICIES:
        raise InvalidReview(f"放行策略「{value}」不认识；可选：all（每条回答先由顾问审）、flagged（有疑点的先审）、"
                            "auto（检查不通过的先审）。")
    return value


def check_webhook(url: str) -> str:
    url = (url or "").strip()
    if not url:
        return ""
    if len(url) > MAX_WEBHOOK_CHARS or not re.match(r"^https?://[^\s/]+", url) or any(c.isspace() for c in url):
        raise InvalidReview(f"回调地址「{url[:80]}」不是有效的 http:// 或 https:// 地址，请检查后重填。")
    return url


# Every request is authenticated: built once, the hash as a parameter (core/stores/exchanges.py says why).
_BY_HASH = select(api_keys).where(api_keys.c.key_hash == bindparam("key_hash"))


class KeyStore:
    """The service's API keys on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(KEYS_SCHEMA)
        audit.ensure(db)

    def add(self, user: User | None, name: str, *, scopes: str | tuple[str, ...] = "chat,feedback",
            release: str = POLICY_ALL, webhook: str = "", authorize: Authorize | None = None) -> NewKey:
        """Make a key; the returned `NewKey` holds the secret, which is never readable again."""
        admin = require(user, "manage_keys")
        name = (name or "").strip()
        if not KEY_NAME.match(name) or len(name) > MAX_KEY_NAME_CHARS:
            raise InvalidReview(f"密钥名称「{name[:80]}」不合适：请用 1–{MAX_KEY_NAME_CHARS} 个英文字母、数字、点、"
                                "下划线或连字符，以字母或数字开头，例如 school-app。")
        scopes = parse_scopes(scopes)
        release = parse_release(release)
        webhook = check_webhook(webhook)
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        signing = "whsec_" + secrets.token_urlsafe(32)
        now = self._clock()
        with self.db.transaction("新建接口密钥", immediate=True) as conn:
            actor = authorize(conn, "manage_keys").label if authorize is not None else admin.label
            if conn.execute(select(api_keys.c.id).where(api_keys.c.name == name)).first() is not None:
                raise InvalidReview(f"已经有名为「{name}」的密钥了；请换一个名称，或先停用旧的。")
            key_id = conn.execute(api_keys.insert().values(
                name=name, key_hash=hash_secret(secret), prefix=secret[:PREFIX_CHARS], scopes=",".join(scopes),
                release=release, webhook_url=webhook, webhook_secret=signing, created_at=now, created_by=actor,
                revoked_by="").returning(api_keys.c.id)).scalar_one()
            audit.record(self.db, actor, "key_add", f"key:{name}",
                         f"权限 {','.join(scopes)}，放行策略 {release}" + ("，有回调地址" if webhook else ""), conn=conn,
                         now=self._clock)
        return NewKey(self.get(key_id), secret, signing)

    def revoke(self, user: User | None, name: str, *, authorize: Authorize | None = None) -> ApiKey:
        """Revoke a key for good: every instance refuses it at its next request."""
        admin = require(user, "manage_keys")
        now = self._clock()
        with self.db.transaction("停用接口密钥", immediate=True) as conn:
            actor = authorize(conn, "manage_keys").label if authorize is not None else admin.label
            row = self._row_by_name(conn, name)
            if row.revoked_at is not None:
                raise InvalidReview(f"密钥「{row.name}」已经停用了。")
            if not changed(conn, api_keys.update().where(api_keys.c.id == row.id, api_keys.c.revoked_at.is_(None))
                           .values(revoked_at=now, revoked_by=actor)):
                raise InvalidReview(f"密钥「{row.name}」已经停用了。")
            audit.record(self.db, actor, "key_revoke", f"key:{row.name}", "停用", conn=conn, now=self._clock)
        return self.get(row.id)

    def set_release(self, user: User | None, name: str, release: str, *,
                    authorize: Authorize | None = None) -> ApiKey:
        """Change a key's release policy (audited)."""
        admin = require(user, "manage_keys")
        release = parse_release(release)
        with self.db.transaction("修改放行策略", immediate=True) as conn:
            actor = authorize(conn, "manage_keys").label if authorize is not None else admin.label
            row = self._row_by_name(conn, name)
            conn.execute(api_keys.update().where(api_keys.c.id == row.id).values(release=release))
            audit.record(self.db, actor, "key_release", f"key:{row.name}", f"{row.release} → {release}", conn=conn,
                         now=self._clock)
        return self.get(row.id)

    def authenticate(self, secret: str | None) -> ApiKey:
        """The key a request's bearer secret names, or AuthError saying what is wrong (missing, unknown, revoked).
        The lookup is by hash; the final comparison is constant-time."""
        secret = (secret or "").strip()
        if not secret:
            raise AuthError("缺少接口密钥：请在请求头里加上 Authorization: Bearer <密钥>。")
        digest = hash_secret(secret)
        with self.db.read("核对接口密钥") as conn:
            row = conn.execute(_BY_HASH, {"key_hash": digest}).first()
        if row is None or not hmac.compare_digest(row.key_hash, digest):
            raise AuthError("接口密钥不对：请检查 Authorization 请求头里的密钥是否完整，或请管理员新建一个。")
        if row.revoked_at is not None:
            raise AuthError("这个接口密钥已经停用：请向学校的管理员要一个新的密钥。")
        key = _key(row)
        now = self._clock()
        if key.last_used_at is None or now - key.last_used_at >= LAST_USED_EVERY:
            with self.db.transaction("记录密钥使用时间") as conn:
                conn.execute(api_keys.update().where(api_keys.c.id == row.id).values(last_used_at=now))
        return key

    def get(self, key_id: int) -> ApiKey:
        with self.db.read("读取接口密钥") as conn:
            row = conn.execute(select(api_keys).where(api_keys.c.id == key_id)).first()
        if row is None:
            raise StoreError(f"没有编号为 {key_id} 的接口密钥，请刷新后再试。")
        return _key(row)

    def by_name(self, name: str) -> ApiKey:
        with self.db.read("读取接口密钥") as conn:
            return _key(self._row_by_name(conn, name))

    def list(self) -> tuple[ApiKey, ...]:
        with self.db.read("读取接口密钥") as conn:
            return tuple(_key(r) for r in conn.execute(select(api_keys).order_by(api_keys.c.id)))

    @staticmethod
    def _row_by_name(conn, name: str) -> Row:
        row = conn.execute(select(api_keys).where(api_keys.c.name == (name or "").strip())).first()
        if row is None:
            raise InvalidReview(f"没有名为「{(name or '').strip()[:80]}」的接口密钥；用 xiaoe keys list 查看现有的密钥。")
        return row


def _key(row: Row) -> ApiKey:
    return ApiKey(id=row.id, name=row.name, prefix=row.prefix, scopes=tuple(s for s in row.scopes.split(",") if s),
                  release=row.release, webhook_url=row.webhook_url, created_at=as_utc(row.created_at),
                  created_by=row.created_by, revoked_at=as_utc(row.revoked_at), revoked_by=row.revoked_by or "",
                  last_used_at=as_utc(row.last_used_at), webhook_secret=row.webhook_secret)
