"""The words the student's-case reader knows (core/data/case_words.txt), read once, and regex pieces made of them."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

WORDS_PATH = Path(__file__).resolve().parents[1] / "data" / "case_words.txt"


@cache
def case_words(path: Path = WORDS_PATH) -> dict[str, tuple[str, ...]]:
    """{list name: its words}: one line per list, 「name：word word」; # starts a comment."""
    out: dict[str, tuple[str, ...]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, words = line.partition("：")
            out[name.strip()] = tuple(words.split())
    return out


def words(name: str) -> tuple[str, ...]:
    return case_words()[name]


def alt(*names: str, optional: bool = False) -> str:
    """A non-capturing group matching any word of the lists `names`, longest first (「(?:开课前|…)」)."""
    found = sorted({w for name in names for w in words(name)}, key=len, reverse=True)
    return "(?:" + "|".join(map(re.escape, found)) + ")" + ("?" if optional else "")


def said(text: str, name: str) -> bool:
    """Whether `text` (spaces dropped) holds a word of the list `name`."""
    compact = re.sub(r"\s+", "", text)
    return any(w in compact for w in words(name))
