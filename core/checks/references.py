"""Citations: find the [n] in an answer, map each back to file, section and offsets, and check them."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.documents import Document

from core.language.citations import CITATION_RE, cited, markers
from core.values import Problem, Reference, RefReport

EXCERPT_CHARS = 40






def extract_refs(text: str) -> list[int]:
    """Distinct citation numbers in order of first appearance (core.language.citations' grammar)."""
    return cited(text)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def resolve_refs(text: str, hits: Sequence[Document]) -> tuple[Reference, ...]:
    """Every citation number in `text` that names one of `hits` (1-based), in order of use."""
    refs = []
    for number in extract_refs(text):
        if 1 <= number <= len(hits):
            doc = hits[number - 1]
            meta = doc.metadata
            refs.append(Reference(number=number, source=meta.get("source", ""), heading=meta.get("heading", ""),
                                  chunk=int(meta.get("chunk", 0)), start=int(meta.get("start", 0)),
                                  end=int(meta.get("end", 0)), excerpt=excerpt(doc.page_content)))
    return tuple(refs)


def check_refs(text: str, hits: Sequence[Document], require: bool = True) -> RefReport:
    """Flag numbers outside 1..len(hits), and (when `require`) an answer that cites nothing."""
    problems = []
    for match, found in markers(text):
        for number in found:
            if not 1 <= number <= len(hits):
                available = f"1~{len(hits)}" if hits else "无"
                problems.append(Problem("bad_ref", f"引用了不存在的编号 [{number}]，本次只提供了 {available}",
                                        (match.start(), match.end())))
    if require and hits and not CITATION_RE.search(text):
        problems.append(Problem("no_refs", "通篇没有标注任何出处编号"))
    return RefReport(refs=resolve_refs(text, hits), problems=tuple(problems))
