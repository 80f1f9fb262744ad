"""账号管理 in a real browser: a validation error keeps what was typed in the new-account form."""

from __future__ import annotations

import pytest

from core.stores.accounts import AccountStore
from core.stores.db import Database
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

pytestmark = pytest.mark.e2e


def test_accounts_form_e2e_keeps_fields_after_a_validation_error(page, start_server, idle):
    server = start_server(extra_env={"XIAOE_AUTH": "on"})
    accounts = AccountStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"), hasher=FAST_HASHER)
    add_staff(accounts)
    page.goto(server.url)
    idle(page)
    page.get_by_label("用户名").fill("boss")
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录", exact=True).click()
    page.get_by_role("heading", name="提问与检查").wait_for()
    page.goto(f"{server.url}/accounts")
    page.get_by_role("heading", name="账号管理").wait_for()
    idle(page)
    form = page.locator("[data-testid=stForm]").first
    form.get_by_role("textbox", name="用户名", exact=True).fill("zhang.laoshi")
    form.get_by_role("textbox", name="显示名", exact=True).fill("张老师")
    form.get_by_label("初始密码", exact=False).fill("short")
    form.get_by_role("button", name="新建账号").click()
    page.locator("[data-testid=stAlertContentError]").first.wait_for()
    idle(page)
    assert form.get_by_role("textbox", name="用户名", exact=True).input_value() == "zhang.laoshi"
    assert form.get_by_role("textbox", name="显示名", exact=True).input_value() == "张老师"
    assert accounts.find("zhang.laoshi") is None
