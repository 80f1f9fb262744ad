"""Staying signed in across tabs: one password, then reloads, citation tabs and queue links; logout and disabling end them all."""

from __future__ import annotations

import pytest

from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.review import ReviewStore
from core.stores.review_input import validated
from core.values import Problem
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

pytestmark = pytest.mark.e2e

LOGIN = "登录小E 审核台"


@pytest.fixture(scope="module")
def cookie_server(start_server):
    server = start_server(extra_env={"XIAOE_AUTH": "on"})
    db = Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}")
    store = AccountStore(db, hasher=FAST_HASHER)
    add_staff(store)
    store.add("bob", PASSWORD, actor="test", role="consultant", display_name="顾问 Bob")
    queue = ReviewStore(db)
    entry = validated(question="寒假班几号开始？", answer="", origin="refusal",
                      reasons=(Problem("refused", "资料里没有"),), threshold=0.3, k=4, candidates=(),
                      fingerprint="f", flagged_by=None)
    server.item_id = queue._insert([entry])[0]
    server.accounts = store
    return server


def sign_in(page, server, idle, username: str) -> None:
    page.goto(server.url)
    idle(page)
    page.get_by_role("heading", name=LOGIN).wait_for()
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录", exact=True).click()
    page.get_by_role("heading", name="提问与检查").wait_for()
    idle(page)


def heading(page, idle) -> str:
    idle(page)
    page.locator("h1").first.wait_for()
    return page.locator("h1").first.inner_text().strip()


def test_login_cookie_e2e_one_password_for_reload_and_new_tabs(page, cookie_server, idle):
    sign_in(page, cookie_server, idle, "amy")
    cookie = next(c for c in page.context.cookies() if c["name"] == "xiaoe_session")
    assert cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert cookie["value"] not in page.url

    page.reload()
    assert heading(page, idle) == "提问与检查"

    citation = page.context.new_page()  # what a citation link's target=_blank opens
    citation.goto(f"{cookie_server.url}/sources?source=01-%E5%8F%A3%E8%AF%AD%E8%AF%BE%E5%88%86%E7%BA%A7%E8%AF%B4%E6%98%8E.md&chunk=1")
    assert heading(citation, idle) == "资料原文"

    queue_tab = page.context.new_page()
    queue_tab.goto(f"{cookie_server.url}/review?item={cookie_server.item_id}")
    assert heading(queue_tab, idle) == "复核队列"
    queue_tab.get_by_text("寒假班几号开始？").first.wait_for()

    page.get_by_role("button", name="退出登录").click()
    page.get_by_role("heading", name=LOGIN).wait_for()
    # The other tabs notice on their next action (here: opening another page from the sidebar).
    citation.locator("[data-testid=stSidebarNav]").get_by_role("link", name="复核队列").click()
    citation.get_by_role("heading", name=LOGIN).wait_for()
    queue_tab.reload()
    assert heading(queue_tab, idle) == LOGIN


def test_login_cookie_e2e_disabled_account_signs_out_every_tab(page, cookie_server, idle):
    sign_in(page, cookie_server, idle, "bob")
    second = page.context.new_page()
    second.goto(f"{cookie_server.url}/review")
    assert heading(second, idle) == "复核队列"

    cookie_server.accounts.set_disabled("bob", True, actor="boss")
    for tab in (page, second):
        tab.locator("[data-testid=stSidebarNav]").get_by_role("link", name="资料原文").click()
        tab.get_by_role("heading", name=LOGIN).wait_for()
    page.get_by_text("已被停用").first.wait_for()  # the first to notice ends the session; the other reads 已失效
