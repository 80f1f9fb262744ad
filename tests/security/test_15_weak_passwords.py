"""#16 failure 15: 12345678, password and aaaaaaaa were accepted; full-width ａｄｍｉｎ became a second admin."""

from __future__ import annotations

import pytest

from core.errors import AccountError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD


@pytest.fixture
def store(db_url):
    store = AccountStore(Database(db_url), hasher=FAST_HASHER)
    store.add("admin", PASSWORD, actor="test", role="admin")
    yield store
    store.db.dispose()


@pytest.mark.parametrize("password", ["12345678", "password", "aaaaaaaa", "aaaaaaaaaaaa", "ababababab",
                                      "1234567890", "Password123", "qwertyuiop", "li.lei.2025"[:9]])
def test_weak_passwords_are_refused(store, password):
    with pytest.raises(AccountError, match="密码"):
        store.add("li.lei", password, actor="admin")


@pytest.mark.parametrize("password", ["li.lei.teacher", "LI.LEI.TEACHER", "ｌｉ.ｌｅｉ.ｔｅａｃｈｅｒ"])
def test_weak_passwords_equal_to_the_user_name_are_refused(store, password):
    with pytest.raises(AccountError, match="用户名"):
        store.add("li.lei.teacher", password, actor="admin")


def test_weak_passwords_reset_obeys_the_same_policy(store):
    with pytest.raises(AccountError):
        store.set_password("admin", "password", actor="admin")


@pytest.mark.parametrize("name", ["ａｄｍｉｎ", "ADMIN", "Ａｄｍｉｎ"])
def test_weak_passwords_look_alike_user_names_are_one_account(store, name):
    with pytest.raises(AccountError, match="已经存在"):
        store.add(name, PASSWORD, actor="admin", role="admin")
    assert SessionStore(store).sign_in(name, PASSWORD).user.username == "admin"


def test_weak_passwords_a_good_password_is_accepted(store):
    assert store.add("li.lei", "蓝色 书架 42 跑步", actor="admin").username == "li.lei"
