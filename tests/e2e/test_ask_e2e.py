"""The Ask page in a real browser: answer with citations, refusal, citation → Sources, threshold move."""

from __future__ import annotations

import math
import re

import pytest

from core.settings import REFUSAL_TEXT
from tests.e2e.conftest import doc_shot
from tests.paths import ROOT

pytestmark = pytest.mark.e2e

README_SHOT = ROOT / "docs" / "screenshots" / "ask.png"
LEVELS = "启明英语的口语课一共有几级？"
IELTS = "你们的雅思保过班多少钱？"


def ask(page, server, idle, question: str) -> None:
    page.goto(server.url)
    idle(page)
    box = page.get_by_label("学员的问题")
    box.fill(question)
    box.press("Enter")  # the question box is a form: Enter submits
    page.get_by_role("heading", name="检索到的片段").wait_for()
    candidates_table(page).locator("tbody tr").first.wait_for()  # st.table's code loads lazily
    idle(page)


def candidates_table(page):
    return page.locator("[data-testid=stTable] table").filter(has=page.locator("thead th", has_text="状态")).first


def candidate_rows(page) -> list[dict[str, str]]:
    """The rows of the candidates table (the one with a 状态 column), as header → cell text."""
    table = candidates_table(page)
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    rows = []
    for row in table.locator("tbody tr").all():
        cells = [c.strip() for c in row.locator("th, td").all_inner_texts()]
        rows.append(dict(zip(headers[-len(cells):], cells)))
    return rows


def test_ask_e2e_answers_levels_with_a_citation(page, app_server, idle, tmp_path):
    ask(page, app_server, idle, LEVELS)
    answer = page.locator("[data-testid=stMarkdownContainer]").filter(has=page.locator("a", has_text="[1]")).first
    assert "四级" in answer.inner_text()
    link = page.locator("a", has_text="[1]").first
    assert re.fullmatch(r"sources\?source=[^&]+\.md&chunk=\d+(&cite=[^&]+)?", link.get_attribute("href"))
    assert page.get_by_text("引用检查：通过").is_visible()
    page.screenshot(path=str(tmp_path / "ask.png"))
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    doc_shot(page, README_SHOT.name)  # the README's picture (make screenshots)


def test_ask_e2e_refuses_what_the_corpus_does_not_say(page, app_server, idle, tmp_path):
    ask(page, app_server, idle, IELTS)
    assert page.get_by_text(REFUSAL_TEXT).first.is_visible()
    reason = page.locator("[data-testid=stMarkdownContainer]").filter(has_text="拒答原因").first
    assert "雅思" in reason.inner_text()  # the word the corpus never uses
    assert page.get_by_text("未调用模型").is_visible()
    assert page.locator("a", has_text="[1]").count() == 0
    page.screenshot(path=str(tmp_path / "refusal.png"))


def test_ask_e2e_citation_opens_the_file_at_the_chunk(page, app_server, idle, tmp_path):
    ask(page, app_server, idle, LEVELS)
    cited = page.locator("[data-testid=stTable] table").filter(has_text="片段预览").locator("tbody tr").first
    cited.wait_for()
    cells = [c.strip() for c in cited.locator("th, td").all_inner_texts()]  # 编号, 文件, 小节, 片段预览
    source, heading = cells[1], cells[2]
    with page.context.expect_page() as opened:
        page.locator("a", has_text="[1]").first.click()
    sources = opened.value
    sources.wait_for_load_state()
    mark = sources.locator("mark#xiaoe-hit")
    mark.wait_for()
    idle(sources)
    assert "/sources?source=" in sources.url
    assert sources.get_by_role("heading", name=source).is_visible()
    section = mark.evaluate("m => m.parentElement.previousElementSibling.textContent")
    assert section == heading
    preview = cells[3].rstrip("…")
    assert " ".join(mark.inner_text().split()).startswith(preview)
    box = mark.bounding_box()
    assert box is not None and 0 <= box["y"] <= sources.viewport_size["height"]  # scrolled into view
    sources.screenshot(path=str(tmp_path / "sources.png"))


def test_ask_e2e_raising_the_threshold_flips_a_chunk_below(page, app_server, idle, tmp_path):
    ask(page, app_server, idle, LEVELS)
    passing = [r for r in candidate_rows(page) if r["状态"] == "命中"]
    weakest = passing[-1]
    thumb = page.locator("[data-testid=stSlider]").filter(has_text="阈值").get_by_role("slider")
    start = float(thumb.input_value())
    presses = math.floor(round((float(weakest["排序分"]) - start) / 0.01, 6)) + 1
    thumb.focus()
    for _ in range(presses):
        thumb.press("ArrowRight")
    page.get_by_text("已过期").wait_for()
    idle(page)
    after = {r["排名"]: r["状态"] for r in candidate_rows(page)}
    assert after[weakest["排名"]] == "低于阈值"
    assert after[passing[0]["排名"]] == "命中"
    assert page.get_by_role("button", name="按新参数重新回答").is_visible()
    page.screenshot(path=str(tmp_path / "threshold.png"))
