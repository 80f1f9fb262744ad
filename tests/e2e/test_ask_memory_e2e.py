"""The Ask page remembers, in a real browser: ask, reload, and the question, its answer and 「我最近问过」 are still
there (the address carries ?q=); 「对比两组参数」 shows the decision at the sliders and at the saved default."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

LEVELS = "启明英语的口语课一共有几级？"


@pytest.fixture(scope="module")
def own_server(start_server):
    return start_server()  # its own data folder: the history of other tests' questions does not show here


def test_ask_memory_e2e_reload_keeps_question_answer_and_history(page, own_server, idle):
    page.goto(own_server.url)
    box = page.get_by_label("学员的问题")
    box.wait_for(timeout=60_000)  # a cold server builds its index first
    idle(page)
    box.fill(LEVELS)
    box.press("Enter")
    page.get_by_role("heading", name="检索到的片段").wait_for()
    idle(page)
    assert parse_qs(urlparse(page.url).query).get("q") == [LEVELS]

    page.reload()
    page.get_by_role("heading", name="检索到的片段").wait_for(timeout=60_000)
    idle(page)
    expect(page.get_by_label("学员的问题")).to_have_value(LEVELS)  # the box is filled once the run's state arrives
    assert page.get_by_text("引用检查：通过").is_visible()
    answer = page.locator("[data-testid=stMarkdownContainer]").filter(has=page.locator("a", has_text="[1]")).first
    assert "四级" in answer.inner_text()
    page.get_by_text(re.compile(r"我最近问过（1）")).click()
    page.get_by_role("button", name=LEVELS, exact=True).wait_for()


def test_ask_memory_e2e_compare_shows_both_decisions(page, own_server, idle):
    page.goto(own_server.url + "/?q=" + LEVELS)
    page.get_by_role("heading", name="检索到的片段").wait_for(timeout=60_000)
    idle(page)
    page.get_by_text("对比两组参数").click()
    details = page.locator("[data-testid=stExpander]").filter(has_text="对比两组参数")
    details.get_by_text("当前滑块", exact=True).wait_for()
    assert details.get_by_text("已保存的默认值", exact=True).is_visible()
    assert details.get_by_text(re.compile("作答")).count() >= 2  # one decision per column
