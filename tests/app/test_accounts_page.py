"""账号管理 and 登录 in AppTest, issue #30's smaller items: 修改账号 edits the display name and email, 停用 asks
first, an over-long display name gets a Chinese message, and a wrong password says how many tries are left."""

from __future__ import annotations

import pytest

from core.settings import Settings
from core.stores import audit
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from tests.app.test_auth_app import sign_in, start, submit
from tests.auth_helpers import FAST_HASHER, add_staff


@pytest.fixture
def staff(app_env, monkeypatch) -> AccountStore:
    monkeypatch.setenv("XIAOE_AUTH", "on")
    store = AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER)
    add_staff(store)
    return store


def accounts_page(username: str = "boss"):
    at = sign_in(username)
    at.switch_page("app_pages/accounts.py").run()
    assert not at.exception
    return at


def choose(at, username: str):
    at.selectbox(key="change_account").set_value(username).run()
    return at


def test_accounts_page_edits_the_display_name_and_email(staff):
    at = choose(accounts_page(), "amy")
    at.text_input(key="edit_display_amy").set_value("李老师")
    at.text_input(key="edit_email_amy").set_value("li@qiming.example")
    at.button(key="account_profile_submit").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    amy = staff.get("amy")
    assert (amy.display_name, amy.email) == ("李老师", "li@qiming.example")
    (line,) = audit.recent(staff.db, action="account_profile")
    assert "李老师" in line.detail and line.actor == "boss"


def test_accounts_page_disable_asks_for_a_confirmation_first(staff):
    at = choose(accounts_page(), "amy")
    at.button(key="account_disable").click().run()
    assert not staff.get("amy").disabled
    assert any("确定停用" in w.value for w in at.warning)
    at.button(key="account_disable_cancel").click().run()
    assert not staff.get("amy").disabled and not [b for b in at.button if b.key == "account_disable_confirm"]
    at.button(key="account_disable").click().run()
    at.button(key="account_disable_confirm").click().run()
    assert staff.get("amy").disabled


def test_accounts_page_an_over_long_display_name_gets_a_chinese_message(staff):
    at = accounts_page()
    at.text_input(key="new_username").set_value("li.lei")
    at.text_input(key="new_display").set_value("李" * 60)
    at.text_input(key="new_password").set_value("light kettle 2025 river")
    at.button(key="account_add_submit").click().run()
    assert any("显示名有 60 个字，最多 50 个字" in e.value for e in at.error)
    assert staff.find("li.lei") is None
    assert at.text_input(key="new_display").max_chars > 50  # the browser must not cut it off silently


def test_login_page_each_wrong_password_says_how_many_tries_are_left(staff):
    at = start()
    said = []
    for _ in range(5):
        at = submit(at, "boss", "not the password")
        said.append(at.error[0].value)
    assert "再输错 4 次" in said[0] and "再输错 1 次" in said[3]
    assert "等" in said[4]  # AppTest has no client address: an unknown source, whose retries then wait
