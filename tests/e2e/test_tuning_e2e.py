"""The 阈值调优 page in a real browser tunes the real gate: move the threshold and a decision knob, save them
as the default after the confirmation, and the Ask page then decides a question the way the page predicted."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from core.knobs import calibrated
from core.settings import REFUSAL_TEXT, Settings
from core.stores.db import Database
from core.stores.defaults import DefaultsStore, effective_settings

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def tuning_server(start_server):
    # Its own server: saving a default must not change the knobs other browser tests rely on.
    return start_server()


def metric(page, label: str) -> int:
    box = page.locator("[data-testid=stMetric]").filter(
        has=page.locator("[data-testid=stMetricLabel]", has_text=label)).first
    return int(box.locator("[data-testid=stMetricValue]").inner_text())


def slider(page, label: str):
    return page.locator("[data-testid=stSlider]").filter(has_text=label).get_by_role("slider")


def grid_rows(page) -> list[list[str]]:
    """The header and cells of the first st.dataframe on the page, row by row, read from the accessible
    table the data grid keeps inside its canvas (hidden from view, so read as text content)."""
    table = page.locator("[data-testid=stDataFrame] canvas table").first
    table.locator("td[role=gridcell]").first.wait_for(state="attached")
    header = [(th.text_content() or "").strip() for th in table.locator("th").all()]
    rows = [[(td.text_content() or "").strip() for td in row.locator("td[role=gridcell]").all()]
            for row in table.locator("tr").all()]
    return [header, *(r for r in rows if r)]


def test_tuning_e2e_saved_knobs_flip_the_predicted_question_on_the_ask_page(page, tuning_server, idle, tmp_path):
    page.goto(f"{tuning_server.url}/tuning")
    page.locator("[data-testid=stMetric]").first.wait_for(timeout=120_000)  # first run: index and set retrieval
    idle(page)
    before = metric(page, "误拒")

    threshold = slider(page, "阈值（排序分")
    threshold.focus()
    for _ in range(4):
        threshold.press("ArrowRight")
    idle(page)
    coverage = slider(page, "关键词覆盖下限")
    coverage.focus()
    coverage.press("End")  # every keyword must be in the passing chunks
    idle(page)
    page.wait_for_function(f"() => [...document.querySelectorAll('[data-testid=stMetric]')].some("
                           f"m => m.innerText.includes('误拒') && Number(m.querySelector("
                           f"'[data-testid=stMetricValue]').innerText) > {before})")

    page.get_by_role("tab", name="假如改参数").click()
    idle(page)
    header, *rows = grid_rows(page)
    flipped = next(r for r in rows if r[header.index("之前")] == "正确回答" and r[header.index("之后")] == "误拒")
    question = flipped[header.index("问题")]

    actor = page.get_by_label("操作人")
    actor.fill("王老师")
    actor.press("Enter")
    idle(page)
    page.get_by_role("button", name="设为默认").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("之后").first.wait_for()
    dialog.get_by_role("button", name="确认保存").click()
    page.get_by_text("已设为默认").first.wait_for()  # shown as a message and a toast
    idle(page)
    page.screenshot(path=str(tmp_path / "tuning.png"))

    settings = Settings.from_env({"XIAOE_DATA_DIR": str(tuning_server.data_dir)})
    db = Database(settings.db_url)
    try:
        saved = effective_settings(settings, db)
        assert DefaultsStore(db).current().actor == "王老师"
        assert (saved.min_score, saved.min_coverage) == (round(calibrated().threshold + 0.04, 2), 1.0)  # four steps right
    finally:
        db.dispose()

    page.goto(f"{tuning_server.url}/?q={quote(question, safe='')}")  # a new session: the saved knobs
    page.get_by_text(REFUSAL_TEXT).first.wait_for()
    idle(page)
    page.get_by_text("关键词覆盖").first.wait_for()  # the comparison table of the gate at the saved knobs
