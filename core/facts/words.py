"""The words that tell which fact a sentence of the documents states (core/data/fact_words.txt), read once."""

from __future__ import annotations

from functools import cache
from pathlib import Path

WORDS_PATH = Path(__file__).resolve().parents[1] / "data" / "fact_words.txt"


@cache
def fact_words(path: Path = WORDS_PATH) -> dict[str, tuple[str, ...]]:
    """{name: its words}: one line per name, 「name：word word」; # starts a comment."""
    out: dict[str, tuple[str, ...]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, words = line.partition("：")
        out[name.strip()] = tuple(words.split())
    return out


def has(text: str, name: str) -> bool:
    """Whether `text` holds one of the words listed under `name`."""
    return any(word in text for word in fact_words()[name])
