"""The 阈值调优 page in a real browser: move the threshold, see the counts change, save a new default."""

from __future__ import annotations

import pytest

from core.db import Database
from core.defaults_store import DefaultsStore, effective_settings
from core.settings import Settings

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def tuning_server(start_server):
    # Its own server: saving a default must not change the threshold other browser tests rely on.
    return start_server()


def metric(page, label: str) -> int:
    box = page.locator("[data-testid=stMetric]").filter(
        has=page.locator("[data-testid=stMetricLabel]", has_text=label)).first
    return int(box.locator("[data-testid=stMetricValue]").inner_text())


def test_tuning_e2e_slider_changes_counts_and_saves_a_default(page, tuning_server, idle, tmp_path):
    page.goto(f"{tuning_server.url}/tuning")
    page.locator("[data-testid=stMetric]").first.wait_for()
    idle(page)
    before = {label: metric(page, label) for label in ("误拒", "正确拒答", "正确回答")}
    assert before["正确拒答"] > 0  # the default threshold refuses something

    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("Home")  # threshold 0.00: every question is answered
    idle(page)
    # at threshold 0 nothing is refused, so 正确拒答 drops to 0 (误拒 may already be 0 at the default)
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=stMetric]')].some("
                           "m => m.innerText.includes('正确拒答') && m.querySelector('[data-testid=stMetricValue]')"
                           ".innerText.trim() === '0')")
    idle(page)
    assert metric(page, "误拒") == 0 and metric(page, "正确拒答") == 0
    assert metric(page, "正确回答") >= before["正确回答"]

    actor = page.get_by_label("操作人")
    actor.fill("王老师")
    actor.press("Enter")
    idle(page)
    page.get_by_role("button", name="设为默认阈值").click()
    page.get_by_text("已设为默认").wait_for()
    idle(page)
    page.screenshot(path=str(tmp_path / "tuning.png"))

    settings = Settings.from_env({"XIAOE_DATA_DIR": str(tuning_server.data_dir)})
    db = Database(settings.db_url)
    try:
        assert DefaultsStore(db).current().actor == "王老师"
        assert effective_settings(settings, db).min_score == 0.0
    finally:
        db.dispose()
