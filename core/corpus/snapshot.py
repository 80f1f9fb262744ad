"""What a corpus folder held at one moment: each file's sha256 and each section's heading, hash and text.

A stored evaluation run keeps the hashes (core.stores.runs) so two runs can say which sections changed between
them; the section texts are kept once per distinct hash, so a diff can be shown long after the file changed.
Sections are the loader's own (core.corpus.loader.split_sections); a heading that appears twice in a file is
told apart by its occurrence (「常见问题（第 2 处）」).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from core.corpus.loader import list_markdown, split_sections


@dataclass(frozen=True)
class SectionState:
    """One section of one file: its (disambiguated) heading, the sha256 of its body, the body itself."""

    heading: str
    sha256: str
    text: str


@dataclass(frozen=True)
class FileState:
    """One corpus file: name, sha256 of its bytes, and its sections in file order."""

    name: str
    sha256: str
    sections: tuple[SectionState, ...]


@dataclass(frozen=True)
class CorpusSnapshot:
    """Every file of a corpus folder, by name."""

    files: tuple[FileState, ...]

    def file(self, name: str) -> FileState | None:
        return next((f for f in self.files if f.name == name), None)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def file_sections(text: str) -> tuple[SectionState, ...]:
    """The sections of one file's text; the untitled part before the first heading is 「（开头）」."""
    seen: dict[str, int] = {}
    out = []
    for section in split_sections(text):
        heading = section.heading or "（开头）"
        seen[heading] = seen.get(heading, 0) + 1
        if seen[heading] > 1:
            heading = f"{heading}（第 {seen[heading]} 处）"
        body = text[section.start:section.end]
        out.append(SectionState(heading, text_sha256(body), body))
    return tuple(out)


def snapshot(corpus_dir: Path | str) -> CorpusSnapshot:
    """Read every Markdown file the loader would read (CorpusError when the folder has none)."""
    files = []
    for path in list_markdown(corpus_dir):
        data = path.read_bytes()
        text = data.decode("utf-8-sig", errors="replace")
        files.append(FileState(path.name, hashlib.sha256(data).hexdigest(), file_sections(text)))
    return CorpusSnapshot(tuple(files))
