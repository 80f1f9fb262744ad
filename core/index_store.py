"""Load the corpus and build (or reload) its index, keyed on the corpus fingerprint.

The fingerprint is a sha256 over every file's name and bytes plus the chunking and retriever
settings, so any change to a file or a setting gives a new index.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from core.index import NGRAM_RANGE, SearchIndex, build_index
from core.loader import list_markdown, load_corpus
from core.settings import Settings

FORMAT_VERSION = 1


@dataclass(frozen=True)
class IndexBundle:
    """The index plus what the console shows about it."""

    index: SearchIndex
    files: tuple[str, ...]
    skipped: tuple[str, ...]
    fingerprint: str
    from_cache: bool = False


def corpus_fingerprint(settings: Settings) -> str:
    """sha256 of file names + contents + the settings that shape chunks and scores."""
    digest = hashlib.sha256()
    digest.update(f"v{FORMAT_VERSION}|{settings.chunk_size}|{settings.chunk_overlap}|"
                  f"{settings.retriever}|{NGRAM_RANGE}|{settings.embed_model}".encode())
    for path in list_markdown(settings.corpus_dir):
        digest.update(path.name.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def load_or_build(settings: Settings) -> IndexBundle:
    """Build the index for the corpus folder named in `settings` (CorpusError on a bad corpus)."""
    fingerprint = corpus_fingerprint(settings)
    report = load_corpus(settings.corpus_dir, chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap)
    index = build_index(report.chunks, fingerprint=fingerprint)
    return IndexBundle(index=index, files=report.files, skipped=report.skipped, fingerprint=fingerprint)
