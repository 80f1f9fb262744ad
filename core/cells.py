"""The one formula-safe writer for every file the product hands to a spreadsheet (CSV and xlsx, console and CLI).

Text a spreadsheet would run as a formula (leading = + - @, their full-width forms, a tab or a carriage return) gets
a leading single quote, which `restore` takes off again when a file we wrote is read back; C0/C1 control
characters (ESC, NUL, vertical tab …) show as their visible Control Pictures sign (ESC -> U+241B) in both formats,
since an xlsx cell cannot hold them and a CSV cell should not carry terminal escapes. Numbers are left alone.
Every CSV download and export goes through `csv_bytes` / `write_csv_rows`, every xlsx through `write_xlsx`
(tests/security/test_41_06_formula_safe_files.py checks no other module writes CSV itself).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

# Full-width ＝＋－＠ too: Excel and WPS treat them as formula starts after input conversion.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
BOM = "\ufeff"  # makes Excel read a CSV as UTF-8


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
# openpyxl raises IllegalCharacterError on them. DEL and the C1 controls it can hold, but a terminal reads \x9b as an
# escape. Each becomes a visible sign (ESC -> U+241B, DEL -> U+2421, the rest U+FFFD), which a reviewer can see and
# search for, in both formats; tab, line feed and carriage return stay (inside a quoted CSV cell), and a leading one
# is neutralised.
UNSEEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")


def _picture(match: re.Match) -> str:
    char = match.group()
    if char < " ":
        return chr(0x2400 + ord(char))
    return "\u2421" if char == "\x7f" else "\ufffd"


def xlsx_text(value: str) -> str:
    """`value` with every control character replaced by a visible sign (an xlsx cell cannot hold most of them)."""
    return UNSEEN.sub(_picture, value)


def safe_cell(value: object) -> object:
    """One CSV cell as the writer stores it: control characters made visible, then formula starts neutralised."""
    if isinstance(value, str):
        return neutralise(xlsx_text(value))
    return value


def write_csv_rows(handle: IO[str], header: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """Write `header` and `rows` (every cell through `safe_cell`) to an open text stream; how many rows. Lines end in
    CRLF (RFC 4180), which also makes the writer quote a cell holding a lone CR or LF: with "\n" alone a CR inside a
    cell went out unquoted and split the row in Excel."""
    writer = csv.writer(handle, lineterminator="\r\n")
    writer.writerow([safe_cell(cell) for cell in header])
    count = 0
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
        count += 1
    return count


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """A whole CSV file for a download: UTF-8 with a BOM (Excel opens the Chinese), every cell formula-safe."""
    buffer = io.StringIO()
    buffer.write(BOM)
    write_csv_rows(buffer, header, rows)
    return buffer.getvalue().encode("utf-8", "surrogatepass")


def write_xlsx(sheet_name: str, header: Sequence[str], rows: Iterable[Sequence[object]],
               target: str | Path | IO[bytes]) -> int:
    """A real Excel workbook (openpyxl, write-only so memory stays flat). Every text cell is stored as text
    (data type "s"), so nothing in it can run as a formula, and control characters show as visible signs.
    Returns the row count; OSError from writing the file is the caller's to explain."""
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
                cell.data_type = "s"
            cells.append(cell)
        sheet.append(cells)
        count += 1
    book.save(str(target) if isinstance(target, (str, Path)) else target)
    return count
