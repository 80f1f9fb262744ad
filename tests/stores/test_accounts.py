"""Accounts: argon2 hashing (never clear), validation, timing-equal checks, admin guard, audit lines."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from sqlalchemy import text

from core.errors import AccountError
from core.stores import audit
from core.stores.accounts import AccountStore
from core.stores.db import Database
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff, make_accounts


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "xiaoe.sqlite3"


def stored_hashes(store: AccountStore) -> list[str]:
    with store.db.read() as conn:
        return list(conn.execute(text("SELECT password_hash FROM accounts")).scalars())


@pytest.fixture
def store(database_url):
    store = make_accounts(database_url)
    yield store
    store.db.dispose()


def test_accounts_hash_is_argon2id_and_password_never_stored(store, db_path, database_engine):
    add_staff(store)
    store.set_password("amy", "another secret 7", actor="boss")
    if database_engine == "sqlite":  # the file itself (the fixture's SQLite file is db_path)
        raw = db_path.read_bytes() + (db_path.parent / "xiaoe.sqlite3-wal").read_bytes()
        assert PASSWORD.encode() not in raw
        assert b"another secret 7" not in raw
    hashes = stored_hashes(store)
    assert len(hashes) == 2 and all(h.startswith("$argon2id$") for h in hashes)
    assert not any(PASSWORD in h or "another secret 7" in h for h in hashes)


def test_accounts_audit_never_mentions_password(store):
    add_staff(store)
    store.set_password("amy", "another secret 7", actor="boss")
    text = " ".join(f"{e.actor} {e.action} {e.target} {e.detail}" for e in audit.recent(store.db))
    assert PASSWORD not in text and "another secret 7" not in text


def test_accounts_account_repr_has_no_hash(store):
    add_staff(store)
    assert "argon2" not in repr(store.get("amy"))


def test_accounts_check_password_right_wrong_unknown(store):
    add_staff(store)
    assert store.check_password("amy", PASSWORD).username == "amy"
    assert store.check_password("amy", PASSWORD + "x") is None
    assert store.check_password("nobody", PASSWORD) is None


def test_accounts_unknown_user_still_pays_one_verify(store):
    add_staff(store)
    calls = []
    real_verify = store.hasher.verify

    class Spy(PasswordHasher):
        def verify(self, hash, password):  # noqa: A002 - argon2's own parameter name
            calls.append(hash)
            return real_verify(hash, password)

    store.hasher = Spy(time_cost=1, memory_cost=8, parallelism=1)
    store.check_password("nobody", PASSWORD)
    store.check_password("amy", "wrong password")
    assert len(calls) == 2 and all(h.startswith("$argon2id$") for h in calls)


def test_accounts_username_is_case_and_space_insensitive(store):
    store.add("  Amy.Li ", PASSWORD, actor="test")
    assert store.get("amy.li").username == "amy.li"
    assert store.check_password("AMY.LI", PASSWORD) is not None


def test_accounts_duplicate_name_refused(store):
    add_staff(store)
    with pytest.raises(AccountError, match="已经存在"):
        store.add("AMY", PASSWORD, actor="test")


def test_accounts_duplicate_email_refused(store):
    add_staff(store)
    with pytest.raises(AccountError, match="邮箱"):
        store.add("boss2", PASSWORD, actor="test", email="Boss@Qiming.example")


@pytest.mark.parametrize("name", ["a", "", "has space", "a/b", "x" * 65, "semi;colon", "tab\tname", "nul\x00"])
def test_accounts_bad_usernames_refused(store, name):
    with pytest.raises(AccountError, match="用户名"):
        store.add(name, PASSWORD, actor="test")


@pytest.mark.parametrize("name", ["zhang.san", "李老师", "amy_2", "amy@qiming.example"])
def test_accounts_good_usernames_accepted(store, name):
    assert store.add(name, PASSWORD, actor="test").username == name


@pytest.mark.parametrize("password", ["", "short", "        ", "x" * 257])
def test_accounts_bad_passwords_refused_without_echo(store, password):
    with pytest.raises(AccountError) as error:
        store.add("amy", password, actor="test")
    assert "密码" in str(error.value)
    assert (password.strip() or "§") not in str(error.value)


def test_accounts_unknown_role_refused(store):
    with pytest.raises(AccountError, match="角色"):
        store.add("amy", PASSWORD, actor="test", role="root")


def test_accounts_last_admin_cannot_be_disabled_or_demoted(store):
    add_staff(store)
    with pytest.raises(AccountError, match="最后一个"):
        store.set_disabled("boss", True, actor="boss")
    with pytest.raises(AccountError, match="最后一个"):
        store.set_role("boss", "consultant", actor="boss")
    assert not store.get("boss").disabled and store.get("boss").role == "admin"


def test_accounts_admin_can_be_disabled_when_another_exists(store):
    add_staff(store)
    store.set_role("amy", "admin", actor="boss")
    assert store.set_disabled("boss", True, actor="amy").disabled


def test_accounts_every_change_is_audited_with_actor(store):
    add_staff(store)
    store.set_password("amy", "another secret 7", actor="boss")
    store.set_disabled("amy", True, actor="boss")
    store.set_disabled("amy", False, actor="boss")
    store.set_role("amy", "admin", actor="boss")
    lines = [(e.actor, e.action, e.target) for e in reversed(audit.recent(store.db))]
    assert lines == [("test", "account_add", "boss"), ("test", "account_add", "amy"),
                     ("boss", "account_passwd", "amy"), ("boss", "account_disable", "amy"),
                     ("boss", "account_enable", "amy"), ("boss", "account_role", "amy")]


def test_accounts_failed_change_writes_no_audit_line(store):
    add_staff(store)
    before = len(audit.recent(store.db))
    with pytest.raises(AccountError):
        store.add("amy", PASSWORD, actor="test")
    assert len(audit.recent(store.db)) == before


def test_accounts_outdated_hash_parameters_are_upgraded_on_login(database_url):
    old = AccountStore(Database(database_url), hasher=FAST_HASHER, now=Clock())
    old.add("amy", PASSWORD, actor="test")
    stronger = AccountStore(Database(database_url), hasher=PasswordHasher(time_cost=2, memory_cost=16, parallelism=1))
    assert stronger.check_password("amy", PASSWORD) is not None
    (stored,) = stored_hashes(stronger)
    assert "m=16,t=2,p=1" in stored
    old.db.dispose()
    stronger.db.dispose()


def test_accounts_find_by_email_or_username(store):
    add_staff(store)
    assert store.find_by_email("BOSS@qiming.example").username == "boss"
    assert store.find_by_email("amy").username == "amy"
    assert store.find_by_email("stranger@qiming.example") is None


def test_accounts_count_enabled_only(store):
    add_staff(store)
    store.set_disabled("amy", True, actor="boss")
    assert (store.count(), store.count(enabled_only=True)) == (2, 1)
