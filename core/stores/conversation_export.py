"""Conversations as a table for Excel (CSV or xlsx), through the one formula-safe writer (core.cells.write_table):
a student's message that starts with = or @ is shown as text, never run."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO

from core.cells import write_table
from core.errors import StoreError
from core.values.exchanges import Exchange

HEADER = ("会话", "密钥", "学员", "消息编号", "App 消息编号", "时间", "学员原话", "独立问题", "由哪条推出", "状态", "当时给学员的回答", "草稿",
          "判断与检查", "已审答案", "复核条目", "放行的回答", "放行人", "反馈")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def rows(exchanges: Iterable[Exchange]):
    for e in exchanges:
        yield (e.conversation_id, e.key_name, e.user, e.message_id, e.client_msg_id,
               e.created_at.astimezone().strftime(TIME_FORMAT), e.query, e.standalone, e.derived_from, e.status, e.answer, e.draft,
               "；".join(f"{code}：{message}" for code, message in e.reasons), e.reused_id or "", e.item_id or "",
               "\n".join(r.answer for r in e.released), "、".join(dict.fromkeys(r.released_by for r in e.released)),
               "；".join(f"{f.rating or '撤回'} {'、'.join(f.reasons)} {f.content}".strip() for f in e.feedback))


def write_conversations(exchanges: Iterable[Exchange], target: str | Path | IO) -> int:
    """Write one row per student message; .xlsx (or a binary stream) as a workbook, else CSV. Rows written."""
    if isinstance(target, (str, Path)) and Path(target).suffix.lower() not in (".csv", ".xlsx", ""):
        raise StoreError(f"不能导出为 {Path(target).suffix} 文件：对话只能导出为 CSV 或 Excel 工作簿（.csv 或 .xlsx）。")
    return write_table(HEADER, rows(exchanges), target, sheet="对话")
