"""#29 items 2 and 8 in a real browser: a password reset ends the old cookie's session, and over HTTPS the cookie
is `__Host-` prefixed (Secure, Path=/, SameSite=Strict) and a planted plain cookie does not sign anybody in.
"""

from __future__ import annotations

import pytest

from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

pytestmark = pytest.mark.e2e

LOGIN = "登录小E 审核台"
NEW_PASSWORD = "violet ladder 58 tide"


def accounts_of(server) -> AccountStore:
    store = AccountStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"), hasher=FAST_HASHER)
    if not store.count():
        add_staff(store)
    return store


def sign_in(page, server, idle, username: str, password: str = PASSWORD) -> None:
    page.goto(server.url)
    idle(page)
    page.get_by_role("heading", name=LOGIN).wait_for()
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(password)
    page.get_by_role("button", name="登录", exact=True).click()
    page.get_by_role("heading", name="提问与检查").wait_for()
    idle(page)


def session_cookie(context, name: str):
    return next((c for c in context.cookies() if c["name"] == name), None)


def test_session_hardening_e2e_password_reset_ends_the_old_cookies_session(browser, start_server, idle):
    server = start_server(extra_env={"XIAOE_AUTH": "on"})
    accounts_of(server)
    victim = browser.new_context(locale="zh-CN")
    victim.set_default_timeout(15_000)
    amy = victim.new_page()
    sign_in(amy, server, idle, "amy")
    stolen = session_cookie(victim, "xiaoe_session")
    assert stolen is not None

    admin = browser.new_context(locale="zh-CN", viewport={"width": 1400, "height": 1000})
    admin.set_default_timeout(15_000)
    boss = admin.new_page()
    sign_in(boss, server, idle, "boss")
    boss.goto(f"{server.url}/accounts")
    boss.get_by_role("heading", name="账号管理").wait_for()
    idle(boss)
    boss.get_by_role("tab", name="修改账号").click()
    boss.get_by_label("选择账号").click()
    boss.get_by_role("option", name="amy", exact=True).click()
    idle(boss)
    boss.get_by_role("button", name="重设密码").click()
    boss.get_by_label("新密码").fill(NEW_PASSWORD)
    boss.get_by_role("button", name="保存新密码").click()
    boss.get_by_text("已重设「amy」的密码").wait_for()

    amy.reload()  # the tab that was signed in: its cookie's session has ended
    amy.get_by_role("heading", name=LOGIN).wait_for()
    amy.get_by_text("密码已被重设").first.wait_for()

    thief = browser.new_context(locale="zh-CN")  # a stolen copy of the cookie, in another browser
    thief.add_cookies([{k: stolen[k] for k in ("name", "value", "domain", "path", "sameSite")}])
    other = thief.new_page()
    other.goto(server.url)
    idle(other)
    other.get_by_role("heading", name=LOGIN).wait_for()
    assert other.get_by_role("heading", name="提问与检查").count() == 0
    for context in (victim, admin, thief):
        context.close()


def test_session_hardening_e2e_https_cookie_is_host_prefixed_and_a_planted_one_is_ignored(browser, start_server,
                                                                                          idle):
    server = start_server(extra_env={"XIAOE_AUTH": "on"}, https=True)
    store = accounts_of(server)
    context = browser.new_context(locale="zh-CN", ignore_https_errors=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    sign_in(page, server, idle, "amy")
    cookie = session_cookie(context, "__Host-xiaoe_session")
    assert cookie is not None and cookie["secure"] and cookie["path"] == "/" and cookie["sameSite"] == "Strict"
    assert session_cookie(context, "xiaoe_session") is None
    page.reload()
    page.get_by_role("heading", name="提问与检查").wait_for()

    store.add("bob", PASSWORD, actor="test", display_name="顾问 Bob")
    planted = SessionStore(store).sign_in("bob", PASSWORD).token  # the attacker's own valid session
    victim = browser.new_context(locale="zh-CN", ignore_https_errors=True)
    victim.add_cookies([{"name": "xiaoe_session", "value": planted, "url": server.url, "sameSite": "Strict"}])
    tab = victim.new_page()
    tab.goto(server.url)
    idle(tab)
    tab.get_by_role("heading", name=LOGIN).wait_for()  # not signed in as bob
    for each in (context, victim):
        each.close()
