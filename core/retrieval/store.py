"""Load the corpus and build, save or reload its index, keyed on the corpus fingerprint.

The fingerprint is a sha256 over every file's name and bytes, the settings that shape chunks
and scores, and the source of the code that does (loader, text, index, the corpus profile), so
any change gives a new index. One pass builds everything per-corpus: the chunks (kept as UTF-8
blobs, never as a list of Documents), the lexical index, and the answerability profile (corpus
vocabulary + normalised chunk texts, core.corpus.profile), all saved together. On disk, under
`settings.index_dir`:

    lexical-<fingerprint>.npz   the whole default index in one file (core.retrieval.format)
    chunks/<file key>.json      one corpus file's chunks and jieba word counts, keyed by its
                                content hash, so a rebuild re-cuts only the files that changed

The school's facts (core.facts) are read from the same bytes on every load, cached index or not, so they follow
the documents exactly as the index does. A cache that cannot be read is rebuilt and the reason is returned in the bundle. Dense and
hybrid retrievers are built by core.retrieval.hybrid (their vectors have their own cache).
"""

from __future__ import annotations

import functools
import hashlib
import json
import zipfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.corpus import loader as loader_module
from core.corpus import profile as profile_module
from core.corpus.loader import (
    empty_file_note,
    list_markdown,
    make_splitter,
    read_markdown,
    refused_markdown,
    split_pieces,
)
from core.corpus.profile import build_profile, word_counts
from core.facts import NO_FACTS, SchoolFacts, read_facts
from core.language import lexicon as lexicon_module
from core.language import text as text_module
from core.language.lexicon import fold
from core.language.text import normalize_folded
from core.os_errors import os_reason
from core.retrieval import index as index_module
from core.retrieval.format import (  # noqa: F401  (re-exported for callers of the store)
    FORMAT_VERSION,
    ChunkBlobs,
    LazyChunks,
    load_index,
    save_index,
    write_atomic,
)
from core.retrieval.index import LexicalRetriever, SearchIndex
from core.settings import Settings

CHUNK_DIR = "chunks"
# The code whose output is saved: the chunks (loader, text), the postings (index) and the vocabulary
# (profile, lexicon). A change to any of them changes the fingerprint, so the saved index is rebuilt.
_CODE_FILES = (loader_module.__file__, text_module.__file__, index_module.__file__, profile_module.__file__,
               lexicon_module.__file__)
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
    facts: SchoolFacts = NO_FACTS  # the school's facts read from these documents (core.facts)


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
    facts = read_facts([(path.name, data.decode("utf-8-sig", errors="replace")) for path, data in corpus])
    fingerprint = _fingerprint(settings, [(path.name, hashlib.sha256(data).digest()) for path, data in corpus])
    path = index_path(settings, fingerprint)
    note = ""
    if settings.retriever == "lexical" and path.exists():
        try:
            index, meta = load_index(path, fingerprint)
            if index.profile is None or index.profile.key != profile_module.profile_key():
                raise ValueError("the saved index has no current answerability profile")
            return IndexBundle(index=index, files=tuple(meta["files"]), skipped=tuple(meta["skipped"]),
                               fingerprint=fingerprint, from_cache=True, facts=facts)
        except CACHE_ERRORS as error:
            note = f"索引缓存 {path.name} 无法读取（{os_reason(error)}），已重新建立。"
    table = _chunk_corpus(settings, corpus)
    del corpus
    texts = table.index_texts
    profile = build_profile(texts, counts=table.counts, folded=table.folded)
    table.folded = []
    chunks = table.blobs.finish()
    if settings.retriever == "lexical":
        retriever = LexicalRetriever.fit(texts) if texts else None
        del texts, table.index_texts[:]
        index = SearchIndex(chunks=chunks, retriever=retriever, fingerprint=fingerprint, profile=profile)
        del chunks, retriever, profile
        try:
            save_index(index, path, files=table.files, skipped=table.skipped)
            _prune(settings.index_dir.glob("lexical-*.npz"), keep={path})
        except OSError as error:
            note += f"索引无法写入 {settings.index_dir}（{os_reason(error)}），本次照常使用，但下次启动要重建；请检查 XIAOE_DATA_DIR 是否可写。"
        else:
            index = _mapped(index, path)
    else:
        from core.retrieval.hybrid import build_index_for  # dense and hybrid need a provider; imported only then

        index = replace(build_index_for(settings, tuple(chunks), fingerprint), profile=profile)
    return IndexBundle(index=index, files=table.files, skipped=table.skipped, fingerprint=fingerprint,
                       resplit=table.resplit, note=" ".join(n for n in (note, table.note) if n), facts=facts)


