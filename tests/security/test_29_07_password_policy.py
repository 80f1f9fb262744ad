"""#29 item 7: weak passwords were accepted (Password1!, iloveyou12, q1w2e3r4t5, PASSWORD12, boss-admin for boss)
and a look-alike user name (Cyrillic а in аdmin) became a second account that reads like admin in audit lines.

The policy now checks a real common-password list (zxcvbn's 30,000 most common, plus the shipped list), zxcvbn's
guess estimate, and the user name written forwards or backwards inside the password; a user name may use one
script (汉字 may go with Latin letters) and may not look like an existing one (confusable skeleton).
"""

from __future__ import annotations

import pytest

from core.errors import AccountError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.password_policy import check_new_password
from tests.auth_helpers import FAST_HASHER, PASSWORD


@pytest.fixture
def store(database_url):
    store = AccountStore(Database(database_url), hasher=FAST_HASHER)
    store.add("admin", PASSWORD, actor="test", role="admin")
    yield store
    store.db.dispose()


@pytest.mark.parametrize("password", ["Password1!", "iloveyou12", "q1w2e3r4t5", "PASSWORD12", "Welcome-2025",
                                      "1qaz2wsx3edc4rfv", "dragon2024!!", "zxcvbnm,./123"])
def test_29_07_common_and_guessable_passwords_are_refused(store, password):
    with pytest.raises(AccountError, match="密码"):
        store.add("li.lei", password, actor="admin")
    assert store.find("li.lei") is None


@pytest.mark.parametrize("username,password", [("boss", "boss-admin"), ("boss", "ssob-is-me-42"),
                                               ("li.lei", "my lilei secret 9"), ("zhang.wei", "Zhang.Wei 1987 abc"),
                                               ("chen", "xx-nehc-yy-42")])
def test_29_07_password_containing_the_user_name_or_its_reverse_is_refused(store, username, password):
    with pytest.raises(AccountError, match="用户名"):
        store.add(username, password, actor="admin")


def test_29_07_password_containing_the_email_name_is_refused(store):
    with pytest.raises(AccountError, match="用户名|邮箱"):
        store.add("teacher1", "wanglaoshi plus 88", actor="admin", email="wanglaoshi@qiming.example")


def test_29_07_reset_obeys_the_same_policy(store):
    with pytest.raises(AccountError):
        store.set_password("admin", "Password1!", actor="test")
    with pytest.raises(AccountError, match="用户名"):
        store.set_password("admin", "nimda-the-boss-7", actor="test")


@pytest.mark.parametrize("password", [PASSWORD, "蓝色 书架 42 跑步", "another secret 7", "Tr0ub4dor&3 horse"])
def test_29_07_strong_passwords_are_accepted(password):
    assert check_new_password(password, "li.lei") == password


@pytest.mark.parametrize("name", ["\u0430dmin",  # Cyrillic а + Latin dmin: mixed scripts
                                  "\u0430\u0501\u043c\u0456\u0578",  # Cyrillic/Armenian look-alikes of admin
                                  "p\u0430ypal"])
def test_29_07_mixed_script_user_names_are_refused(store, name):
    with pytest.raises(AccountError, match="文字"):
        store.add(name, PASSWORD, actor="admin", role="admin")
    assert [a.username for a in store.list()] == ["admin"]


def test_29_07_whole_script_look_alike_of_an_existing_name_is_refused(store):
    store.add("ace", PASSWORD, actor="admin")
    with pytest.raises(AccountError, match="看起来"):
        store.add("\u0430\u0441\u0435", PASSWORD, actor="admin")  # all Cyrillic: асе


@pytest.mark.parametrize("name", ["王老师", "wang老师", "li.lei", "张san-2", "まさこ", "olga.ivanova"])
def test_29_07_ordinary_user_names_are_accepted(store, name):
    assert store.add(name, PASSWORD, actor="admin").username == name


def test_29_07_two_look_alikes_added_at_once_cannot_both_pass(database_url):
    from tests.db_race import MeetBefore, race

    store = AccountStore(Database(database_url, busy_timeout_ms=20_000), hasher=FAST_HASHER)
    with MeetBefore(store.db.engine, r"^\s*INSERT INTO accounts"):
        outcomes = race(lambda: store.add("ace", PASSWORD, actor="a"),
                        lambda: store.add("\u0430\u0441\u0435", PASSWORD, actor="b"))
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1, outcomes
    assert len(store.list()) == 1
    store.db.dispose()
