"""Sign-in in a real browser: the login gate, what a 顾问 cannot do, an admin's upload reaching the Ask page."""

from __future__ import annotations

import pytest

from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.defaults import DefaultsStore
from core.stores.sessions import BAD_CREDENTIALS
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

pytestmark = pytest.mark.e2e

NEW_FILE = "寒假集训营安排.md"
NEW_TEXT = ("# 寒假集训营\n\n寒假集训营在 1 月 20 日开营，每天上午 9 点到 11 点上课，共 10 天。\n\n"
            "## 报名方式\n\n寒假集训营请在前台或小程序报名，报名截止到 1 月 15 日。\n")


def staffed(server) -> AccountStore:
    """Accounts created through the core API in the server's own database (it reads them on every rerun)."""
    store = AccountStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"), hasher=FAST_HASHER)
    add_staff(store)
    return store


@pytest.fixture(scope="module")
def auth_server(start_server):
    server = start_server(extra_env={"XIAOE_AUTH": "on"})
    staffed(server)
    return server


def titles(page) -> set[str]:
    return {t.strip() for t in page.locator("h1").all_inner_texts()}


def sign_in(page, server, idle, username: str, password: str = PASSWORD) -> None:
    page.goto(server.url)
    idle(page)
    page.get_by_role("heading", name="登录小E 审核台").wait_for()
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(password)
    page.get_by_role("button", name="登录", exact=True).click()


def open_page(page, idle, title: str) -> None:
    page.locator("[data-testid=stSidebarNav]").get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title, exact=True).wait_for()
    idle(page)


def test_auth_e2e_login_gate(page, auth_server, idle):
    page.goto(auth_server.url)
    idle(page)
    assert titles(page) == {"登录小E 审核台"}
    assert page.locator("[data-testid=stSidebarNav]").count() == 0  # no other page is even listed

    sign_in(page, auth_server, idle, "amy", "not the password")
    page.get_by_text(BAD_CREDENTIALS).wait_for()
    assert titles(page) == {"登录小E 审核台"}

    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录", exact=True).click()
    page.get_by_role("heading", name="提问与检查").wait_for()
    idle(page)
    page.locator("[data-testid=stSidebar]").get_by_text("已登录：顾问 Amy（amy，顾问）").wait_for()

    page.get_by_role("button", name="退出登录").click()
    page.get_by_role("heading", name="登录小E 审核台").wait_for()


def test_auth_e2e_consultant_sees_no_settings_and_cannot_save_the_threshold(page, auth_server, idle):
    sign_in(page, auth_server, idle, "amy")
    page.get_by_role("heading", name="提问与检查").wait_for()
    nav = page.locator("[data-testid=stSidebarNav]")
    assert nav.get_by_role("link", name="复核队列").count() == 1
    assert nav.get_by_role("link", name="设置").count() == 0
    assert nav.get_by_role("link", name="账号管理").count() == 0

    open_page(page, idle, "阈值调优")
    page.get_by_text("只有管理员可以修改默认值").wait_for()
    thumb = page.locator("[data-testid=stSlider]").filter(has_text="阈值（").get_by_role("slider")
    thumb.focus()
    for _ in range(3):
        thumb.press("ArrowRight")
    idle(page)
    assert page.get_by_role("button", name="设为默认", exact=True).is_disabled()
    db = Database(f"sqlite:///{auth_server.data_dir / 'xiaoe.sqlite3'}")
    assert DefaultsStore(db).current() is None


def test_auth_e2e_admin_uploads_a_file_and_ask_answers_from_it(page, auth_server, idle):
    sign_in(page, auth_server, idle, "boss")
    page.get_by_role("heading", name="提问与检查").wait_for()
    assert page.locator("[data-testid=stSidebarNav]").get_by_role("link", name="设置").count() == 1

    open_page(page, idle, "资料原文")
    page.get_by_role("heading", name="资料管理（仅管理员）").wait_for()
    page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(
        files=[{"name": NEW_FILE, "mimeType": "text/markdown", "buffer": NEW_TEXT.encode("utf-8")}])
    idle(page)
    page.get_by_role("button", name="上传并重建索引").click()
    page.get_by_text(f"已保存「{NEW_FILE}」第 1 版").wait_for()
    assert (auth_server.corpus_dir / NEW_FILE).read_text(encoding="utf-8") == NEW_TEXT

    open_page(page, idle, "提问与检查")
    box = page.get_by_label("学员的问题")
    box.fill("寒假集训营什么时候开营？")
    box.press("Enter")
    page.get_by_role("heading", name="检索到的片段").wait_for()
    idle(page)
    first = page.locator("[data-testid=stTable] table").filter(has=page.locator("thead th", has_text="状态")).first
    first.locator("tbody tr").first.wait_for()
    assert NEW_FILE in first.locator("tbody tr").first.inner_text()
    assert page.locator("a", has_text="[1]").count() >= 1
    assert page.get_by_text("1 月 20 日").count() >= 1


@pytest.fixture(scope="module")
def fresh_server(start_server):
    """A server nobody has opened at / yet (a `pages/` folder would have been served bare here)."""
    server = start_server(extra_env={"XIAOE_AUTH": "on"})
    staffed(server)
    return server


@pytest.mark.parametrize("path", ["settings", "accounts", "review", "tuning", "sources", "ask"])
def test_auth_e2e_deep_link_on_a_fresh_server_asks_to_sign_in(page, fresh_server, idle, path):
    page.goto(f"{fresh_server.url}/{path}")
    idle(page)
    main = page.locator("[data-testid=stMain]")
    main.get_by_role("heading", name="登录小E 审核台").wait_for(timeout=5_000)
    assert page.get_by_text("Page not found").count() == 0  # the gate answers every address, in Chinese
    assert main.locator("[data-testid=stDataFrame], [data-testid=stTable], [data-testid=stSlider], "
                        "[data-testid=stFileUploader]").count() == 0, f"/{path} 未登录就显示了内容"
    assert main.get_by_label("学员的问题").count() == 0
