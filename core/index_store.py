"""Load the corpus and build, save or reload its index, keyed on the corpus fingerprint.

The fingerprint is a sha256 over every file's name and bytes, the settings that shape chunks
and scores, and the source of the code that does (loader, text, index), so any change gives
a new index. On disk, under `settings.index_dir`:

    lexical-<fingerprint>.npz   the whole default index in one file (no pickle): n-gram keys,
                                idf, postings CSR, chunk texts and metadata as UTF-8 blobs
    chunks/<file key>.json      one corpus file's chunks, keyed by its content hash, so a
                                rebuild re-splits only the files that changed

Every file is written to a temp file and renamed into place, so a crash leaves the old file
or none. A cache that cannot be read is rebuilt and the reason is returned in the bundle.
Dense and hybrid retrievers are built by core.hybrid (their vectors have their own cache).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from langchain_core.documents import Document
from scipy import sparse

from core import index as index_module
from core import loader as loader_module
from core import text as text_module
from core.index import LexicalRetriever, SearchIndex, build_index
from core.loader import list_markdown, make_splitter, read_markdown, split_text
from core.os_errors import os_reason
from core.settings import Settings

FORMAT_VERSION = 2
CHUNK_DIR = "chunks"
_CODE_FILES = (loader_module.__file__, text_module.__file__, index_module.__file__)
CACHE_ERRORS = (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile)


@dataclass(frozen=True)
class IndexBundle:
    """The index plus what the console shows about it."""

    index: SearchIndex
    files: tuple[str, ...]
    skipped: tuple[str, ...]
    fingerprint: str
    from_cache: bool = False
    resplit: tuple[str, ...] = ()  # files cut into chunks again on this build (the rest came from cache)
    note: str = ""                 # a cache problem that was worked around (Chinese), or ""


def corpus_fingerprint(settings: Settings) -> str:
    """sha256 of file names + contents + the settings and code that shape chunks and scores.

    The console calls this on every rerun, so a file is re-hashed only when its size or
    modification time changed since the last call in this process.
    """
    return _fingerprint(settings, [(path.name, _file_digest(path)) for path in list_markdown(settings.corpus_dir)])


_digests: dict[Path, tuple[int, int, bytes]] = {}


def _file_digest(path: Path) -> bytes:
    stat = path.stat()
    cached = _digests.get(path)
    if cached is not None and cached[:2] == (stat.st_size, stat.st_mtime_ns):
        return cached[2]
    digest = hashlib.sha256(path.read_bytes()).digest()
    _digests[path] = (stat.st_size, stat.st_mtime_ns, digest)
    return digest


def index_path(settings: Settings, fingerprint: str) -> Path:
    return settings.index_dir / f"lexical-{fingerprint}.npz"


def load_or_build(settings: Settings) -> IndexBundle:
    """The saved index when the fingerprint matches, else a fresh one (saved when lexical).

    Raises CorpusError for an unusable corpus; never fails because of the cache.
    """
    corpus = _read_corpus(settings.corpus_dir)
    fingerprint = _fingerprint(settings, [(path.name, hashlib.sha256(data).digest()) for path, data in corpus])
    path = index_path(settings, fingerprint)
    note = ""
    if settings.retriever == "lexical" and path.exists():
        try:
            index, meta = load_index(path, fingerprint)
            return IndexBundle(index=index, files=tuple(meta["files"]), skipped=tuple(meta["skipped"]),
                               fingerprint=fingerprint, from_cache=True)
        except CACHE_ERRORS as error:
            note = f"索引缓存 {path.name} 无法读取（{os_reason(error)}），已重新建立。"
    chunks, files, skipped, resplit, chunk_note = _chunk_corpus(settings, corpus)
    if settings.retriever == "lexical":
        index = build_index(chunks, fingerprint=fingerprint)
        try:
            save_index(index, path, files=files, skipped=skipped)
            _prune(settings.index_dir.glob("lexical-*.npz"), keep={path})
        except OSError as error:
            note += f"索引无法写入 {settings.index_dir}（{os_reason(error)}），本次照常使用，但下次启动要重建；请检查 XIAOE_DATA_DIR 是否可写。"
    else:
        from core.hybrid import build_index_for  # dense and hybrid need a provider; imported only then

        index = build_index_for(settings, chunks, fingerprint)
    return IndexBundle(index=index, files=files, skipped=skipped, fingerprint=fingerprint,
                       resplit=resplit, note=" ".join(n for n in (note, chunk_note) if n))


# -- the corpus and its per-file chunk cache ----------------------------------------------------

def _read_corpus(folder: Path) -> list[tuple[Path, bytes]]:
    return [(path, path.read_bytes()) for path in list_markdown(folder)]


@functools.cache
def _code_version() -> str:
    digest = hashlib.sha256()
    for name in _CODE_FILES:
        digest.update(Path(name).read_bytes())
    return digest.hexdigest()[:12]


def _fingerprint(settings: Settings, files: list[tuple[str, bytes]]) -> str:
    """`files` are (name, sha256 digest of the content) in corpus order."""
    digest = hashlib.sha256()
    digest.update(f"v{FORMAT_VERSION}|{_code_version()}|{settings.chunk_size}|{settings.chunk_overlap}|"
                  f"{settings.retriever}|{settings.embed_model}|{settings.embed_base_url}".encode())
    for name, content_digest in files:
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(content_digest)
    return digest.hexdigest()[:16]


def _file_key(settings: Settings, name: str, data: bytes) -> str:
    digest = hashlib.sha256(f"{_code_version()}|{settings.chunk_size}|{settings.chunk_overlap}|{name}\0".encode())
    digest.update(data)
    return digest.hexdigest()[:24]


def _chunk_corpus(settings: Settings, corpus: list[tuple[Path, bytes]]
                  ) -> tuple[tuple[Document, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], str]:
    """Chunks of every file, re-split only where the file's content hash has no cache entry."""
    folder = settings.index_dir / CHUNK_DIR
    splitter = None
    chunks: list[Document] = []
    files: list[str] = []
    skipped: list[str] = []
    resplit: list[str] = []
    kept: set[Path] = set()
    note = ""
    for path, data in corpus:
        entry = folder / f"{_file_key(settings, path.name, data)}.json"
        kept.add(entry)
        try:
            pieces = [Document(page_content=t, metadata=m) for t, m in json.loads(entry.read_text("utf-8"))]
        except CACHE_ERRORS:  # missing or damaged: the file is simply cut again
            pieces = None
        if pieces is None:
            text = read_markdown(path)
            splitter = splitter or make_splitter(settings.chunk_size, settings.chunk_overlap)
            pieces = split_text(path.name, text, splitter) if text.strip() else []
            resplit.append(path.name)
            try:
                payload = json.dumps([[c.page_content, c.metadata] for c in pieces], ensure_ascii=False).encode("utf-8")
                _write_atomic(entry, lambda f, payload=payload: f.write(payload))
            except OSError as error:
                note = f"片段缓存无法写入 {folder}（{os_reason(error)}），下次启动会重新切分。"
        if pieces:
            files.append(path.name)
            chunks.extend(pieces)
        else:
            skipped.append(f"资料文件「{path.name}」是空的，已跳过。")
    if not note:
        _prune(folder.glob("*.json"), keep=kept)
    return tuple(chunks), tuple(files), tuple(skipped), tuple(resplit), note


