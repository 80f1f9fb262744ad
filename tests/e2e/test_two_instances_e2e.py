"""Browser: two consoles on one PostgreSQL. A corpus edit and a saved default threshold made through
instance A take effect in instance B; two reviewers on A and B decide the same item, the later one
gets the conflict message.

Needs XIAOE_TEST_DATABASE_URL (postgresql+psycopg://…, see /work/shared/testing.md); skipped with
that reason otherwise. The default threshold is saved through the core call the tuning page uses
(DefaultsStore.save), the corpus edit and the decisions through the browser.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from core.settings import Settings
from core.stores.db import Database
from core.stores.defaults import DefaultsStore
from core.stores.review import ReviewStore
from tests.corpus_db import resolve
from tests.e2e.conftest import VIEWPORT
from tests.outcomes import failure_outcome

FILE = "01-口语课分级说明.md"
ADDED = "\n## 七、试听课改约\n\n周日晚上的试听课取消后，可以改约到下周三晚上七点的试听课。\n"
QUESTION = "周日晚上的试听课取消后可以改约到什么时候？"
FACT = "下周三晚上七点"
THRESHOLD = 0.33
WAIT_S = 60.0  # B notices within a few seconds; generous for a loaded CI machine


@pytest.fixture(scope="module")
def pair(start_server, tmp_path_factory):
    url = resolve("postgresql", tmp_path_factory.mktemp("pg"))
    env = {"XIAOE_DATABASE_URL": url}
    a = start_server(extra_env=env)
    b = start_server(extra_env=env)
    yield a, b, url


def _context_page(browser):
    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    context.set_default_timeout(20_000)
    return context, context.new_page()


def _ask(page, url: str, idle) -> str:
    page.goto(url)
    idle(page)
    box = page.get_by_label("学员的问题")
    box.fill(QUESTION)
    box.press("Enter")
    idle(page)
    return page.locator("[data-testid=stMain]").inner_text()


def test_two_instances_e2e_corpus_edit_and_default_reach_the_other(browser, pair, idle):
    a, b, url = pair
    context_a, page_a = _context_page(browser)
    context_b, page_b = _context_page(browser)
    try:
        assert FACT not in _ask(page_b, b.url, idle)

        page_a.goto(f"{a.url}/sources")
        idle(page_a)
        page_a.get_by_role("tab", name="在线编辑").click()
        box = page_a.get_by_label("内容（Markdown）")
        box.fill((a.corpus_dir / FILE).read_text(encoding="utf-8") + ADDED)
        box.press("Control+Enter")
        idle(page_a)
        page_a.get_by_role("button", name="保存并重建索引").click()
        page_a.get_by_text(f"已保存「{FILE}」").wait_for()

        settings = Settings()
        DefaultsStore(Database(url)).save(settings.knobs.with_(threshold=THRESHOLD, k=4), actor="王校长",
                                          settings=settings)

        deadline = time.monotonic() + WAIT_S
        while FACT not in (text := _ask(page_b, b.url, idle)) and time.monotonic() < deadline:
            time.sleep(1.0)
        assert FACT in text, f"instance B never answered from the edited file:\n{text[-800:]}"
        assert FACT in (b.corpus_dir / FILE).read_text(encoding="utf-8")

        _, fresh = _context_page(browser)  # a new session on B reads the saved default
        fresh.goto(b.url)
        idle(fresh)
        slider = fresh.locator("[data-testid=stSlider]").filter(has_text="阈值").get_by_role("slider")
        assert float(slider.input_value()) == pytest.approx(THRESHOLD)
        fresh.context.close()
    finally:
        context_a.close()
        context_b.close()


def test_two_instances_e2e_later_reviewer_gets_the_conflict_message(browser, pair, idle):
    a, b, url = pair
    item = ReviewStore(Database(url)).record(failure_outcome("试听课怎么改约？", message="模型服务超时"))
    pages = []
    try:
        for server, name in ((a, "王老师"), (b, "李老师")):
            context, page = _context_page(browser)
            pages.append((context, page))
            page.goto(f"{server.url}/review?item={item}")
            idle(page)
            page.get_by_text(f"#{item} · 待复核").wait_for()
            page.get_by_label("复核人").fill(name)
            page.get_by_label("复核人").press("Enter")
            expect(page.get_by_role("button", name="通过", exact=True)).to_be_enabled(timeout=20_000)  # name reached the server
            idle(page)
        (_, first), (_, later) = pages
        first.get_by_role("button", name="通过", exact=True).click()
        first.get_by_text(f"#{item} 已通过").first.wait_for()  # shown as a message and a toast
        later.get_by_role("button", name="通过", exact=True).click()
        later.get_by_text("该条目已被 王老师 处理").first.wait_for()
        assert ReviewStore(Database(url)).get(item).reviewer == "王老师"
    finally:
        for context, _ in pages:
            context.close()
