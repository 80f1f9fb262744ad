"""Browser: a fabricated citation from a real (scripted) model over HTTP lands in the queue and is decided."""

from __future__ import annotations

import pytest

from core.stores.db import Database
from core.stores.review import ReviewStore
from tests.e2e.conftest import ROOT, doc_shot, scripted_model_server

README_SHOT = ROOT / "docs" / "screenshots" / "review.png"

FABRICATED = "口语课一共六级，每级 12 课时[7]"
QUESTION = "启明英语的口语课一共有几级？"


@pytest.fixture  # one per test run: a rerun (tests/e2e/conftest.py) starts from an empty queue and a fresh model log
def scripted_server(start_server):
    """The console with its chat model behind XIAOE_LLM_BASE_URL: a local fake that always fabricates."""
    with scripted_model_server(start_server, FABRICATED) as pair:
        yield pair


def test_review_e2e_fabricated_answer_is_queued_then_rejected(page, scripted_server, idle, tmp_path):
    server, fake = scripted_server
    page.goto(server.url)
    idle(page)
    box = page.get_by_label("学员的问题")
    box.fill(QUESTION)
    box.press("Enter")
    page.get_by_text("该回答未通过检查，不会发给学员，已记入复核队列").wait_for()
    idle(page)
    assert fake.count("/v1/chat/completions") == 1
    main = page.locator("[data-testid=stMain]")
    assert main.get_by_text("引用了不存在的编号 [7]").count() >= 1
    # not shown as final: the text only sits inside the collapsed draft expander
    assert not main.get_by_text(FABRICATED).first.is_visible()
    page.screenshot(path=str(tmp_path / "flagged.png"))

    store = ReviewStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"))
    (item,) = store.list().items
    assert item.status == "pending" and "bad_ref" in {r.code for r in item.reasons}

    page.goto(f"{server.url}/review?item={item.id}")
    idle(page)
    page.get_by_text(f"#{item.id} · 待复核").wait_for()
    page.get_by_label("复核人").fill("王老师")
    page.get_by_label("复核人").press("Enter")
    idle(page)
    page.get_by_role("button", name="驳回", exact=True).click()
    page.get_by_text("驳回必须写明理由").wait_for()
    page.get_by_label("备注（驳回时必填）").fill("级别和课时都是编的")
    page.get_by_role("button", name="驳回", exact=True).click()
    page.get_by_text(f"#{item.id} 已驳回").first.wait_for()  # shown as a message and a toast
    idle(page)
    page.goto(f"{server.url}/review?item={item.id}")  # the item's link, opened again, shows the decided status
    idle(page)
    page.get_by_text(f"#{item.id} · 已驳回").wait_for()
    page.screenshot(path=str(tmp_path / "rejected.png"))
    doc_shot(page, README_SHOT.name)  # the README's picture of the queue (make screenshots)

    decided = store.get(item.id)
    assert (decided.status, decided.reviewer, decided.note) == ("rejected", "王老师", "级别和课时都是编的")
    events = store.events(item.id)
    assert [e.to_status for e in events][-1] == "rejected" and events[-1].actor == "王老师"
    assert "sk-test-not-a-real-key" not in server.log_text()
