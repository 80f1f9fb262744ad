"""CachedEmbeddings: document vectors kept on disk by sha256(text) and model, so a restart embeds nothing.

One SQLite file per cache folder holds rows (model, sha256, float32 vector). Only texts missing
from it are sent to the provider. Queries are not written to disk (they are students'
questions and rarely repeat word for word); a small in-memory LRU keeps the latest ones.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from core.errors import ModelError, StoreError

CACHE_FILE = "embeddings.sqlite3"
QUERY_CACHE_SIZE = 256
LOOKUP_BATCH = 500  # keeps each IN (...) under SQLite's host-parameter limit
MIGRATIONS = (
    """CREATE TABLE IF NOT EXISTS vectors (
        model TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, sha256)
    ) WITHOUT ROWID""",
)


def content_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEmbeddings(Embeddings):
    """Any `Embeddings` plus a disk cache for documents and an LRU for queries.

    `model_key` names the model (and server) the vectors came from: vectors of different
    models never mix. `sent` counts the texts actually passed to `inner.embed_documents`.
    """

    def __init__(self, inner: Embeddings, cache_dir: Path | str, model_key: str, *,
                 query_cache_size: int = QUERY_CACHE_SIZE) -> None:
        if not model_key:
            raise ValueError("model_key must not be empty")
        if query_cache_size < 0:
            raise ValueError(f"query_cache_size ({query_cache_size}) must not be negative")
        self.inner = inner
        self.model_key = model_key
        self.path = Path(cache_dir) / CACHE_FILE
        self.query_cache_size = query_cache_size
        self.sent = 0
        self._queries: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()
        self._migrate()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        keys = [content_key(t) for t in texts]
        found = self._load(keys)
        missing = {k: t for k, t in zip(keys, texts) if k not in found}  # first occurrence wins
        if missing:
            fresh = self.inner.embed_documents(list(missing.values()))
            if len(fresh) != len(missing):
                raise ModelError(f"向量模型发来 {len(fresh)} 个向量，但请求的是 {len(missing)} 段文字，索引没有建成。"
                                 "请检查 XIAOE_EMBED_MODEL 是否是向量（embedding）模型。", kind="bad_response")
            rows = {k: np.asarray(v, dtype=np.float32) for k, v in zip(missing, fresh)}
            self._store(rows)
            self.sent += len(missing)
            found.update(rows)
        dims = {found[k].shape[0] for k in keys}
        if len(dims) > 1:
            raise StoreError(f"缓存里的向量长度不一致（{sorted(dims)}），可能同名模型换了版本。"
                             f"请删除 {self.path} 后重新建索引。")
        return [found[k].tolist() for k in keys]

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            if text in self._queries:
                self._queries.move_to_end(text)
                return list(self._queries[text])
        vector = list(self.inner.embed_query(text))
        if self.query_cache_size:
            with self._lock:
                self._queries[text] = vector
                while len(self._queries) > self.query_cache_size:
                    self._queries.popitem(last=False)
        return list(vector)

    def cached_count(self) -> int:
        """How many vectors of this model are on disk."""
        with self._connect() as conn:
            return conn.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (self.model_key,)).fetchone()[0]

    # -- storage ------------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=10)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"打不开向量缓存 {self.path}（{error}），请检查数据目录 XIAOE_DATA_DIR 是否可写。") from error
        try:
            with conn:  # one transaction: commit on success, roll back on error
                yield conn
        except sqlite3.Error as error:
            raise StoreError(f"读写向量缓存 {self.path} 失败（{error}），可以删除这个文件后重建索引。") from error
        finally:
            conn.close()

    def _migrate(self) -> None:
        with self._connect() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for number, statement in enumerate(MIGRATIONS[version:], start=version + 1):
                conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")

    def _load(self, keys: list[str]) -> dict[str, np.ndarray]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, np.ndarray] = {}
        with self._connect() as conn:
            for i in range(0, len(wanted), LOOKUP_BATCH):
                batch = wanted[i:i + LOOKUP_BATCH]
                marks = ",".join("?" * len(batch))
                rows = conn.execute(f"SELECT sha256, vector FROM vectors WHERE model = ? AND sha256 IN ({marks})",
                                    (self.model_key, *batch))
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _store(self, rows: dict[str, np.ndarray]) -> None:
        with self._connect() as conn:
            conn.executemany("INSERT OR REPLACE INTO vectors (model, sha256, dim, vector) VALUES (?, ?, ?, ?)",
                             [(self.model_key, k, v.shape[0], v.tobytes()) for k, v in rows.items()])
