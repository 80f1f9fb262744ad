"""Content hashes of chunks: what an approved answer's citation is checked against (same text, same hash).

`corpus_hashes(index)` is computed once per served index (a few hundred milliseconds at 100,000 chunks) and
kept while the index lives.
"""

from __future__ import annotations

import hashlib
import threading
import weakref

from core.retrieval.index import SearchIndex

_by_index: weakref.WeakKeyDictionary[SearchIndex, frozenset[str]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def sha256_text(text: str) -> str:
    """The hex sha256 of a chunk's text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def corpus_hashes(index: SearchIndex) -> frozenset[str]:
    """Every chunk's content hash in `index`."""
    with _lock:
        found = _by_index.get(index)
    if found is None:
        found = frozenset(sha256_text(chunk.page_content) for chunk in index.chunks)
        with _lock:
            _by_index[index] = found
    return found
