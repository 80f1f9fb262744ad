"""The correction box in a real browser (#40): a correction the checks block keeps its box open with the problems in
it (and the text typed); once fixed and approved, the item's detail shows the corrected answer, and no message shows
raw link syntax."""

from __future__ import annotations

import pytest

from core.assistant import open_assistant
from core.settings import Settings
from core.stores.db import Database
from core.stores.review import ReviewStore
from tests.e2e.conftest import act_until_visible

pytestmark = pytest.mark.e2e

ASKED = "三级学费多少"
BLOCKED = "流利级（三级）学费 4900 元[{n}]。"  # 4900 is in no chunk: 数字无出处
FIXED = "流利级（三级）学费 4800 元[{n}]。"
BLOCKED_LABEL = "修改后的回答（没有通过检查，请按下面的问题修改）"


def test_correction_blocked_stays_open_then_the_approved_correction_is_the_detail(page, start_server, idle):
    server = start_server()
    settings = Settings(corpus_dir=server.corpus_dir, data_dir=server.data_dir)
    store = ReviewStore(Database(settings.db_url))
    outcome = open_assistant(settings, with_model=False).respond(ASKED)
    item_id = store.record(outcome) or store.enqueue(outcome.answer, origin="manual", flagged_by="李老师",
                                                       fingerprint=outcome.fingerprint)
    item = store.get(item_id)
    fees = next(n for n, hit in enumerate([h for h in item.candidates if h.passed] or item.candidates, start=1)
                if "4800" in hit.text)

    page.goto(f"{server.url}/review?item={item_id}")
    idle(page)
    page.get_by_text(f"#{item_id} · 待复核").wait_for()
    page.get_by_label("复核人").fill("李老师")
    page.get_by_label("复核人").press("Enter")
    idle(page)
    box = page.get_by_label("修改后的回答")

    def open_correction() -> None:  # a click landing during a rerun can be undone by it; never click it shut
        if not box.first.is_visible():
            page.get_by_text("修改后的回答（可选）").click()

    assert act_until_visible(open_correction, box, tries=4, timeout_ms=5_000), "the correction box never opened"
    box.fill(BLOCKED.format(n=fees))
    page.get_by_role("button", name="通过", exact=True).click()
    page.get_by_role("button", name="仍然通过（越过检查，记录在案）").wait_for()
    idle(page)
    # the box is open by itself, says why, lists the problem and keeps what was typed
    page.get_by_text(BLOCKED_LABEL).wait_for()
    assert box.first.is_visible()
    assert box.first.input_value() == BLOCKED.format(n=fees)
    expander = page.locator("[data-testid=stExpander]").filter(has_text=BLOCKED_LABEL)
    assert expander.get_by_text("4900").first.is_visible()
    assert store.get(item_id).status == "pending"  # nothing was saved

    box.first.fill(FIXED.format(n=fees))
    page.get_by_role("button", name="通过", exact=True).click()
    page.get_by_text(f"#{item_id} 已通过").first.wait_for()
    idle(page)
    assert page.get_by_text("](review?item=").count() == 0, "a message shows raw link syntax"
    page.get_by_role("link", name=f"查看 #{item_id}").first.click()
    page.get_by_text(f"#{item_id} · 已通过").wait_for()
    idle(page)
    detail = page.get_by_text("修改后的回答（处理这一条时采用的版本）")
    detail.wait_for()
    assert page.get_by_text("流利级（三级）学费 4800 元").filter(visible=True).count() == 1
    assert store.get(item_id).corrected_answer == FIXED.format(n=fees)
