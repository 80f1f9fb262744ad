"""CSV export of review items for Excel: UTF-8 with BOM, Chinese headers, formula cells neutralised.

A cell that starts with = + - @ (full-width ＝＋－＠ too, or a tab / carriage return) would run as a formula when the
file is opened in Excel or WPS; such text cells get a leading single quote. Numbers are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO

from core.cells import neutralise, write_table
from core.errors import StoreError
from core.labels import reason_label
from core.os_errors import os_reason
from core.stores.review_models import ReviewItem

# 备注 is the reviewer's own note; 系统备注 what the system wrote (资料已更新), so neither overwrites the other.
HEADER = ("编号", "创建时间", "通道", "状态", "问题", "次数", "回答", "问题原因", "阈值", "k", "资料指纹", "标记人",
          "复核人", "处理时间", "备注", "系统备注", "修改后的回答", "版本")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def row_for(item: ReviewItem, *, neutralised: bool = True) -> list[object]:
    reasons = "；".join(f"{reason_label(p.code)}：{p.message}" for p in item.reasons)
    cells: list[object] = [
        item.id, _time(item.created_at), " · ".join(item.lane_labels), item.status_label, item.question,
        item.ask_count, item.answer, reasons, item.threshold if item.threshold is not None else "",
        item.k if item.k is not None else "", item.fingerprint, item.flagged_by or "", item.reviewer or "",
        _time(item.decided_at), item.note or "", "；".join(item.system_notes), item.corrected_answer or "",
        item.version]
    return [neutralise(cell) for cell in cells] if neutralised else cells


def write_xlsx(items: Iterable[ReviewItem], target: str | Path | IO[bytes]) -> int:
    """A real Excel workbook (openpyxl, write-only so memory stays flat); every text cell is stored as
    text, so nothing in it can run as a formula, and control characters show as visible signs (an xlsx
    cell cannot hold them). Returns the row count."""
    return _written(target, lambda t: write_table(HEADER, _rows(items), t, sheet="复核队列"))


def write_export(items: Iterable[ReviewItem], target: str | Path) -> int:
    """By the file's extension: .xlsx a workbook, .csv (or none) CSV; any other extension is refused, so
    `x.docx` never silently holds CSV."""
    suffix = Path(target).suffix.lower()
    if suffix not in (".csv", ".xlsx", ""):
        raise StoreError(f"不能导出为 {suffix} 文件：复核队列只能导出为 CSV 或 Excel 工作簿，"
                         "请用 .csv 或 .xlsx 作为文件扩展名。")
    return _written(target, lambda t: write_table(HEADER, _rows(items), t, sheet="复核队列"))


def write_csv(items: Iterable[ReviewItem], target: str | Path | IO[str]) -> int:
    """Write a header and one row per item to a path or an open text stream; returns the row count."""
    return _written(target, lambda t: write_table(HEADER, _rows(items), t))


def _rows(items: Iterable[ReviewItem]):
    return (row_for(item, neutralised=False) for item in items)


def _written(target, write) -> int:
    try:
        return write(target)
    except OSError as error:
        raise StoreError(f"无法写入导出文件「{target}」（{os_reason(error)}），请换一个有写入权限的位置。") from None


def _time(value) -> str:
    return value.astimezone().strftime(TIME_FORMAT) if value else ""
