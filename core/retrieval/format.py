"""The saved index, one `.npz` file (no pickle), and the compact chunk sequence it is read back into.

Arrays: n-gram keys, idf and postings CSR of the lexical retriever; chunk texts and metadata as
UTF-8 blobs with offsets; the corpus profile (core.corpus.profile: normalised chunk texts, their
starts, the vocabulary) so the answerability analyzer needs no pass over the chunks; and a JSON
`meta`. A file is written to a temp file and renamed into place, so a crash leaves the old file
or none. Arrays are written 64-byte aligned and read back as views of one read-only mmap
(core.retrieval.npz): the postings and chunk blobs stay in the operating system's file cache and
only the pages a question touches count towards the process's memory. Format 4 added the
alignment; a file of an older format is rebuilt, not misread.
"""

from __future__ import annotations

import json
import os
import tempfile
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
from langchain_core.documents import Document
from scipy import sparse

from core.corpus.profile import CorpusProfile
from core.retrieval.index import LexicalRetriever, SearchIndex
from core.retrieval.npz import read_npz, write_npz

FORMAT_VERSION = 4
MADE_CACHE = 4096  # Documents kept after first access: enough for every page, bounded at any corpus size


class LazyChunks(Sequence[Document]):
    """Chunks kept as UTF-8 blobs with int64 offsets; a Document is made on access (a few kept for reuse).

    The blobs may be views of a mapped file (load_index): they are sliced, never copied whole.
    """

    def __init__(self, texts: bytes | np.ndarray, text_offsets: np.ndarray, metas: bytes | np.ndarray,
                 meta_offsets: np.ndarray):
        text_offsets, meta_offsets = np.asarray(text_offsets, dtype=np.int64), np.asarray(meta_offsets, dtype=np.int64)
        if text_offsets.shape != meta_offsets.shape or text_offsets.ndim != 1 or text_offsets.shape[0] < 1:
            raise ValueError(f"offset arrays {text_offsets.shape} and {meta_offsets.shape} do not match")
        self._texts, self._metas = _bytes_view(texts), _bytes_view(metas)
        if text_offsets[-1] != self._texts.shape[0] or meta_offsets[-1] != self._metas.shape[0]:
            raise ValueError("chunk blobs are shorter or longer than their offsets say")
        self._text_offsets, self._meta_offsets = text_offsets, meta_offsets
        self._made: OrderedDict[int, Document] = OrderedDict()

    def __len__(self) -> int:
        return self._text_offsets.shape[0] - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        i = range(len(self))[i]  # IndexError and negative indices as for a tuple
        doc = self._made.get(i)
        if doc is None:
            doc = Document(page_content=self.text(i), metadata=json.loads(self._slice(self._metas, self._meta_offsets, i)))
            self._made[i] = doc
            if len(self._made) > MADE_CACHE:
                self._made.popitem(last=False)
        else:
            self._made.move_to_end(i)
        return doc

    def __iter__(self) -> Iterator[Document]:
        return (self[i] for i in range(len(self)))

    def text(self, i: int) -> str:
        return self._slice(self._texts, self._text_offsets, i)

    def blobs(self) -> dict[str, np.ndarray]:
        """The arrays `save_index` writes, without re-encoding anything."""
        return {"texts": self._texts, "text_offsets": self._text_offsets,
                "metas": self._metas, "meta_offsets": self._meta_offsets}

    @staticmethod
    def _slice(blob: np.ndarray, offsets: np.ndarray, i: int) -> str:
        return str(memoryview(blob[int(offsets[i]):int(offsets[i + 1])]), "utf-8")


def _bytes_view(blob: bytes | np.ndarray) -> np.ndarray:
    """A uint8 array over `blob` without copying it (bytes are immutable, a mapped array read-only)."""
    if isinstance(blob, np.ndarray):
        return blob.reshape(-1).view(np.uint8)
    return np.frombuffer(blob, dtype=np.uint8)


