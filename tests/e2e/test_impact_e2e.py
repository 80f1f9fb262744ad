"""Browser: saving new defaults shows, before the confirmation, that a question consultants actually asked
(「level 1 上完了能直接转 level 3 吗」, in the review queue) would flip from answered to refused."""

from __future__ import annotations

import pytest

from core.knobs import calibrated
from core.settings import Settings
from core.stores.db import Database
from core.stores.defaults import DefaultsStore
from core.stores.review import ReviewStore
from core.values import Problem, RAGAnswer
from tests.e2e.conftest import IDLE
from tests.e2e.test_tuning_e2e import slider

pytestmark = pytest.mark.e2e

LEVEL_JUMP = "level 1 上完了能直接转 level 3 吗"  # answered at the calibrated knobs: coverage 74% at k=3


@pytest.fixture(scope="module")
def impact_server(start_server):
    server = start_server()
    ReviewStore(Database(f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}")).enqueue(
        RAGAnswer(question=LEVEL_JUMP, text="可以跳级 [1]", hits=(), candidates=(), threshold=0.0, k=3, refused=False,
                  model_called=True, problems=(Problem("manual", "请核对"),)), origin="manual", flagged_by="王老师")
    return server


def test_impact_e2e_saving_defaults_lists_the_asked_question_that_would_flip(page, impact_server, idle):
    page.goto(f"{impact_server.url}/tuning")
    page.wait_for_selector(IDLE, timeout=120_000)  # the first run builds the index and retrieves the set
    page.locator("[data-testid=stMetric]").first.wait_for()
    coverage = slider(page, "关键词覆盖下限")
    coverage.focus()
    for _ in range(round((0.77 - calibrated().min_coverage) * 100)):  # to 0.77: above the question's 74%
        coverage.press("ArrowRight")
    idle(page)
    actor = page.get_by_label("操作人")
    actor.fill("王校长")
    actor.press("Enter")
    idle(page)
    page.get_by_role("button", name="设为默认").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("最近 30 天真实问过的问题").first.wait_for(timeout=60_000)
    flipped = dialog.locator("[data-testid=stColumn]").filter(has_text="回答 → 拒答").filter(has_text=LEVEL_JUMP)
    assert flipped.count() >= 1
    db = Database(Settings.from_env({"XIAOE_DATA_DIR": str(impact_server.data_dir)}).db_url)
    try:
        assert DefaultsStore(db).history() == ()  # seen before anything is saved
        dialog.get_by_role("button", name="确认保存").click()
        page.get_by_text("已设为默认").first.wait_for()
        assert DefaultsStore(db).current().actor == "王校长"
    finally:
        db.dispose()
