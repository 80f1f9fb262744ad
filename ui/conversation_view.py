"""What the 对话 page and the queue's 待发送 items show of students' conversations, as plain values (no Streamlit):
the conversation table, one exchange as lines of text, how long a student has waited, export bytes.

Everything a student wrote or was shown is rendered by the pages as text (st.text / st.table), never as Markdown.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from datetime import datetime

import pandas as pd

from core.clock import utcnow
from core.stores.conversation_export import write_conversations
from core.values.exchanges import Conversation, Exchange

STATUS_LABELS = {"answered": "已回答", "held": "待发送", "refused": "拒答", "handed_off": "已转人工", "": "处理中"}
TIME_FORMAT = "%m-%d %H:%M"


def conversations_frame(found: Sequence[Conversation]) -> pd.DataFrame:
    return pd.DataFrame([{"学员": c.user, "密钥": c.key_name, "消息": c.messages, "待发送": c.waiting,
                          "转人工": "是" if c.handed_off else "", "最近": c.last_at.astimezone().strftime(TIME_FORMAT),
                          "开始": c.created_at.astimezone().strftime(TIME_FORMAT), "会话": c.id} for c in found],
                        columns=["学员", "密钥", "消息", "待发送", "转人工", "最近", "开始", "会话"])


def waited(since: datetime, now: datetime | None = None) -> str:
    """「等了 3 分钟」「等了 2 小时 5 分」: how long a held message has waited."""
    seconds = max(0, int(((now or utcnow()) - since).total_seconds()))
    if seconds < 60:
        return f"等了 {seconds} 秒"
    minutes = seconds // 60
    if minutes < 60:
        return f"等了 {minutes} 分钟"
    hours, rest = divmod(minutes, 60)
    return f"等了 {hours} 小时 {rest} 分" if hours < 48 else f"等了 {hours // 24} 天"


def exchange_lines(exchange: Exchange) -> list[str]:
    """One exchange as the lines a consultant reads: the student's words, what they were shown, what was released."""
    when = exchange.created_at.astimezone().strftime(TIME_FORMAT)
    lines = [f"[{when}] 学员：{exchange.query}"]
    if exchange.standalone and exchange.standalone != exchange.query:
        came = f"由上一句 {exchange.derived_from} 推出" if exchange.derived_from else "改写"
        rules = f"，规则 {'、'.join(exchange.rules)}" if exchange.rules else ""
        lines.append(f"  独立问题（{came}{rules}）：{exchange.standalone}")
    lines.append(f"  小E（{STATUS_LABELS.get(exchange.status, exchange.status)}）：{exchange.answer}")
    if exchange.draft:
        lines.append(f"  草稿（学员没看到）：{exchange.draft}")
    for released in exchange.released:
        lines.append(f"  [{released.released_at.astimezone().strftime(TIME_FORMAT)}] 已发给学员"
                     f"（{released.released_by}）：{released.answer}")
    for feedback in exchange.feedback:
        rating = {"like": "有帮助", "dislike": "没帮助"}.get(feedback.rating or "", "撤回了评价")
        lines.append(f"  学员反馈：{rating} {'、'.join(feedback.reasons)} {feedback.content}".rstrip())
    return lines


def thread_text(thread: Iterable[Exchange]) -> str:
    return "\n".join(line for exchange in thread for line in exchange_lines(exchange))


def export_bytes(exchanges: Iterable[Exchange], kind: str) -> bytes:
    """The conversations as a CSV (UTF-8 with BOM) or xlsx download, through the one formula-safe writer."""
    if kind == "xlsx":
        buffer = io.BytesIO()
        write_conversations(exchanges, buffer)
        return buffer.getvalue()
    text = io.StringIO()
    write_conversations(exchanges, text)
    return text.getvalue().encode("utf-8")
