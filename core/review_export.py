"""CSV export of review items for Excel: UTF-8 with BOM, Chinese headers, formula cells neutralised.

A cell that starts with = + - @ (full-width ＝＋－＠ too, or a tab / carriage return) would run as a formula when the
file is opened in Excel or WPS; such text cells get a leading single quote. Numbers are left alone.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from core.errors import StoreError
from core.os_errors import os_reason
from core.review_models import ReviewItem
from core.spreadsheet_cells import FORMULA_PREFIXES, neutralise, restore  # noqa: F401  (re-exported)

HEADER = ("编号", "创建时间", "通道", "状态", "问题", "回答", "问题原因", "阈值", "k", "资料指纹", "标记人",
          "复核人", "处理时间", "备注", "修改后的回答", "版本")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def row_for(item: ReviewItem) -> list[object]:
    reasons = "；".join(f"{p.code}：{p.message}" for p in item.reasons)
    cells: list[object] = [
        item.id, _time(item.created_at), " · ".join(item.lane_labels), item.status_label, item.question,
        item.answer, reasons, item.threshold if item.threshold is not None else "",
        item.k if item.k is not None else "", item.fingerprint, item.flagged_by or "", item.reviewer or "",
        _time(item.decided_at), item.note or "", item.corrected_answer or "", item.version]
    return [neutralise(cell) for cell in cells]


def write_csv(items: Iterable[ReviewItem], target: str | Path | IO[str]) -> int:
    """Write a header and one row per item to a path or an open text stream; returns the row count."""
    if isinstance(target, (str, Path)):
        try:
            with open(target, "w", encoding="utf-8-sig", newline="") as handle:
                return _write(items, handle)
        except OSError as error:
            raise StoreError(f"无法写入导出文件「{target}」（{os_reason(error)}），请换一个有写入权限的位置。") from None
    target.write("\ufeff")  # the BOM that makes Excel read the file as UTF-8
    return _write(items, target)


def _write(items: Iterable[ReviewItem], handle: IO[str]) -> int:
    writer = csv.writer(handle)
    writer.writerow(HEADER)
    count = 0
    for item in items:
        writer.writerow(row_for(item))
        count += 1
    return count


def _time(value) -> str:
    return value.astimezone().strftime(TIME_FORMAT) if value else ""
