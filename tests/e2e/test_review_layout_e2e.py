"""Browser at 1366×768: the queue list is drawn with the detail and stays in place across decisions, and nothing
important is cut (the question column, the labels of the item's buttons)."""

from __future__ import annotations

import pytest

from core.stores.db import Database
from core.stores.review import ReviewStore
from core.stores.review_input import validated
from core.values import Problem
from tests.e2e.conftest import IDLE
from ui.review_view import QUEUE_COLUMNS, QUEUE_WIDTHS

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1366, "height": 768}
QUESTIONS = ("晚上七点以后还有课吗？我下班比较晚", "学费能用花呗分期付款吗？一次交不起", "能开发票吗")
TICK_COLUMN = 33  # the grid's selection column, left of 编号
GRID = "[data-testid=stDataFrame]"
CLIPPED = """() => [...document.querySelectorAll('[data-testid=stMain] button')]
    .filter(b => b.offsetParent !== null)
    .filter(b => [b, ...b.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
    .map(b => b.innerText.trim())"""


@pytest.fixture(scope="module")
def refusal_server(start_server):
    server = start_server()
    store = ReviewStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"))
    for question in QUESTIONS:
        store._insert([validated(question=question, answer="这件事资料里没写。", origin="refusal",
                                 reasons=(Problem("refused", "没有片段达到阈值"),), threshold=0.3, k=4,
                                 candidates=(), fingerprint="f", flagged_by=None)])
    server.store = store
    return server


def open_queue(browser, server, idle):
    context = browser.new_context(viewport=LAPTOP, locale="zh-CN")
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{server.url}/review")
    page.wait_for_selector(IDLE, timeout=120_000)  # the first run builds the index; slow on a busy machine
    page.get_by_label("复核人").fill("王老师")
    page.get_by_label("复核人").press("Enter")
    idle(page)
    page.locator(f"{GRID} canvas table").first.wait_for(state="attached")
    return context, page


def test_review_layout_e2e_the_list_stays_in_place_while_a_decision_opens_the_next_item(browser, refusal_server,
                                                                                       idle):
    context, page = open_queue(browser, refusal_server, idle)
    assert page.locator(GRID).count() == 1  # the detail's tables are built only once their expander is opened
    page.evaluate(f"document.querySelector('{GRID}').dataset.kept = 'yes'")
    first = page.locator("[data-testid=stMain] h3").first.inner_text().split(" · ")[0]
    page.get_by_role("button", name="通过并下一条").click()
    page.get_by_text(f"{first} 已通过").first.wait_for()
    idle(page)
    # the same grid, updated where it stands: a new one is built only after the detail, and arrived seconds later
    assert page.evaluate(f"document.querySelector('{GRID}').dataset.kept") == "yes"
    context.close()


def test_review_layout_e2e_the_question_column_and_the_button_labels_are_not_cut(browser, refusal_server, idle):
    context, page = open_queue(browser, refusal_server, idle)
    grid = page.locator(GRID).first.bounding_box()
    question_ends = TICK_COLUMN + sum(QUEUE_WIDTHS[c] for c in QUEUE_COLUMNS[:QUEUE_COLUMNS.index("问题") + 1])
    assert question_ends <= grid["width"], f"「问题」列在 {question_ends}px 处结束，表格只有 {grid['width']:.0f}px 宽"
    page.get_by_role("button", name="资料确实没有（预期拒答）").scroll_into_view_if_needed()
    assert page.evaluate(CLIPPED) == []
    context.close()
