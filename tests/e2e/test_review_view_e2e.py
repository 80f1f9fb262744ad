"""Browser at 1366×768: the queue's detail pane only ever shows (and decides) an item of the list on screen.

An item is selected, the lane filter then changes so it leaves the list; 通过并下一条 must decide an item
that is in the new list, never the one that left it. The queue's first screen (lane, reason, both decision
buttons) is saved as docs/screenshots/review-queue-1366.png by `make screenshots`.
"""

from __future__ import annotations

import pytest

from core.stores.db import Database
from core.stores.review import ReviewStore
from core.stores.review_input import validated
from core.values import Problem
from tests.e2e.conftest import IDLE, doc_shot

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1366, "height": 768}
REFUSED = Problem("refused", "没有片段达到阈值")
FLAGGED = Problem("manual", "人工标记：价格说错了，资料里是 4200 元")
STALE = Problem("stale_corpus", "所引资料已更新：02-退费与转班制度.md")
ROWS = [  # inserted in this order: ids 1–4, listed newest first (4, 3, 2, 1)
    ("寒假班几号开始？", "refusal", (REFUSED,), None),
    ("二级课程学费多少？", "manual", (FLAGGED,), "李老师"),
    ("开课后还能退费吗？", "auto", (STALE,), None),
    ("转班要交手续费吗？", "auto", (STALE,), None),
]


@pytest.fixture(scope="module")
def queue_server(start_server):
    server = start_server()
    store = ReviewStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"))
    for question, origin, reasons, flagged_by in ROWS:
        store._insert([validated(question=question, answer="这是入队时的回答。" if origin != "refusal" else "",
                                 origin=origin, reasons=reasons, threshold=0.3, k=4, candidates=(),
                                 fingerprint="f", flagged_by=flagged_by)])
    server.store = store
    return server


def inside_viewport(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"]


def shown_id(page) -> int:
    return int(page.locator("[data-testid=stMain] h3").first.inner_text().split(" · ")[0].lstrip("#"))


def listed_ids(page) -> list[int]:
    """The 编号 column of the queue table, read from the grid's accessible table inside its canvas."""
    cells = page.locator("[data-testid=stDataFrame] canvas table td[role=gridcell][aria-colindex='1']")
    return [int(text) for text in cells.all_text_contents() if text.strip().isdigit()]


def click_row(page, row: int) -> None:
    """Tick a row of the queue table: the grid draws on a canvas, so click the row's selection box."""
    grid = page.locator("[data-testid=stDataFrame]").first
    box = grid.bounding_box()
    grid.click(position={"x": 18, "y": 35 * (row + 1) + 17})  # header row, then 35-px rows
    assert box is not None


def test_review_view_e2e_a_filter_change_never_lets_a_decision_land_outside_the_list(browser, queue_server, idle):
    context = browser.new_context(viewport=LAPTOP, locale="zh-CN")
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{queue_server.url}/review")
    page.wait_for_selector(IDLE, timeout=120_000)  # the first run builds the index; slow on a busy machine
    page.get_by_label("复核人").fill("王老师")
    page.get_by_label("复核人").press("Enter")
    idle(page)
    page.locator("[data-testid=stDataFrame] canvas table").first.wait_for(state="attached")
    click_row(page, 2)  # #2, the item a colleague flagged: not in 资料已更新
    idle(page)
    page.get_by_text("#2 · 待复核").wait_for()

    # the first screen at 1366×768: lane, the reason and both decision buttons, no scrolling
    reason = page.locator("[data-testid=stMarkdownContainer]").filter(has_text="入队原因").first
    assert "人工标记" in reason.inner_text() and "价格说错了" in reason.inner_text()
    assert inside_viewport(reason)
    for name in ("通过并下一条", "驳回并下一条"):
        assert inside_viewport(page.get_by_role("button", name=name)), f"「{name}」不在 1366×768 的可见范围内"
    doc_shot(page, "review-queue-1366.png")

    page.get_by_label("通道").click()
    page.get_by_role("option", name="资料已更新", exact=True).click()
    idle(page)
    for _ in range(50):  # the table redraws after the run; wait until it lists the new filter's rows
        if listed_ids(page) == [4, 3]:
            break
        page.wait_for_timeout(100)
    assert listed_ids(page) == [4, 3]
    assert shown_id(page) in listed_ids(page)  # the pane followed the filter: #2 is gone from it
    page.get_by_role("button", name="通过并下一条").click()
    page.get_by_text("#4 已通过").first.wait_for()
    idle(page)
    assert shown_id(page) == 3
    statuses = {i: queue_server.store.get(i).status for i in (1, 2, 3, 4)}
    assert statuses == {1: "pending", 2: "pending", 3: "pending", 4: "approved"}
    context.close()
