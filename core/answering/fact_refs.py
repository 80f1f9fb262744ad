"""The references an own-figure answer cites: for each school fact it uses, the chunk holding the fact's sentence.

A chunk the gate passed is cited when it holds the sentence; otherwise the index's chunk that does joins the
references, after them (the gate's decision — answer or refuse, which chunks passed — is not changed). A sentence
is held by a chunk of the same file whose text contains it (spaces and the closing 「。」 aside); when a chunk
boundary cuts it, the chunk holding its longest head is taken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from core.retrieval.index import SearchIndex
from core.values import Hit
from core.values.facts import Source


def _clean(text: str) -> str:
    return "".join(text.split()).rstrip("。；，")


def holds(hit: Hit, source: Source) -> bool:
    return hit.source == source.file and _clean(source.sentence) in "".join(hit.text.split())


def _from_index(index: SearchIndex, source: Source) -> Hit | None:
    sentence = _clean(source.sentence)
    best: tuple[int, int] | None = None  # (length of the head held, chunk position)
    for position in range(len(index.chunks)):
        doc = index.chunks[position]
        if doc.metadata.get("source") != source.file:
            continue
        text = "".join(doc.page_content.split())
        head = next((n for n in range(len(sentence), 7, -1) if sentence[:n] in text), 0)
        if head and (best is None or head > best[0]):
            best = (head, position)
            if head == len(sentence):
                break
    if best is None:
        return None
    doc = index.chunks[best[1]]
    meta = doc.metadata
    return Hit(rank=0, source=meta.get("source", ""), heading=meta.get("heading", ""), chunk=int(meta.get("chunk", 0)),
               start=int(meta.get("start", 0)), end=int(meta.get("end", 0)), text=doc.page_content, score=0.0,
               passed=True)


def with_fact_chunks(hits: Sequence[Hit], sources: Iterable[Source], index: SearchIndex) -> tuple[Hit, ...]:
    """`hits` plus, for each source no hit holds, the index's chunk that does (once each, in the order needed)."""
    out = list(hits)
    for source in sources:
        if any(holds(h, source) for h in out):
            continue
        found = _from_index(index, source)
        if found is not None and not any(h.text == found.text and h.source == found.source for h in out):
            out.append(replace(found, rank=len(out) + 1))
    return tuple(out)


def citer(hits: Sequence[Hit]) -> Callable[[Source], int | None]:
    """`cite(source)` → the 1-based number of the first hit holding the source's sentence; for a sentence no hit holds
    whole (a chunk boundary cut it), the hit of the same file holding its longest head (at least 8 characters); else
    None."""
    def cite(source: Source) -> int | None:
        for number, hit in enumerate(hits, start=1):
            if holds(hit, source):
                return number
        sentence = _clean(source.sentence)
        best: tuple[int, int | None] = (7, None)
        for number, hit in enumerate(hits, start=1):
            if hit.source == source.file:
                text = "".join(hit.text.split())
                head = next((n for n in range(len(sentence), 7, -1) if sentence[:n] in text), 0)
                if head > best[0]:
                    best = (head, number)
        return best[1]
    return cite
