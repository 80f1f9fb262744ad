"""The words the follow-up reader uses (core/data/followup_words.txt), read once: openers and closers of a message that
does not stand on its own, courtesy, filler, the generic asking words, and the groups of interchangeable words."""

from __future__ import annotations

from functools import cache

from core.language.words import DATA

WORDS_FILE = "followup_words.txt"


@cache
def table() -> dict[str, tuple[str, ...]]:
    """{name: words, longest first}."""
    out: dict[str, tuple[str, ...]] = {}
    for line in (DATA / WORDS_FILE).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#") or "：" not in line:
            continue
        name, _, listed = line.partition("：")
        out[name.strip()] = tuple(sorted(set(listed.split()), key=lambda w: (-len(w), w)))
    return out


def words(name: str) -> tuple[str, ...]:
    return table().get(name, ())


def number(name: str) -> int:
    """A number the file states (「short：12」)."""
    return int(words(name)[0])


def slot_groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(group name, its words) for every 「slot.<name>」 line, in file order."""
    return tuple((name.removeprefix("slot."), listed) for name, listed in table().items() if name.startswith("slot."))
