"""Spreadsheet-safe cells: text a spreadsheet would run as a formula gets a leading quote, and loses it on re-import;
text an xlsx file cannot hold (C0 control characters) shows as the characters' visible pictures."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

# Full-width ＝＋－＠ too: Excel and WPS treat them as formula starts after input conversion.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")


def neutralise(value: object) -> object:
    """Prefix text that a spreadsheet would treat as a formula with a single quote."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def restore(value: str) -> str:
    """Undo `neutralise` when a file we exported is read back (the quote is ours, not the user's)."""
    if value.startswith("'") and value[1:].startswith(FORMULA_PREFIXES):
        return value[1:]
    return value


# XML 1.0 (and so xlsx) cannot hold C0 controls other than tab, line feed and carriage return, nor U+FFFE/U+FFFF;
# openpyxl raises IllegalCharacterError on them. Each becomes its Control Pictures sign (ESC -> U+241B), which a
# reviewer can see and search for, instead of the export failing on one stored question.
XLSX_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xlsx_text(value: str) -> str:
    """`value` with every character an xlsx cell cannot hold replaced by a visible sign."""
    return XLSX_ILLEGAL.sub(lambda m: chr(0x2400 + ord(m.group())) if m.group() < " " else "\ufffd", value)


def write_table(header: Sequence[str], rows: Iterable[Sequence[object]], target: str | Path | IO, *,
                sheet: str = "导出") -> int:
    """The one writer of exported tables: by the target's extension (or, for an open stream, binary → xlsx, text →
    CSV) a real xlsx workbook whose text cells are stored as text, or a UTF-8-with-BOM CSV for Excel; in both, text a
    spreadsheet would run as a formula is neutralised and characters a cell cannot hold show as visible signs.
    Returns the row count. OSError reaches the caller, which names the file."""
    if isinstance(target, (str, Path)):
        suffix = Path(target).suffix.lower()
        if suffix == ".xlsx":
            return _xlsx(header, rows, str(target), sheet)
        with open(target, "w", encoding="utf-8-sig", newline="") as handle:
            return _csv(header, rows, handle)
    if isinstance(target, io.TextIOBase):
        target.write("\ufeff")  # the BOM that makes Excel read the file as UTF-8
        return _csv(header, rows, target)
    return _xlsx(header, rows, target, sheet)


def csv_cell(value: object) -> object:
    return neutralise(xlsx_text(value)) if isinstance(value, str) else value


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]], handle: IO[str]) -> int:
    writer = csv.writer(handle)
    writer.writerow([csv_cell(h) for h in header])
    count = 0
    for row in rows:
        writer.writerow([csv_cell(c) for c in row])
        count += 1
    return count


def _xlsx(header: Sequence[str], rows: Iterable[Sequence[object]], target, sheet_name: str) -> int:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    book = Workbook(write_only=True)
    sheet = book.create_sheet(sheet_name)
    sheet.append(list(header))
    count = 0
    for row in rows:
        cells = []
        for value in row:
            cell = WriteOnlyCell(sheet, value=xlsx_text(value) if isinstance(value, str) else value)
            if isinstance(value, str):
                cell.data_type = "s"  # stored as text: nothing in it can run as a formula
            cells.append(cell)
        sheet.append(cells)
        count += 1
    book.save(target)
    return count
