"""API keys on both engines: shown once, stored as a hash, refused when wrong or revoked, managed by admins only."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core.errors import AuthError, InvalidReview
from core.stores.api_keys import KeyStore, api_keys, hash_secret
from core.stores.audit import recent
from core.stores.db import Database
from core.stores.roles import User

ADMIN = User("admin", "管理员", "admin")
CONSULTANT = User("gu", "顾问", "consultant")


@pytest.fixture
def store(database_url):
    db = Database(database_url)
    yield KeyStore(db)
    db.dispose()


def test_keys_the_secret_is_shown_once_and_only_its_hash_is_stored(store):
    made = store.add(ADMIN, "school-app")
    with store.db.read() as conn:
        row = conn.execute(select(api_keys)).one()
    assert made.secret.startswith("xiaoe_") and len(made.secret) > 40
    assert made.secret not in {str(v) for v in row} and row.key_hash == hash_secret(made.secret)
    assert store.authenticate(made.secret).name == "school-app"
    assert made.key.policy == "all" and made.key.scopes == ("chat", "feedback")  # the safe default


@pytest.mark.parametrize(("secret", "words"), [(None, "缺少接口密钥"), ("", "缺少接口密钥"), ("xiaoe_wrong", "密钥不对")])
def test_keys_missing_or_wrong_secret_is_refused(store, secret, words):
    store.add(ADMIN, "app")
    with pytest.raises(AuthError, match=words):
        store.authenticate(secret)


def test_keys_revoked_is_refused_and_cannot_be_revoked_twice(store):
    made = store.add(ADMIN, "app")
    store.revoke(ADMIN, "app")
    with pytest.raises(AuthError, match="已经停用"):
        store.authenticate(made.secret)
    with pytest.raises(InvalidReview, match="已经停用"):
        store.revoke(ADMIN, "app")


def test_keys_are_managed_by_admins_only_and_every_change_is_audited(store):
    with pytest.raises(AuthError):
        store.add(CONSULTANT, "app")
    store.add(ADMIN, "app", release="flagged")
    store.set_release(ADMIN, "app", "auto")
    store.revoke(ADMIN, "app")
    actions = [e.action for e in recent(store.db, limit=10)]
    assert {"key_add", "key_release", "key_revoke"} <= set(actions)


@pytest.mark.parametrize(("options", "words"), [
    ({"name": "有中文"}, "密钥名称"), ({"name": ""}, "密钥名称"), ({"name": "a" * 65}, "密钥名称"),
    ({"name": "app", "scopes": "chat,admin"}, "权限范围"), ({"name": "app", "release": "sometimes"}, "放行策略"),
    ({"name": "app", "webhook": "ftp://x"}, "回调地址"), ({"name": "app", "webhook": "http://a b"}, "回调地址"),
])
def test_keys_bad_values_are_refused_with_what_to_change(store, options, words):
    options = dict(options)
    name = options.pop("name")
    with pytest.raises(InvalidReview, match=words):
        store.add(ADMIN, name, **options)


def test_keys_duplicate_name_is_refused(store):
    store.add(ADMIN, "app")
    with pytest.raises(InvalidReview, match="已经有名为"):
        store.add(ADMIN, "app")


def test_keys_last_used_is_written_at_most_once_a_minute(database_url):
    from datetime import UTC, datetime, timedelta

    now = [datetime(2026, 12, 6, 10, 0, tzinfo=UTC)]
    db = Database(database_url)
    store = KeyStore(db, clock=lambda: now[0])
    made = store.add(ADMIN, "app")
    store.authenticate(made.secret)
    first = store.by_name("app").last_used_at
    now[0] += timedelta(seconds=30)
    store.authenticate(made.secret)
    assert store.by_name("app").last_used_at == first
    now[0] += timedelta(seconds=31)
    store.authenticate(made.secret)
    assert store.by_name("app").last_used_at == now[0]
    db.dispose()


def test_keys_unknown_stored_release_reads_as_all(store):
    store.add(ADMIN, "app", release="auto")
    with store.db.transaction() as conn:
        conn.execute(api_keys.update().values(release="bogus"))
    assert store.by_name("app").policy == "all"