# -- one-file index format ----------------------------------------------------------------------

def save_index(index: SearchIndex, path: Path, *, files: Sequence[str] = (), skipped: Sequence[str] = ()) -> None:
    """Write a lexical index (or an empty one) to `path` atomically; no pickle."""
    retriever = index.retriever
    if retriever is not None and not isinstance(retriever, LexicalRetriever):
        raise TypeError(f"only the lexical index is saved here, not {type(retriever).__name__}")
    texts, text_offsets = _blob(c.page_content for c in index.chunks)
    metas, meta_offsets = _blob(json.dumps(c.metadata, ensure_ascii=False) for c in index.chunks)
    meta = {"format": FORMAT_VERSION, "fingerprint": index.fingerprint, "built_at": index.built_at,
            "files": list(files), "skipped": list(skipped), "n_chunks": len(index.chunks)}
    arrays = {"texts": texts, "text_offsets": text_offsets, "metas": metas, "meta_offsets": meta_offsets}
    if retriever is not None:
        p = retriever.postings
        meta.update(ngram_range=list(retriever.ngram_range), k1=retriever.k1, b=retriever.b)
        arrays.update(terms=retriever.terms, idf=retriever.idf, indptr=p.indptr, indices=p.indices, data=p.data)
    arrays["meta"] = np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)
    _write_atomic(path, lambda f: np.savez(f, **arrays))


