"""The Sources page in a real browser: a pasted link lands on the chunk; corpus HTML stays text."""

from __future__ import annotations

import shutil
from urllib.parse import quote

import pytest

from tests.paths import CORPUS

pytestmark = pytest.mark.e2e


HOSTILE = "04-含代码.md"
HOSTILE_TEXT = """# 含代码的资料

## 一、[点我](http://example.invalid/x) **不是粗体**

<script>window.__xiaoe_ran = 1</script>
<img src="x" onerror="window.__xiaoe_ran = 2">
<b>不是粗体</b>
"""


@pytest.fixture(scope="module")
def hostile_server(start_server, tmp_path_factory):
    corpus = tmp_path_factory.mktemp("hostile_corpus")
    shutil.copytree(CORPUS, corpus, dirs_exist_ok=True)
    (corpus / HOSTILE).write_text(HOSTILE_TEXT, encoding="utf-8")
    return start_server(corpus=corpus)


def test_sources_e2e_pasted_link_highlights_the_chunk(page, app_server, idle, tmp_path):
    page.goto(f"{app_server.url}/sources?source={quote('02-退费与转班制度.md')}&chunk=1")
    mark = page.locator("mark#xiaoe-hit")
    mark.wait_for()
    idle(page)
    assert " ".join(mark.inner_text().split()) == "本制度适用于启明英语全部口语课学员。"
    assert mark.evaluate("m => m.parentElement.previousElementSibling.textContent") == "一、适用范围"
    page.screenshot(path=str(tmp_path / "sources.png"))


def test_sources_e2e_corpus_html_is_shown_as_text_and_never_runs(page, hostile_server, idle, tmp_path):
    page.goto(f"{hostile_server.url}/sources?source={quote(HOSTILE)}&chunk=0")
    page.locator("mark#xiaoe-hit").wait_for()
    page.get_by_text("<script>window.__xiaoe_ran = 1</script>").first.wait_for()
    idle(page)
    page.get_by_text("的片段列表").click()  # the chunk list is a dataframe: cells are data, never Markdown
    page.locator("[data-testid=stDataFrame] canvas table td[role=gridcell]").first.wait_for(state="attached")
    main = page.locator("[data-testid=stMain]")
    assert main.get_by_text('<img src="x" onerror="window.__xiaoe_ran = 2">').first.is_visible()
    assert main.get_by_text("<b>不是粗体</b>").first.is_visible()
    assert main.locator("a", has_text="点我").count() == 0  # Markdown link syntax stays literal
    # GFM still turns a bare URL into a link showing that very URL; that hides nothing, so it is allowed
    for link in main.locator("a[href*='example.invalid']").all():
        assert link.inner_text() == link.get_attribute("href")
    for tag in ("script:has-text('__xiaoe_ran')", "img[src='x']", "b:has-text('不是粗体')",
                "strong:has-text('不是粗体')"):
        assert main.locator(tag).count() == 0, tag
    assert page.evaluate("window.__xiaoe_ran") is None
    page.screenshot(path=str(tmp_path / "hostile.png"))
