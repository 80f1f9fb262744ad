"""What the Sources page shows, as plain values: links, per-file facts, pages of a file, escaped HTML.

A file is shown one page at a time (a page is whole sections up to PAGE_CHARS; a longer section
is cut at line breaks), so a 2 MB file or a 100,000-chunk corpus never reaches the browser at
once. Corpus text is html.escape'd before any tag of ours is put around it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from langchain_core.documents import Document

from core.corpus.loader import Section

SOURCES_PATH = "sources"
PAGE_CHARS = 6000
HIT_ID = "xiaoe-hit"


CITE_CHARS = 60  # enough of the claim to find its sentence; keeps links short


def source_url(source: str, chunk: int, cite: str | None = None) -> str:
    """Relative link to the Sources page at `chunk` of `source`; works pasted into a new tab.

    `cite` (the answer's sentence that cites the chunk) lets the page highlight the sentence it rests on.
    """
    url = f"{SOURCES_PATH}?source={quote(source, safe='')}&chunk={int(chunk)}"
    return url + f"&cite={quote(cite[:CITE_CHARS], safe='')}" if cite else url


@dataclass(frozen=True)
class FileFacts:
    """One indexed file: where its chunks sit in the index, and how many sections have chunks."""

    name: str
    first: int
    chunks: int
    sections: int


@dataclass(frozen=True)
class Overview:
    """Index facts for the Sources page; computed once per corpus fingerprint."""

    files: tuple[FileFacts, ...]
    chunks: int
    average_chars: float

    def file(self, name: str) -> FileFacts | None:
        return next((f for f in self.files if f.name == name), None)


def overview(chunks: Sequence[Document]) -> Overview:
    """Per-file chunk ranges and section counts; the loader keeps a file's chunks contiguous."""
    files: list[FileFacts] = []
    name, first, sections, heading, total = None, 0, 0, None, 0
    for i, doc in enumerate(chunks):
        total += len(doc.page_content)
        source, this_heading = doc.metadata.get("source", ""), doc.metadata.get("heading", "")
        if source != name:
            if name is not None:
                files.append(FileFacts(name, first, i - first, sections))
            name, first, sections, heading = source, i, 0, None
        if this_heading != heading:
            sections, heading = sections + 1, this_heading
    if name is not None:
        files.append(FileFacts(name, first, len(chunks) - first, sections))
    return Overview(files=tuple(files), chunks=len(chunks), average_chars=total / len(chunks) if chunks else 0.0)


@dataclass(frozen=True)
class Segment:
    """A piece of one section shown on one page (`cont` when the section began on an earlier piece)."""

    heading: str
    start: int
    end: int
    cont: bool = False


def paginate(text: str, sections: Sequence[Section], page_chars: int = PAGE_CHARS) -> list[tuple[Segment, ...]]:
    """Group sections into pages of about `page_chars` characters; long sections are cut at line breaks."""
    pieces: list[Segment] = []
    for section in sections:
        start = section.start
        while start < section.end:
            end = section.end
            if end - start > page_chars:
                cut = text.rfind("\n", start + 1, start + page_chars)
                end = cut + 1 if cut > start else start + page_chars
            pieces.append(Segment(section.heading, start, end, cont=start != section.start))
            start = end
    pages: list[list[Segment]] = []
    size = page_chars  # forces a new page for the first piece
    for piece in pieces:
        length = piece.end - piece.start
        if size + length > page_chars:
            pages.append([])
            size = 0
        pages[-1].append(piece)
        size += length
    return [tuple(p) for p in pages] or [()]


def page_of(pages: Sequence[Sequence[Segment]], offset: int) -> int:
    """Index of the page whose pieces contain `offset` (0 when none does)."""
    for number, page in enumerate(pages):
        if any(s.start <= offset < s.end for s in page):
            return number
    return 0


def page_html(text: str, page: Sequence[Segment], span: tuple[int, int] | None = None,
              focus: tuple[int, int] | None = None) -> str:
    """One page of a file as HTML: escaped headings and bodies, the `span` wrapped in <mark>, and the
    cited sentence `focus` (inside the span) in a stronger colour."""
    parts = ['<div class="xiaoe-file">']
    for segment in page:
        heading = segment.heading or "（文首）"
        suffix = "（续）" if segment.cont else ""
        parts.append(f'<h4 style="margin:1.2em 0 0.3em 0">{html.escape(heading)}{suffix}</h4>')
        parts.append('<div style="white-space:pre-wrap;line-height:1.7">'
                     f"{_marked(text, segment.start, segment.end, span, focus)}</div>")
    parts.append("</div>")
    return "".join(parts)


def _marked(text: str, start: int, end: int, span: tuple[int, int] | None,
            focus: tuple[int, int] | None = None) -> str:
    if span is None or span[1] <= start or span[0] >= end:
        return html.escape(text[start:end])
    a, b = max(span[0], start), min(span[1], end)
    mark_id = f' id="{HIT_ID}"' if a == span[0] else ""
    inner = html.escape(text[a:b])
    if focus is not None and focus[0] < b and focus[1] > a:
        f0, f1 = max(focus[0], a), min(focus[1], b)
        inner = (html.escape(text[a:f0]) + '<mark style="background:#ffb347;padding:0 1px">'
                 + html.escape(text[f0:f1]) + "</mark>" + html.escape(text[f1:b]))
    return (html.escape(text[start:a]) + f'<mark{mark_id} style="background:#ffe08a;padding:0 1px">'
            + inner + "</mark>" + html.escape(text[b:end]))


SCROLL_SCRIPT = f"""<script>
(function () {{
  let tries = 0;
  const go = () => {{
    const el = document.getElementById("{HIT_ID}");
    if (el) {{ el.scrollIntoView({{block: "center"}}); return; }}
    if (tries++ < 40) setTimeout(go, 50);
  }};
  go();
}})();
</script>"""
