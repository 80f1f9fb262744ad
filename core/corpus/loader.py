"""Load the school's Markdown files and cut them into chunks that remember where they came from.

Two steps: split by Markdown headings (the heading becomes metadata, not body), then cut each
section with langchain's RecursiveCharacterTextSplitter using Chinese separators. Every chunk
keeps `start`/`end` offsets such that `file_text[start:end] == page_content`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter

from core.corpus.write import regular_file_inside
from core.errors import CorpusError

CHINESE_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", "。", "！", "？", "；", "，", " ", "")
HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Section:
    """A heading and the span of its body in the file text."""

    heading: str
    start: int
    end: int


@dataclass(frozen=True)
class LoadReport:
    """What `load_corpus` found: chunks plus files it skipped (empty) with the reason."""

    chunks: tuple[Document, ...]
    files: tuple[str, ...]
    skipped: tuple[str, ...]


def split_sections(text: str) -> list[Section]:
    """Split Markdown text at heading lines; headings inside code fences are body text."""
    sections: list[Section] = []
    heading, body_start, pos, in_fence = "", 0, 0, False
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        if FENCE_RE.match(stripped):
            in_fence = not in_fence
        match = None if in_fence else HEADING_RE.match(stripped)
        if match:
            sections.append(Section(heading, body_start, pos))
            heading, body_start = match.group(2).strip(), pos + len(line)
        pos += len(line)
    sections.append(Section(heading, body_start, len(text)))
    return [s for s in (_trim(text, s) for s in sections) if s.end > s.start]


def _trim(text: str, section: Section) -> Section:
    body = text[section.start:section.end]
    lead = len(body) - len(body.lstrip())
    tail = len(body.rstrip())
    return Section(section.heading, section.start + lead, section.start + max(tail, lead))


DEFAULT_CHUNKING = (160, 40)  # (chunk_size, chunk_overlap): XIAOE_CHUNK_SIZE / XIAOE_CHUNK_OVERLAP's defaults


def make_splitter(chunk_size: int = 160, chunk_overlap: int = 40) -> RecursiveCharacterTextSplitter:
    if chunk_size <= 0:
        raise CorpusError(f"片段长度 chunk_size（{chunk_size}）必须大于 0。")
    if not 0 <= chunk_overlap < chunk_size:
        raise CorpusError(
            f"片段重叠 chunk_overlap（{chunk_overlap}）必须小于片段长度 chunk_size（{chunk_size}），且不能为负。")
    return RecursiveCharacterTextSplitter(
        separators=list(CHINESE_SEPARATORS), keep_separator="end",
        chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True)


def split_text(source: str, text: str, splitter: RecursiveCharacterTextSplitter) -> list[Document]:
    """Cut one file's text into chunks with source, heading, chunk number and offsets."""
    return [Document(page_content=content, metadata=metadata) for content, metadata in split_pieces(source, text, splitter)]


def split_pieces(source: str, text: str, splitter: RecursiveCharacterTextSplitter) -> list[tuple[str, dict]]:
    """`split_text` as (text, metadata) pairs, without making Documents (the index store's path).

    A section shorter than the splitter's chunk size is one chunk, its whole (already trimmed)
    body at offset 0: exactly what the splitter returns for it (every piece it cuts is shorter,
    so it merges them all back and strips the result), without cutting and merging.
    """
    whole_below = _whole_below(splitter)
    pieces: list[tuple[str, dict]] = []
    for section in split_sections(text):
        body = text[section.start:section.end]
        if len(body) < whole_below:
            found = [(body, 0)]
        else:
            found = [(d.page_content, d.metadata["start_index"]) for d in splitter.create_documents([body])]
        for content, offset in found:
            start = section.start + offset
            end = start + len(content)
            if text[start:end] != content:  # the splitter's offset guess can miss on repeats
                start = text.find(content, section.start, section.end)
                end = start + len(content)
            pieces.append((content, {"source": source, "heading": section.heading, "chunk": len(pieces),
                                     "start": start, "end": end}))
    return pieces


def _whole_below(splitter: RecursiveCharacterTextSplitter) -> int:
    """Length under which the splitter returns a trimmed text whole (0: always ask the splitter)."""
    if type(splitter) is not RecursiveCharacterTextSplitter or getattr(splitter, "_length_function", None) is not len:
        return 0
    return int(getattr(splitter, "_chunk_size", 0))


def read_markdown(path: Path) -> str:
    """Read one corpus file as UTF-8 text, with a Chinese message naming the file on failure."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CorpusError(f"资料文件「{path.name}」有 {size / 1024 / 1024:.1f} MB，超过 2 MB 上限，请拆分后再放入。")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorpusError(
            f"资料文件「{path.name}」不是 UTF-8 编码（第 {error.start} 字节附近无法解码），请用 UTF-8 另存后重试。") from None


def list_markdown(folder: Path | str) -> list[Path]:
    """The regular `.md` files directly in `folder`, sorted; symlinks and the like are left out
    (see `refused_markdown`), so a link to /etc/passwd is never read, indexed or quoted."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CorpusError(f"资料文件夹「{folder}」不存在，请检查 XIAOE_CORPUS_DIR 设置或先创建该文件夹。")
    files = sorted(p for p in _candidates(folder) if _refusal(folder, p) is None)
    if not files:
        raise CorpusError(f"资料文件夹「{folder}」里没有 .md 文件，请放入至少一份 Markdown 资料。")
    return files


def refused_markdown(folder: Path | str) -> tuple[str, ...]:
    """A Chinese sentence for each `.md` entry that is not a regular file inside `folder`."""
    folder = Path(folder)
    if not folder.is_dir():
        return ()
    return tuple(f"已拒绝{reason}" for p in sorted(_candidates(folder)) if (reason := _refusal(folder, p)))


def _candidates(folder: Path) -> list[Path]:
    return [p for p in folder.glob("*.md") if not p.name.startswith(".")]


def _refusal(folder: Path, path: Path) -> str | None:
    return regular_file_inside(folder, path)


def empty_file_note(name: str) -> str:
    """The one sentence for an empty corpus file (said by the loader and by the index store alike)."""
    return f"资料文件「{name}」是空的，已跳过。"


def load_corpus(folder: Path | str, *, chunk_size: int = 160, chunk_overlap: int = 40) -> LoadReport:
    """Load every `.md` file in `folder` (sorted by name); empty files are skipped and reported."""
    splitter = make_splitter(chunk_size, chunk_overlap)
    chunks: list[Document] = []
    files: list[str] = []
    skipped: list[str] = list(refused_markdown(folder))
    for path in list_markdown(folder):
        text = read_markdown(path)
        if not text.strip():
            skipped.append(empty_file_note(path.name))
            continue
        files.append(path.name)
        chunks.extend(split_text(path.name, text, splitter))
    return LoadReport(chunks=tuple(chunks), files=tuple(files), skipped=tuple(skipped))


def load_documents(folder: Path | str, *, chunk_size: int = 160, chunk_overlap: int = 40) -> list[Document]:
    """The chunks of every `.md` file in `folder`; see `load_corpus` for the skipped-file report."""
    return list(load_corpus(folder, chunk_size=chunk_size, chunk_overlap=chunk_overlap).chunks)
