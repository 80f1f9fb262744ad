"""The one formula-safe writer for every table the product hands to a spreadsheet (CSV and xlsx, console, CLI, service).

Text a spreadsheet would run as a formula (leading = + - @, their full-width forms, a tab or a carriage return) gets
a leading single quote in CSV, which `restore` takes off again when a file we wrote is read back, and is typed as
text in xlsx; C0/C1 control characters (ESC, NUL, vertical tab, DEL …) show as visible signs (ESC -> U+241B) in both
formats, since an xlsx cell cannot hold them and a CSV cell should not carry terminal escapes. Numbers are left
alone. Files and streams go through `write_table`, downloads built in memory through `csv_bytes`
(tests/security/test_41_06_formula_safe_files.py checks that no other module writes CSV or xlsx itself).
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
        target.write(BOM)  # the BOM that makes Excel read the file as UTF-8
        return _csv(header, rows, target)
    return _xlsx(header, rows, target, sheet)


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """A whole CSV file for a download button (UTF-8 with a BOM), through `write_table`."""
    buffer = io.StringIO()
    write_table(header, rows, buffer)
    return buffer.getvalue().encode("utf-8", "surrogatepass")


def csv_cell(value: object) -> object:
    """One CSV cell as the writer stores it: control characters made visible, then formula starts neutralised."""
    return neutralise(xlsx_text(value)) if isinstance(value, str) else value


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]], handle: IO[str]) -> int:
    # Lines end in CRLF (RFC 4180), which also makes the writer quote a cell holding a lone CR or LF: with "\n"
    # alone a CR inside a cell went out unquoted and split the row in Excel (the batch download did).
    writer = csv.writer(handle, lineterminator="\r\n")
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
