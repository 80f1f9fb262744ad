"""What the console shows of a WeChat student: the window and budget line of a 待发送 item, worked out by hand, what
became of each planned message, and the item itself through AppTest (the line and the deliveries under the student)."""

from __future__ import annotations

from datetime import datetime, timedelta

from core.stores.db import open_database
from core.stores.wecom_inbox import WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from core.values.wecom import ACK, EXPIRED, HUMAN, SENT, Part, Send, Window
from tests.app.test_service_pages import _held
from ui.wecom_view import delivery_lines, window_label

MONDAY_EVENING = datetime(2026, 3, 2, 20, 15).astimezone()  # a Monday, in this machine's time zone


def test_window_label_names_the_day_and_time_it_closes_and_what_is_left():
    window = Window(MONDAY_EVENING, used=2, now=MONDAY_EVENING + timedelta(hours=1))
    assert window_label(window) == "周三 20:15 前 · 还可发 3 条"  # Monday 20:15 + 48 hours


def test_window_label_says_when_nothing_can_be_sent():
    closed = Window(MONDAY_EVENING, used=0, now=MONDAY_EVENING + timedelta(hours=48))
    assert window_label(closed) == "无法发送（已超过 48 小时）"
    assert window_label(Window(MONDAY_EVENING, 0, MONDAY_EVENING, service_state=3)) == "已由人工接待"
    assert window_label(Window(None, 0, MONDAY_EVENING)) == "学员还没有通过微信发来消息"
    spent = Window(MONDAY_EVENING, used=5, now=MONDAY_EVENING + timedelta(hours=1))
    assert window_label(spent).endswith("还可发 0 条")


def test_delivery_lines_say_what_became_of_each_part_and_why():
    def send(kind, state, reason="", part=1, parts=1):
        made = Part("wk1", "u1", kind, "msg_1", part, parts, "x", "…")
        return Send(1, made, state, reason, 1, MONDAY_EVENING, None)

    assert delivery_lines([send(ACK, SENT), send("release", EXPIRED, "学员最后一条消息已超过 48 小时", 2, 3),
                           send("reply", HUMAN, "已由人工接待：人工接手了")]) == [
        "微信 · 确认语：已发送",
        "微信 · 顾问放行的回答（第 2/3 段）：无法发送（已超过 48 小时） —— 学员最后一条消息已超过 48 小时",
        "微信 · 小E 的回答：已由人工接待 —— 已由人工接待：人工接手了"]


def test_review_page_held_item_of_a_wechat_student_shows_the_window_and_deliveries(open_page, app_env):
    desk, item_id, conversation = _held(app_env, user="wmStudent1")
    db = open_database(desk.keys.db.url)
    inbox, outbox = WeComInbox(db), WeComOutbox(db)
    inbox.student_wrote("wk1", "wmStudent1", datetime.now().astimezone() - timedelta(hours=1))
    inbox.set_conversation("wk1", "wmStudent1", conversation)
    exchange = desk.conversations.thread(conversation)[-1].message_id
    outbox.plan([Part("wk1", "wmStudent1", ACK, exchange, 1, 1, "xea1-1", "收到", exchange=exchange)])
    (ack,) = outbox.due("wk1")
    outbox.claim(ack.id, timedelta(seconds=30))
    outbox.finish(ack.id, SENT)
    at = open_page("app_pages/review.py", reviewer="王老师", review_item=item_id)
    assert not at.exception
    assert any(m.value.startswith("**微信客服** · 周") and "还可发 4 条" in m.value for m in at.markdown)
    assert any("微信 · 确认语：已发送" in t.value for t in at.text)
