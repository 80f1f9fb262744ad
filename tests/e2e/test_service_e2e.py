"""小E goes live (#39) in a real browser: under policy `all` a student's message sent to the student service appears in
待发送 with its conversation; the consultant corrects the draft and sends it; the App gets it exactly once (by
cursor and at its webhook); another student's paraphrase is then answered at once from the approved answer."""

from __future__ import annotations

import time

import pytest

from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from tests.e2e.conftest import act_until_visible, doc_shot
from tests.service.harness import ask, make_key, start_receiver, start_service

pytestmark = pytest.mark.e2e

QUESTION = "口语课一共有几级？"
CORRECTED = "一共四级：入门级、进阶级、流利级、商务级[1]。"


def test_held_message_corrected_and_sent_reaches_the_app_once_then_a_paraphrase_is_reused(page, start_server, idle,
                                                                                      tmp_path):
    server = start_server()
    url = f"sqlite:///{server.data_dir / 'xiaoe.sqlite3'}"
    receiver = start_receiver()
    secret = make_key(url, "school-app", release="all", webhook=receiver.url)[0]
    service = start_service(tmp_path, url, {"XIAOE_DATA_DIR": str(server.data_dir),
                                            "XIAOE_CORPUS_DIR": str(server.corpus_dir)})
    try:
        with service.client(secret) as app:
            held = ask(app, "stu-1", "m1", QUESTION).json()
            assert held["status"] == "held"
            (item,) = ReviewStore(Database(url)).list(Filters(lane="held")).items

            page.goto(f"{server.url}/review?item={item.id}")
            idle(page)

            def name_reviewer() -> None:
                page.get_by_label("复核人").fill("李老师")
                page.get_by_label("复核人").press("Enter")

            # 通过 is enabled once the name reached the server; a key press lost during a rerun is pressed again
            approve = page.get_by_role("button", name="通过", exact=True, disabled=False)
            assert act_until_visible(name_reviewer, approve, tries=3, timeout_ms=10_000), "the reviewer's name never took"
            idle(page)
            page.get_by_text("stu-1 · 密钥 school-app").first.wait_for()
            assert page.get_by_text(f"学员：{QUESTION}").first.is_visible()  # the conversation so far
            box = page.get_by_label("修改后的回答")

            def open_correction() -> None:
                if not box.first.is_visible():
                    page.get_by_text("修改后的回答（可选）").click()

            assert act_until_visible(open_correction, box, tries=4, timeout_ms=5_000)
            box.fill(CORRECTED)
            page.get_by_text("stu-1 · 密钥 school-app").first.scroll_into_view_if_needed()
            doc_shot(page, "review-held.png")
            page.get_by_role("button", name="通过", exact=True).click()
            page.get_by_text(f"#{item.id} 已通过").first.wait_for()

            path = f"/v1/conversations/{held['conversation_id']}/messages"
            polled = app.get(path, params={"user": "stu-1"}).json()["data"]
            assert [m["answer"] for m in polled] == [CORRECTED] and polled[0]["reply_to"] == held["message_id"]
            receiver.wait_for(1)
            time.sleep(1.5)
            assert [p["body"]["message"]["answer"] for p in receiver.posts] == [CORRECTED]  # exactly once

            reused = ask(app, "stu-2", "m1", "你们口语课一共有几级呀").json()
            assert reused["status"] == "answered" and reused["reused"] is True and reused["answer"] == CORRECTED
    finally:
        service.stop()
        receiver.close()
