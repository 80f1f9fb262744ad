"""账号管理 in a real browser: a validation error keeps what was typed in the new-account form, a success clears every
field (the password too), and a display name over 50 characters is not cut off silently (issue #30)."""

from __future__ import annotations

import pytest

from core.stores.accounts import AccountStore
from core.stores.db import Database
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def accounts_server(start_server):
    server = start_server(extra_env={"XIAOE_AUTH": "on"})
    server.accounts = AccountStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"), hasher=FAST_HASHER)
    add_staff(server.accounts)
    return server


def open_accounts(page, server, idle):
    page.goto(server.url)
    idle(page)
    page.get_by_label("用户名").fill("boss")
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录", exact=True).click()
    page.get_by_role("heading", name="提问与检查").wait_for()
    page.goto(f"{server.url}/accounts")
    page.get_by_role("heading", name="账号管理").wait_for()
    idle(page)
    return page.locator("[data-testid=stForm]").first


def test_accounts_form_e2e_keeps_fields_after_a_validation_error(page, accounts_server, idle):
    accounts = accounts_server.accounts
    form = open_accounts(page, accounts_server, idle)
    form.get_by_role("textbox", name="用户名", exact=True).fill("zhang.laoshi")
    form.get_by_role("textbox", name="显示名", exact=True).fill("张老师")
    form.get_by_label("初始密码", exact=False).fill("short")
    form.get_by_role("button", name="新建账号").click()
    page.locator("[data-testid=stAlertContentError]").first.wait_for()
    idle(page)
    assert form.get_by_role("textbox", name="用户名", exact=True).input_value() == "zhang.laoshi"
    assert form.get_by_role("textbox", name="显示名", exact=True).input_value() == "张老师"
    assert accounts.find("zhang.laoshi") is None


def test_accounts_form_e2e_a_success_clears_every_field_the_password_too(page, accounts_server, idle):
    form = open_accounts(page, accounts_server, idle)
    form.get_by_role("textbox", name="用户名", exact=True).fill("wang.laoshi")
    form.get_by_role("textbox", name="显示名", exact=True).fill("王老师")
    form.get_by_label("初始密码", exact=False).fill("violet ladder 58 tide")
    form.get_by_role("button", name="新建账号").click()
    page.get_by_text("已新建账号「wang.laoshi」").wait_for()
    idle(page)
    assert accounts_server.accounts.find("wang.laoshi") is not None
    for box in (form.get_by_role("textbox", name="用户名", exact=True), form.get_by_role("textbox", name="显示名", exact=True),
                form.get_by_label("初始密码", exact=False)):
        assert box.input_value() == ""


def test_accounts_form_e2e_a_long_display_name_is_not_cut_silently(page, accounts_server, idle):
    form = open_accounts(page, accounts_server, idle)
    form.get_by_role("textbox", name="用户名", exact=True).fill("long.name")
    form.get_by_role("textbox", name="显示名", exact=True).fill("李" * 60)
    form.get_by_label("初始密码", exact=False).fill("violet ladder 58 tide")
    form.get_by_role("button", name="新建账号").click()
    page.get_by_text("显示名有 60 个字，最多 50 个字").wait_for()
    assert accounts_server.accounts.find("long.name") is None
