"""What a WeChat student reads of an answer, cut to WeCom's size: the answer with its sources written out, split on
sentence boundaries into texts of at most 2,048 UTF-8 bytes, and the msgid each part is sent with.

The split is langchain's recursive splitter measuring in bytes, trying paragraph, line and sentence ends before
anything smaller, so a part ends where a sentence does whenever one fits. The msgid is derived from what is sent
(its kind, the exchange or outbox message it carries, the part), so a retry after a crash carries the same msgid
and WeCom refuses it as a repeat instead of delivering it twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache

from langchain_text_splitters import RecursiveCharacterTextSplitter

from core.values.exchanges import Citation
from core.values.wecom import MAX_TEXT_BYTES

# Paragraph, line, then sentence ends (Chinese and Western), then clause marks, then anything.
SEPARATORS = ["\n\n", "\n", "。", "！", "？", "!", "?", "；", ";", "…", "，", ",", "、", " ", ""]
MAX_PARTS = 20  # a longer answer is a mistake upstream; it is cut here rather than sent as forty messages


def byte_length(text: str) -> int:
    return len(text.encode("utf-8"))


@lru_cache(maxsize=4)
def _splitter(limit: int) -> RecursiveCharacterTextSplitter:
    return RecursiveCharacterTextSplitter(separators=SEPARATORS, keep_separator="end", chunk_size=limit,
                                          chunk_overlap=0, length_function=byte_length, strip_whitespace=True)


def split_text(text: str, limit: int = MAX_TEXT_BYTES) -> tuple[str, ...]:
    """`text` as parts of at most `limit` UTF-8 bytes, cut at sentence ends where one fits; one part when it fits
    whole. Nothing is dropped except the whitespace at a cut."""
    text = text.strip()
    if not text:
        return ()
    if byte_length(text) <= limit:
        return (text,)
    parts = tuple(p for p in _splitter(limit).split_text(text) if p)
    return parts[:MAX_PARTS]


def with_sources(answer: str, citations: Sequence[Citation]) -> str:
    """The answer as a WeChat student reads it: the text, then each [n] it cites with its file and section (WeChat
    shows no links, so the sources are written out)."""
    if not citations:
        return answer.strip()
    lines = [f"[{c.n}] {c.file}" + (f" · {c.section}" if c.section else "") for c in citations]
    return answer.strip() + "\n\n出处：\n" + "\n".join(lines)


def msgid_for(kind: str, source_id: str, part: int) -> str:
    """The msgid one part is always sent with: at most 32 bytes of [0-9a-zA-Z_-], unique per account because the
    (kind, source, part) it is made from is."""
    digest = hashlib.sha256(f"{kind}:{source_id}".encode()).hexdigest()[:24]
    return f"xe{kind[:1]}{digest}-{part}"
