"""The school's facts as the shipped documents state them (core.facts), and an edited copy of the documents."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

from core.facts import SchoolFacts, read_facts
from tests.paths import CORPUS


def documents(folder: Path = CORPUS) -> list[tuple[str, str]]:
    return [(p.name, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.md"))]


@cache
def shipped_facts() -> SchoolFacts:
    return read_facts(documents())


def edited_corpus(folder: Path, edits: dict[str, list[tuple[str, str]]]) -> Path:
    """A copy of the shipped corpus in `folder`, each file's (old, new) replacements applied (each must apply)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(CORPUS.glob("*.md")):
        shutil.copy(path, folder / path.name)
    for name, pairs in edits.items():
        path = folder / name
        text = path.read_text(encoding="utf-8")
        for old, new in pairs:
            assert old in text, f"{old!r} is not in {name}"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    return folder
