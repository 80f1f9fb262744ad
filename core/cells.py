"""Spreadsheet-safe cells: text a spreadsheet would run as a formula gets a leading quote, and loses it on re-import."""

from __future__ import annotations

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
