"""Browser: a real (scripted) model that answers the refund rules' worked example instead of the
student's own case is flagged on the Ask page, with both sets of figures side by side, and queued."""

from __future__ import annotations

import pytest

from core.stores.db import Database
from core.stores.review import ReviewStore
from tests.e2e.conftest import ROOT, doc_shot, scripted_model_server

SHOT = ROOT / "docs" / "screenshots" / "question_mismatch.png"
QUESTION = "我报的二级 交了4200 上了6节课 现在退能退多少"
# [2] is the chunk holding the worked example (三级, 4800 元, 4 课时) on the shipped corpus.
REUSED = "剩余 12 课时，4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，可退 3420 元[2]。"


@pytest.fixture  # one per test run: a rerun (tests/e2e/conftest.py) starts from an empty queue and a fresh model log
def reusing_server(start_server):
    """The console with its chat model behind XIAOE_LLM_BASE_URL: a local fake that copies the example."""
    with scripted_model_server(start_server, REUSED) as pair:
        yield pair


def figure_rows(page) -> list[list[str]]:
    """The side-by-side table of the question's and the answer's figures, as cell texts."""
    table = page.locator("[data-testid=stMarkdownContainer] table").filter(has_text="问题里").first
    table.wait_for()
    return [[c.strip() for c in row.locator("th, td").all_inner_texts()] for row in table.locator("tr").all()]


def test_question_mismatch_e2e_shows_both_figures_and_queues_the_answer(page, reusing_server, idle, tmp_path):
    server, fake = reusing_server
    page.goto(server.url)
    idle(page)
    box = page.get_by_label("学员的问题")
    box.fill(QUESTION)
    box.press("Enter")
    page.get_by_text("该回答未通过检查，不会发给学员，已记入复核队列").wait_for()
    idle(page)
    assert fake.count("/v1/chat/completions") == 1
    assert figure_rows(page) == [["数字", "问题里", "回答用的"], ["金额", "4200 元", "4800 元、3420 元"],
                                 ["课时", "6 课时", "12 课时"]]
    main = page.locator("[data-testid=stMain]")
    assert main.get_by_text("问题说 4200 元、6 课时，回答用的是 4800 元、3420 元、12 课时", exact=False).count() >= 1
    page.screenshot(path=str(tmp_path / "mismatch.png"))
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    doc_shot(page, SHOT.name)  # the docs' picture (make screenshots)

    store = ReviewStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"))
    (item,) = store.list().items
    assert item.status == "pending" and item.question == QUESTION
    (reason,) = [r for r in item.reasons if r.code == "question_mismatch"]
    assert "4200 元" in reason.message and "4800 元" in reason.message
    assert "question" in item.lanes

    page.goto(f"{server.url}/review?item={item.id}")
    idle(page)
    page.get_by_text(f"#{item.id} · 待复核").wait_for()
    assert page.locator("[data-testid=stMain]").get_by_text("回答用的是 4800 元", exact=False).count() >= 1
