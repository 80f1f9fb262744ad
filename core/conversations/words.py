"""The words the follow-up reader uses (core/data/followup_words.txt), read once: openers and closers of a message that
does not stand on its own, courtesy, filler, words pointing back, the generic asking and predicate words, and the
groups of interchangeable words — plus one group the student-case reader already knows: the stage of the course
(「开课前」「还没开课」 / 「开课后」「开课了」, core.case.words), so the two readers never disagree on it."""

from __future__ import annotations

from functools import cache

from core.case.words import words as case_words
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


def words_starting(prefix: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name without `prefix`, its words) for every line whose name starts with `prefix` (「refer.level」), in file
    order."""
    return tuple((name.removeprefix(prefix), listed) for name, listed in table().items() if name.startswith(prefix))


STARTED = "started"  # the course's stage, read with core.case's words 「before」 and 「after」


@cache
def slot_groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(group name, its words) for every 「slot.<name>」 line, in file order, then the course's stage."""
    listed = list(words_starting("slot."))
    stage = tuple(sorted(set(case_words("before")) | set(case_words("after")), key=lambda w: (-len(w), w)))
    return (*listed, (STARTED, stage))


@cache
def interchangeable() -> tuple[str, ...]:
    """Every word of every interchangeable group (`slot_groups`), the course's stage included."""
    return tuple(w for _, listed in slot_groups() for w in listed)