def _mapped(built: SearchIndex, path: Path) -> SearchIndex:
    """The index just saved, read back as views of the mapped file: the built arrays are freed, so
    the served index holds in memory only what questions touch (the same arrays, bit for bit)."""
    try:
        index, _ = load_index(path, built.fingerprint)
    except CACHE_ERRORS:  # written a moment ago; if it cannot be read back, serve what was built
        return built
    return replace(index, built_at=built.built_at)


# -- the corpus and its per-file chunk cache ----------------------------------------------------

def _read_corpus(folder: Path) -> list[tuple[Path, bytes]]:
    return [(path, path.read_bytes()) for path in list_markdown(folder)]


@functools.cache
def _code_version() -> str:
    digest = hashlib.sha256()
    for name in _CODE_FILES:
        digest.update(Path(name).read_bytes())
    digest.update(profile_module.profile_key().encode())  # word lists and jieba's lexicon behind the vocabulary
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


@dataclass
class _ChunkTable:
    """Every chunk of the corpus, compact: blobs, the texts the index reads, and jieba word counts."""

    blobs: ChunkBlobs = field(default_factory=ChunkBlobs)
    index_texts: list[str] = field(default_factory=list)
    folded: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    files: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    resplit: tuple[str, ...] = ()
    note: str = ""


def _chunk_corpus(settings: Settings, corpus: list[tuple[Path, bytes]]) -> _ChunkTable:
    """Chunks of every file, re-split (and re-counted) only where the file's content hash has no cache entry."""
    folder = settings.index_dir / CHUNK_DIR
    splitter = None
    table = _ChunkTable()
    files: list[str] = []
    skipped: list[str] = list(refused_markdown(settings.corpus_dir))
    resplit: list[str] = []
    kept: set[Path] = set()
    for path, data in corpus:
        entry = folder / f"{_file_key(settings, path.name, data)}.json"
        kept.add(entry)
        try:
            cached = json.loads(entry.read_text("utf-8"))
            pieces, counts = [(t, h, m, f) for t, h, m, f in cached["chunks"]], cached["counts"]
        except CACHE_ERRORS:  # missing or damaged: the file is simply cut again
            pieces = None
        if pieces is None:
            text = read_markdown(path)
            splitter = splitter or make_splitter(settings.chunk_size, settings.chunk_overlap)
            folded: list[str] = []  # fold() of each chunk's index text, shared by the profile and the word counts
            pieces = [_piece(content, metadata, folded)
                      for content, metadata in (split_pieces(path.name, text, splitter) if text.strip() else [])]
            counts = word_counts(folded, folded=True)
            del folded
            resplit.append(path.name)
            try:
                payload = json.dumps({"chunks": pieces, "counts": counts}, ensure_ascii=False).encode("utf-8")
                write_atomic(entry, lambda f, payload=payload: f.write(payload), durable=False)
            except OSError as error:
                table.note = f"片段缓存无法写入 {folder}（{os_reason(error)}），下次启动会重新切分。"
        if pieces:
            files.append(path.name)
            for text, heading, meta, folded in pieces:
                table.blobs.add(text, meta)
                table.index_texts.append(_index_text(text, heading))
                table.folded.append(folded)
            table.counts.update(counts)
        else:
            skipped.append(empty_file_note(path.name))
    if not table.note:
        _prune(folder.glob("*.json"), keep=kept)
    table.files, table.skipped, table.resplit = tuple(files), tuple(skipped), tuple(resplit)
    return table


def _index_text(text: str, heading: str) -> str:
    """index_text of a chunk, without making a Document (the same string the retriever reads)."""
    return f"{heading}\n{text}" if heading else text


def _piece(text: str, metadata: dict, folded: list[str]) -> tuple[str, str, str, str]:
    """What the chunk cache keeps per chunk: text, heading, metadata as JSON, and the normalised
    text the answerability profile joins (so a rebuild normalises only the files that changed).
    The folded index text (NFKC + lowercase, the costly part of both) is appended to `folded`."""
    heading = str(metadata.get("heading") or "")
    folded.append(fold(_index_text(text, heading)))
    return text, heading, _META_JSON.encode(metadata), normalize_folded(folded[-1])


_META_JSON = json.JSONEncoder(ensure_ascii=False)  # json.dumps(…, ensure_ascii=False) without a new encoder per chunk


def _prune(paths: Iterable[Path], *, keep: set[Path]) -> None:
    """Delete cache files of earlier corpora (another process may have deleted them first)."""
    for path in paths:
        if path not in keep:
            path.unlink(missing_ok=True)
