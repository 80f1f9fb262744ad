"""Sign-in throttling in a real browser (#41 findings 5 and 11): the wrong-password countdown counts down (it read
4, 4, 2, 1), and with XIAOE_TRUSTED_PROXIES=none an X-Forwarded-For header sent on a local connection is not
believed (Streamlit's web server rewrites the reported address from it by itself): five wrong passwords bring the
unknown source's retry wait, never a lock on a made-up address the next attempt can change."""

from __future__ import annotations

import re

import pytest
from argon2 import PasswordHasher

from core.stores.accounts import AccountStore
from core.stores.db import Database
from tests.auth_helpers import PASSWORD
from tests.e2e.test_auth_e2e import staffed

pytestmark = pytest.mark.e2e

ERROR = "[data-testid=stAlertContentError]"


@pytest.fixture(scope="module")
def none_server(start_server):
    server = start_server(extra_env={"XIAOE_AUTH": "on", "XIAOE_TRUSTED_PROXIES": "none"})
    staffed(server)
    # one account with argon2's default cost, as a real one has: checking its password takes a noticeable moment
    AccountStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"), hasher=PasswordHasher()).add(
        "chief", PASSWORD, actor="test", role="admin")
    return server


RUNNING = "[data-testid=stApp][data-test-script-state=running]"


def wrong_tries(page, server, idle, times: int, name: str = "boss") -> list[str]:
    """The error shown after each of `times` wrong passwords for `name`, submitted one after another."""
    page.goto(server.url)
    idle(page)
    page.get_by_role("heading", name="登录小E 审核台").wait_for()
    said = []
    for n in range(times):
        page.get_by_label("用户名").fill(name)
        page.get_by_label("密码").fill(f"wrong password {n}")
        page.get_by_label("密码").press("Enter")
        # the error of this attempt, not the one still on the page from the last: they differ in the count
        page.wait_for_function(
            "([sel, before]) => { const e = document.querySelector(sel); return e && e.innerText !== before; }",
            arg=[ERROR, said[-1] if said else ""])
        idle(page)
        said.append(page.locator(ERROR).first.inner_text())
    return said


def test_sign_in_e2e_the_wrong_password_countdown_counts_down(page, none_server, idle):
    said = wrong_tries(page, none_server, idle, 5)
    counts = [int(m.group(1)) for m in (re.search(r"再输错 (\d) 次", s) for s in said[:4]) if m]
    assert counts == [4, 3, 2, 1], said
    assert "等" in said[4]


def test_sign_in_e2e_the_last_count_is_gone_while_the_next_password_is_checked(page, none_server, idle):
    """The probe read 4, 4, 2, 1: the page still showed the last attempt's count while the next was checked."""
    wrong_tries(page, none_server, idle, 1, name="chief")
    page.get_by_label("用户名").fill("chief")
    page.get_by_label("密码").fill("wrong password again")
    page.get_by_label("密码").press("Enter")
    # while the script still runs (argon2 at its default cost), the old 「再输错 4 次」 is already gone
    page.wait_for_function(f"() => document.querySelector('{RUNNING}') && "
                           f"!document.querySelector('{ERROR}')", timeout=20_000)
    idle(page)
    assert "再输错 3 次" in page.locator(ERROR).first.inner_text()


def test_sign_in_e2e_trusted_proxies_none_ignores_forwarded_for_on_local_connections(browser, none_server, idle):
    said = []
    for n, tries in enumerate((3, 2)):  # each "visitor" claims another address; both are this one unknown source
        context = browser.new_context(locale="zh-CN", extra_http_headers={"X-Forwarded-For": f"198.51.100.{7 + n}"})
        page = context.new_page()
        try:
            said += wrong_tries(page, none_server, idle, tries, name="amy")
        finally:
            context.close()
    assert "每次重试都要等" in said[0] and "锁定" not in said[0], said[0]  # the unknown source's wording
    assert re.search(r"再输错 (\d) 次", said[3]).group(1) == "1", said  # the second "address" counts on
    assert "输错次数过多" in said[4], said
