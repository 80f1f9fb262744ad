"""What the console shows of a WeChat student (微信客服), as plain values (no Streamlit): the reply window and what is
left of its budget (「周四 20:15 前 · 还可发 3 条」, 「无法发送（已超过 48 小时）」, 「已由人工接待」), and what became of each
message planned for the student, with the reason when it did not go out.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.clock import local
from core.values.wecom import EXPIRED, KIND_LABELS, SEND_LABELS, Send, Window

WEEKDAYS = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


def window_label(window: Window) -> str:
    """The window as the item shows it: until when 小E may still answer and how many messages are left."""
    if window.with_person:
        return "已由人工接待"
    if window.last_student_at is None:
        return "学员还没有通过微信发来消息"
    if not window.open:
        return SEND_LABELS[EXPIRED]
    closes = local(window.closes_at)
    return f"{WEEKDAYS[closes.weekday()]} {closes:%H:%M} 前 · 还可发 {window.remaining} 条"


def delivery_lines(sends: Iterable[Send]) -> list[str]:
    """One line per planned message: what it is, which part, what became of it and why."""
    lines = []
    for send in sends:
        part = f"（第 {send.part.part}/{send.part.parts} 段）" if send.part.parts > 1 else ""
        line = f"微信 · {KIND_LABELS.get(send.part.kind, send.part.kind)}{part}：{send.label}"
        if send.reason and send.state != "sent":
            line += f" —— {send.reason}"
        lines.append(line)
    return lines