class ChunkBlobs:
    """Builds a LazyChunks one chunk at a time, so no list of Documents is ever held."""

    def __init__(self) -> None:
        self._texts, self._metas = bytearray(), bytearray()
        self._text_offsets, self._meta_offsets = array("q", [0]), array("q", [0])

    def add(self, text: str, metadata: dict | str) -> None:
        """One chunk; `metadata` as a dict or already as its JSON text."""
        meta = metadata if isinstance(metadata, str) else json.dumps(metadata, ensure_ascii=False)
        self._texts += text.encode("utf-8")
        self._metas += meta.encode("utf-8")
        self._text_offsets.append(len(self._texts))
        self._meta_offsets.append(len(self._metas))

    def __len__(self) -> int:
        return len(self._text_offsets) - 1

    def finish(self) -> LazyChunks:
        chunks = LazyChunks(bytes(self._texts), np.frombuffer(self._text_offsets, dtype=np.int64),
                            bytes(self._metas), np.frombuffer(self._meta_offsets, dtype=np.int64))
        self._texts, self._metas = bytearray(), bytearray()  # released: the LazyChunks holds its own copy
        return chunks


def save_index(index: SearchIndex, path: Path, *, files: Sequence[str] = (), skipped: Sequence[str] = ()) -> None:
    """Write a lexical index (or an empty one) to `path` atomically; no pickle."""
    retriever = index.retriever
    if retriever is not None and not isinstance(retriever, LexicalRetriever):
        raise TypeError(f"only the lexical index is saved here, not {type(retriever).__name__}")
    chunks = index.chunks if isinstance(index.chunks, LazyChunks) else _pack(index.chunks)
    meta = {"format": FORMAT_VERSION, "fingerprint": index.fingerprint, "built_at": index.built_at,
            "files": list(files), "skipped": list(skipped), "n_chunks": len(index.chunks)}
    arrays = chunks.blobs()
    if retriever is not None:
        p = retriever.postings
        meta.update(ngram_range=list(retriever.ngram_range), k1=retriever.k1, b=retriever.b)
        arrays.update(terms=retriever.terms, idf=retriever.idf, indptr=p.indptr, indices=p.indices, data=p.data)
    profile = getattr(index, "profile", None)
    if profile is not None:
        meta["profile_key"] = profile.key
        arrays.update(profile_text=_utf8(profile.text), profile_starts=np.frombuffer(profile.starts, dtype=np.int64),
                      vocabulary=_utf8("\n".join(profile.vocabulary)))
    arrays["meta"] = _utf8(json.dumps(meta, ensure_ascii=False))
    write_atomic(path, lambda f: write_npz(f, arrays))


def load_index(path: Path, fingerprint: str | None = None) -> tuple[SearchIndex, dict]:
    """Read an index written by `save_index`; ValueError when it is not the expected one.

    The large arrays (postings, chunk blobs) stay views of the mapped file; the profile's text
    is decoded into one str (the analyzer searches it with `in` and regexes).
    """
    data = read_npz(path)
    if "meta" not in data:
        raise ValueError("the file has no meta record")
    meta = json.loads(_text(data["meta"]))
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
                                     shape=(terms.shape[0], len(chunks)), copy=False)
        retriever = LexicalRetriever(terms=terms, idf=data["idf"], postings=postings,
                                     ngram_range=tuple(meta["ngram_range"]), k1=meta["k1"], b=meta["b"])
    profile = None
    if "profile_text" in data:
        starts = array("q", data["profile_starts"].astype(np.int64).tobytes())
        if len(starts) != len(chunks):
            raise ValueError(f"profile has {len(starts)} chunks, the index {len(chunks)}")
        words = _text(data["vocabulary"])
        profile = CorpusProfile(vocabulary=tuple(words.split("\n")) if words else (),
                                text=_text(data["profile_text"]), starts=starts, key=meta.get("profile_key", ""))
    index = SearchIndex(chunks=chunks, retriever=retriever, fingerprint=meta["fingerprint"], built_at=meta["built_at"],
                        profile=profile)
    return index, meta


def _text(blob: np.ndarray) -> str:
    return str(memoryview(blob.reshape(-1).view(np.uint8)), "utf-8")


def _pack(chunks: Sequence[Document]) -> LazyChunks:
    blobs = ChunkBlobs()
    for chunk in chunks:
        blobs.add(chunk.page_content, chunk.metadata)
    return blobs.finish()


def _utf8(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def write_atomic(path: Path, write: Callable[[BinaryIO], object], *, durable: bool = True) -> None:
    """Write through `write` into a temp file beside `path`, fsync, then rename over `path`.

    `durable=False` skips the fsync: for cache entries whose loss or truncation after a power
    cut is detected on reading and only costs recomputing them (the per-file chunk cache).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".xe-", suffix=".tmp", delete=False) as tmp:
        try:
            write(tmp)
            tmp.flush()
            if durable:
                os.fsync(tmp.fileno())
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, path)