def load_index(path: Path, fingerprint: str | None = None) -> tuple[SearchIndex, dict]:
    """Read an index written by `save_index`; ValueError when it is not the expected one."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(data["meta"].tobytes().decode("utf-8"))
        if meta.get("format") != FORMAT_VERSION:
            raise ValueError(f"format {meta.get('format')} is not {FORMAT_VERSION}")
        if fingerprint is not None and meta.get("fingerprint") != fingerprint:
            raise ValueError(f"fingerprint {meta.get('fingerprint')} is not {fingerprint}")
        chunks = LazyChunks(data["texts"], data["text_offsets"], data["metas"], data["meta_offsets"])
        if len(chunks) != meta["n_chunks"]:
            raise ValueError(f"{len(chunks)} chunks stored, {meta['n_chunks']} expected")
        retriever = None
        if "terms" in data:
            terms = data["terms"]
            postings = sparse.csr_matrix((data["data"], data["indices"], data["indptr"]),
                                         shape=(terms.shape[0], len(chunks)))
            retriever = LexicalRetriever(terms=terms, idf=data["idf"], postings=postings,
                                         ngram_range=tuple(meta["ngram_range"]), k1=meta["k1"], b=meta["b"])
    index = SearchIndex(chunks=chunks, retriever=retriever, fingerprint=meta["fingerprint"], built_at=meta["built_at"])
    return index, meta


class LazyChunks(Sequence[Document]):
    """Chunks kept as UTF-8 blobs; a Document is made on first access (100,000 Documents take ~0.5 s)."""

    def __init__(self, texts: np.ndarray, text_offsets: np.ndarray, metas: np.ndarray, meta_offsets: np.ndarray):
        if text_offsets.shape != meta_offsets.shape or text_offsets.ndim != 1 or text_offsets.shape[0] < 1:
            raise ValueError(f"offset arrays {text_offsets.shape} and {meta_offsets.shape} do not match")
        if text_offsets[-1] != texts.shape[0] or meta_offsets[-1] != metas.shape[0]:
            raise ValueError("chunk blobs are shorter or longer than their offsets say")
        self._texts, self._text_offsets = texts.tobytes(), text_offsets.tolist()
        self._metas, self._meta_offsets = metas.tobytes(), meta_offsets.tolist()
        self._made: dict[int, Document] = {}

    def __len__(self) -> int:
        return len(self._text_offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        i = range(len(self))[i]  # IndexError and negative indices as for a tuple
        doc = self._made.get(i)
        if doc is None:
            t0, t1 = self._text_offsets[i], self._text_offsets[i + 1]
            m0, m1 = self._meta_offsets[i], self._meta_offsets[i + 1]
            doc = Document(page_content=self._texts[t0:t1].decode("utf-8"),
                           metadata=json.loads(self._metas[m0:m1].decode("utf-8")))
            self._made[i] = doc
        return doc

    def __iter__(self) -> Iterator[Document]:
        return (self[i] for i in range(len(self)))


def _blob(strings) -> tuple[np.ndarray, np.ndarray]:
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def _write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write through `write` into a temp file beside `path`, fsync, then rename over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False) as tmp:
        try:
            write(tmp)
            tmp.flush()
            os.fsync(tmp.fileno())
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, path)


def _prune(paths: Iterable[Path], *, keep: set[Path]) -> None:
    """Delete cache files of earlier corpora (another process may have deleted them first)."""
    for path in paths:
        if path not in keep:
            path.unlink(missing_ok=True)
