"""#29 item 3 in a real browser: a question with a Markdown image, asked and shown again as a 「最近问过」 button,
is drawn as the text it is, and the browser never fetches the image."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e

PIXEL = "http://127.0.0.1:9/evil-pixel.png"
QUESTION = f"退费？![i]({PIXEL})"


def test_markdown_labels_e2e_recent_question_button_is_text_and_fetches_nothing(page, app_server, idle):
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url) if "evil-pixel" in request.url else None)
    page.goto(app_server.url)
    box = page.get_by_label("学员的问题")
    box.wait_for(timeout=60_000)  # a cold server builds its index first
    idle(page)
    box.fill(QUESTION)
    box.press("Enter")
    page.get_by_role("heading", name="检索到的片段").wait_for()
    idle(page)
    page.get_by_text(re.compile(r"最近问过（\d+）")).click()
    button = page.get_by_role("button", name=QUESTION, exact=True)
    button.wait_for()
    assert button.inner_text().strip() == QUESTION
    assert page.locator(f'img[src="{PIXEL}"]').count() == 0
    assert fetched == []
