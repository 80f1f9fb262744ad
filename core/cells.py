"""Spreadsheet-safe cells: text a spreadsheet would run as a formula gets a leading quote, and loses it on re-import;
text an xlsx file cannot hold (C0 control characters) shows as the characters' visible pictures."""

from __future__ import annotations

import re

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
