"""The `corpus_versions` table: every saved state of every corpus file, the source of truth for the corpus.

The newest version of each file is the corpus; a corpus folder is a copy of it (core.stores.corpus_sync).
`file_state` tells, inside a transaction, what the current state of one file is, given the
bytes on this instance's disk: a disk state the table has never seen was written outside the
console and is recorded as a baseline version before anything newer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import (
    Column,
    Connection,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy import select as sa_select

from core.clock import as_utc
from core.corpus.files import MAX_NAME_BYTES
from core.stores.db import Database, Migration, Schema, append_only, create_tables

BASELINE_ACTOR = "（改动前的原文件）"  # a state found on disk: written outside the console or before it
ACTION_LABELS = {"baseline": "原有版本", "upload": "上传", "edit": "在线编辑", "restore": "恢复旧版"}

metadata = MetaData()
corpus_versions = Table(
    "corpus_versions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source", String(MAX_NAME_BYTES), nullable=False),
    Column("version", Integer, nullable=False),
    Column("action", String(16), nullable=False),
    Column("content", Text, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("actor", String(200), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("source", "version", name="uq_corpus_versions_source_version"),
)


def _append_only(conn) -> None:
    if conn.dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            conn.execute(text(f"CREATE TRIGGER corpus_versions_no_{verb.lower()} BEFORE {verb} ON corpus_versions "
                              "BEGIN SELECT RAISE(ABORT, 'corpus_versions is append-only'); END"))


CORPUS_SCHEMA = Schema("corpus", (
    Migration(1, "corpus versions table", create_tables(corpus_versions)),
    Migration(2, "append-only corpus versions", _append_only),
    Migration(3, "append-only on PostgreSQL too, and against replacing inserts and TRUNCATE",
              append_only("corpus_versions", keys=(("id",), ("source", "version")))),
))


@dataclass(frozen=True)
class CorpusVersion:
    """One saved state of one corpus file."""

    id: int
    source: str
    version: int
    action: str
    sha256: str
    size: int
    actor: str
    at: datetime
    content: str = field(repr=False)

    @property
    def action_label(self) -> str:
        return ACTION_LABELS.get(self.action, self.action)


@dataclass(frozen=True)
class FileState:
    """One file as the table and this disk see it."""

    last_version: int             # 0 when the table has no row for the file
    latest_sha256: str | None     # the newest recorded version's sha256
    known: frozenset[str]         # every sha256 ever recorded for the file
    disk_sha256: str | None       # None when the file is not on this disk

    @property
    def disk_unrecorded(self) -> bool:
        """The disk holds a state the table has never seen (written outside the console)."""
        return self.disk_sha256 is not None and self.disk_sha256 not in self.known

    @property
    def current_sha256(self) -> str | None:
        """What an editor must have started from: an unrecorded disk state, else the newest version."""
        return self.disk_sha256 if self.disk_unrecorded else self.latest_sha256


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_state(conn: Connection, source: str, disk: bytes | None) -> FileState:
    rows = conn.execute(sa_select(corpus_versions.c.version, corpus_versions.c.sha256)
                        .where(corpus_versions.c.source == source)
                        .order_by(corpus_versions.c.version)).all()
    known = {r.sha256 for r in rows}
    disk_sha = sha256_hex(disk) if disk is not None else None
    if disk is not None and rows and disk_sha not in known and same_text(
            disk, content_of(conn, source, rows[-1].version)):
        known.add(disk_sha)  # the newest version as written here (a BOM or bad bytes were dropped on saving)
    return FileState(last_version=rows[-1].version if rows else 0,
                     latest_sha256=rows[-1].sha256 if rows else None,
                     known=frozenset(known), disk_sha256=disk_sha)


def disk_text(data: bytes) -> str:
    """How a file's bytes are stored as a version's content."""
    return data.decode("utf-8-sig", errors="replace")


def is_utf8(data: bytes) -> bool:
    """True when the bytes read as UTF-8 (a BOM allowed): only then may they be recorded as a version."""
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return True


def same_text(disk: bytes, content: str) -> bool:
    return disk_text(disk) == content


def insert_version(conn: Connection, *, source: str, version: int, action: str, content: str, data: bytes,
                   actor: str, at: datetime) -> None:
    conn.execute(corpus_versions.insert().values(
        source=source, version=version, action=action, sha256=sha256_hex(data), size=len(data),
        content=content, actor=actor, at=at))


def generation(conn: Connection) -> int:
    """The newest row id: it grows with every version any instance records (0 for none)."""
    return int(conn.execute(sa_select(generation_column())).scalar_one())


def generation_column():
    """`generation` as a scalar subquery, to read it in one statement with other stamps."""
    return sa_select(func.coalesce(func.max(corpus_versions.c.id), 0)).scalar_subquery()


def latest_rows(conn: Connection) -> dict[str, tuple[int, str, frozenset[str]]]:
    """source → (newest version, its sha256, every sha256 recorded), without reading any content."""
    out: dict[str, tuple[int, str, set[str]]] = {}
    rows = conn.execute(sa_select(corpus_versions.c.source, corpus_versions.c.version, corpus_versions.c.sha256)
                        .order_by(corpus_versions.c.source, corpus_versions.c.version))
    for row in rows:
        known = out[row.source][2] if row.source in out else set()
        known.add(row.sha256)
        out[row.source] = (row.version, row.sha256, known)
    return {source: (version, sha, frozenset(known)) for source, (version, sha, known) in out.items()}


def content_of(conn: Connection, source: str, version: int) -> str:
    return conn.execute(sa_select(corpus_versions.c.content).where(
        corpus_versions.c.source == source, corpus_versions.c.version == version)).scalar_one()


def as_version(row) -> CorpusVersion:
    return CorpusVersion(id=row.id, source=row.source, version=row.version, action=row.action, sha256=row.sha256,
                         size=row.size, actor=row.actor, at=as_utc(row.at), content=row.content)


def changes_since(db: Database, since: datetime) -> dict[str, tuple[str | None, str]]:
    """source → (its text in force at `since`, None when the file came later; its newest text) for every file
    with a version recorded after `since`. Empty when nothing changed (or nothing was ever recorded). A file whose
    first version is a baseline recorded after `since` (the disk state a later save found unrecorded) had that
    text at `since`."""
    return version_log(db).changes_since(since)


class VersionLog:
    """Every recorded version's place in time, read once; contents are read when first needed and kept. For
    callers that ask `changes_since` for many moments (every approved answer after a save)."""

    def __init__(self, db: Database, rows) -> None:
        self._db = db
        self._by_source: dict[str, list] = {}
        for row in rows:
            self._by_source.setdefault(row.source, []).append(row)
        self._contents: dict[tuple[str, int], str] = {}

    def content(self, source: str, version: int) -> str:
        if (source, version) not in self._contents:
            with self._db.read("读取资料版本") as conn:
                self._contents[source, version] = content_of(conn, source, version)
        return self._contents[source, version]

    def count(self, source: str) -> int:
        """How many versions of `source` are recorded."""
        return len(self._by_source.get(source, ()))

    def newest(self) -> dict[str, str]:
        """source → its newest text: the corpus as the database holds it."""
        return {source: self.content(source, versions[-1].version) for source, versions in self._by_source.items()}

    def changes_since(self, since: datetime) -> dict[str, tuple[str | None, str]]:
        """As the module-level `changes_since`."""
        since = as_utc(since)
        out: dict[str, tuple[str | None, str]] = {}
        for source, versions in self._by_source.items():
            if as_utc(versions[-1].at) <= since:
                continue
            before = [v for v in versions if as_utc(v.at) <= since] or [
                v for v in versions[:1] if v.action == "baseline"]  # first recorded by the save after: the state then
            old = self.content(source, before[-1].version) if before else None
            out[source] = (old, self.content(source, versions[-1].version))
        return out


def version_log(db: Database) -> VersionLog:
    """The recorded versions of every file, without their contents (read on demand)."""
    db.migrate(CORPUS_SCHEMA)
    with db.read("读取资料版本") as conn:
        rows = conn.execute(sa_select(corpus_versions.c.source, corpus_versions.c.version, corpus_versions.c.at,
                                      corpus_versions.c.action)
                            .order_by(corpus_versions.c.source, corpus_versions.c.version)).all()
    return VersionLog(db, rows)
