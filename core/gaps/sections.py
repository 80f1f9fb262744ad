"""Where a gap fix goes in a Markdown file: its sections by heading, one section's body replaced, or a new section.

「去补充资料」 lets an admin pick any corpus file and any of its sections, or write a new section (core.gaps.board
only proposes the nearest one); these plain functions turn that choice into the file's new text. Sections are the
loader's own (core.corpus.loader.split_sections), so what is edited is what gets chunked and cited. Deliberately
left out: moving or renaming an existing section.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from core.corpus.loader import FENCE_RE, HEADING_RE, split_sections
from core.errors import CorpusError

MAX_HEADING_CHARS = 100


@dataclass(frozen=True)
class Placement:
    """Where the fix goes: a file and an existing section's heading ("" = the text before any heading), or a new
    section (`new` True, `heading` its title)."""

    source: str
    heading: str
    new: bool = False

    @property
    def label(self) -> str:
        return f"「{self.source}」· {'新小节' if self.new else '小节'}「{self.heading or '文首'}」"


def headings(text: str) -> tuple[str, ...]:
    """The file's section headings in order, each once ("" for text before the first heading)."""
    return tuple(dict.fromkeys(section.heading for section in split_sections(text)))


def section_span(text: str, heading: str) -> tuple[int, int] | None:
    """(start, end) of the body of the first section titled `heading` ("" = the text before any heading)."""
    for section in split_sections(text):
        if section.heading == heading:
            return section.start, section.end
    return None


def splice(text: str, span: tuple[int, int], body: str) -> str:
    """`text` with the section body at `span` replaced by `body` (its outer blank lines kept as they were)."""
    start, end = span
    return text[:start] + body.strip() + text[end:]


def new_heading(text: str, heading: str) -> str:
    """A new section's title, checked: one line, not empty, not a section the file has already."""
    title = " ".join((heading or "").split()).strip("# ")
    if not title:
        raise CorpusError("请填写新小节的标题，例如「付款方式」。")
    if len(title) > MAX_HEADING_CHARS:
        raise CorpusError(f"新小节的标题有 {len(title)} 个字，超过了 {MAX_HEADING_CHARS} 字，请改短一些。")
    if title in headings(text):
        raise CorpusError(f"这个文件已经有小节「{title}」，请在「小节」里选它，或给新小节换个标题。")
    return title


def add_section(text: str, heading: str, body: str) -> str:
    """`text` with a new section `heading` holding `body` at its end, at the level most of the file's sections use
    below its title (## when it has none)."""
    title = new_heading(text, heading)
    if not body.strip():
        raise CorpusError("新小节还没有内容：请把缺的那句话写进去再保存。")
    marks = "#" * section_level(text)
    return f"{text.rstrip()}\n\n{marks} {title}\n\n{body.strip()}\n" if text.strip() else f"{marks} {title}\n\n{body.strip()}\n"


def section_level(text: str) -> int:
    """The heading level most sections of the file use (a single top-level title does not count; ties: the
    shallower); 2 when the file has no other heading."""
    levels: Counter[int] = Counter()
    in_fence = False
    for line in text.splitlines():
        if FENCE_RE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := HEADING_RE.match(line)):
            levels[len(match.group(1))] += 1
    if levels.get(1) == 1:
        del levels[1]
    if not levels:
        return 2
    return min(levels, key=lambda level: (-levels[level], level))
