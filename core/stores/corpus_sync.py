"""Bring this instance's corpus folder in line with the database, the corpus's source of truth.

`sync_corpus` runs at start-up and whenever the database or the folder changes (core.serving.holder
polls for both). In one pass it removes temporary files of saves that crashed, records files
that only this disk has (the shipped corpus on first start, or a file edited on the server) as
baseline versions, and writes the newest version of every file whose copy here is missing or
older. Symlinks and anything that is not a regular file directly in the folder are refused and
reported, never followed. A file that is not UTF-8 is refused too: recording it would store its
U+FFFD mojibake as a version that every other instance writes out and indexes. The refusal is
logged once and kept in `corpus_refusals` (instance, file, why), so the Sources page of any
instance can say which file on which instance needs fixing. Each file is its own transaction: two
instances importing the same file at once leave one baseline, and the other simply sees it on its next pass.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Column, DateTime, MetaData, String, Table, Text, delete, select
from sqlalchemy.exc import IntegrityError

from core.clock import utcnow
from core.corpus.files import MAX_NAME_BYTES, sanitize_filename
from core.corpus.loader import MAX_FILE_BYTES
from core.corpus.write import regular_file_inside, remove_orphans, write_file
from core.errors import CorpusError
from core.stores import audit
from core.stores.corpus_versions import (
    BASELINE_ACTOR,
    CORPUS_SCHEMA,
    content_of,
    disk_text,
    file_state,
    generation,
    insert_version,
    latest_rows,
    same_text,
    sha256_hex,
)
from core.stores.db import Database, Migration, Schema, create_tables

LOG = logging.getLogger(__name__)

metadata = MetaData()
corpus_refusals = Table(
    "corpus_refusals", metadata,
    Column("instance", String(300), primary_key=True),
    Column("source", String(255), primary_key=True),
    Column("sha256", String(64), nullable=False),
    Column("reason", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)
REFUSALS_SCHEMA = Schema("corpus_sync", (
    Migration(1, "corpus files an instance refused to record (not UTF-8)", create_tables(corpus_refusals)),
))


@dataclass(frozen=True)
class Refusal:
    """A file one instance's folder holds and will not record (it is not UTF-8)."""

    instance: str
    source: str
    reason: str
    at: datetime

    @property
    def sentence(self) -> str:
        return (f"审核台「{self.instance}」的资料文件夹里，「{self.source}」{self.reason}，没有记为版本，也不会同步到"
                "其他审核台；请在那台服务器上把它用 UTF-8 另存，或在「资料管理」里上传 UTF-8 的版本覆盖它。")


def instance_name(corpus_dir: Path | str) -> str:
    """How this instance is named to the others: host name and corpus folder."""
    return f"{socket.gethostname()}:{Path(corpus_dir).resolve()}"


def refusals(db: Database, *, other_than: str | None = None) -> tuple[Refusal, ...]:
    """Every instance's refused files (or all but one instance's), oldest first."""
    db.migrate(REFUSALS_SCHEMA)
    with db.read("读取资料同步问题") as conn:
        rows = conn.execute(select(corpus_refusals).order_by(corpus_refusals.c.at, corpus_refusals.c.source)).all()
    return tuple(Refusal(r.instance, r.source, r.reason, r.at) for r in rows if r.instance != other_than)


@dataclass(frozen=True)
class SyncReport:
    """What one pass did; `problems` are Chinese sentences for the Sources page."""

    generation: int                 # newest corpus_versions id after the pass
    written: tuple[str, ...] = ()   # files brought up to the newest version from the database
    imported: tuple[str, ...] = ()  # files recorded as baseline versions from this disk
    removed: tuple[str, ...] = ()   # temporary files of crashed saves
    problems: tuple[str, ...] = ()

    @property
    def changed_folder(self) -> bool:
        return bool(self.written)


class _Raced(Exception):
    """Another instance recorded the same file first; the next pass sees its row."""


def current_generation(db: Database) -> int:
    db.migrate(CORPUS_SCHEMA)
    with db.read("读取资料版本") as conn:
        return generation(conn)


def sync_corpus(db: Database, corpus_dir: Path | str, *, now: Callable[[], datetime] = utcnow,
                instance: str | None = None) -> SyncReport:
    """One pass: remove orphans, import disk-only states, write newer versions. Never deletes a file."""
    folder = Path(corpus_dir)
    if not folder.is_dir():
        raise CorpusError(f"资料文件夹「{folder}」不存在，请检查 XIAOE_CORPUS_DIR 设置或先创建该文件夹。")
    audit.ensure(db)
    db.migrate(CORPUS_SCHEMA)
    db.migrate(REFUSALS_SCHEMA)
    instance = instance or instance_name(folder)
    removed = remove_orphans(folder)
    problems: list[str] = []
    disk: dict[str, bytes] = {}
    unread: set[str] = set()  # files too large to import (the loader reports them) or refused: left alone
    refused: dict[str, tuple[str, str]] = {}  # not UTF-8: name -> (sha256, why)
    for path in sorted(folder.glob("*.md")):
        if path.name.startswith("."):
            continue
        problem = regular_file_inside(folder, path)
        if problem:
            problems.append(f"已拒绝{problem}")
            unread.add(path.name)
        elif path.stat().st_size > MAX_FILE_BYTES:
            unread.add(path.name)
        else:
            data = path.read_bytes()
            why = _not_utf8(data)
            if why:
                refused[path.name] = (sha256_hex(data), why)
                unread.add(path.name)
            else:
                disk[path.name] = data
    problems += _record_refusals(db, instance, refused, now)
    with db.read("读取资料版本") as conn:
        latest = latest_rows(conn)
    unknown = {name: data for name, data in disk.items()  # one query decides; a transaction only per new state
               if name not in latest or sha256_hex(data) not in latest[name][2]}
    imported = [name for name, data in unknown.items() if _import(db, name, data, now, problems)]
    if imported:
        with db.read("读取资料版本") as conn:
            latest = latest_rows(conn)
    written: list[str] = []
    for source, (version, sha, known) in latest.items():
        here = disk.get(source)
        if source in unread:
            continue
        if here is not None and (sha256_hex(here) == sha or sha256_hex(here) not in known):
            continue  # up to date, or a newer state of this disk (imported above, or by the next pass)
        if _materialise(db, folder, source, version, here, problems):
            written.append(source)
    with db.read("读取资料版本") as conn:
        newest = generation(conn)
    return SyncReport(generation=newest, written=tuple(written), imported=tuple(imported), removed=removed,
                      problems=tuple(problems))


def _not_utf8(data: bytes) -> str | None:
    """Why these bytes are not UTF-8 text (Chinese), or None."""
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return f"不是 UTF-8 编码（第 {error.start} 字节附近无法解码）"
    return None


def _record_refusals(db: Database, instance: str, refused: dict[str, tuple[str, str]],
                     now: Callable[[], datetime]) -> list[str]:
    """Keep this instance's rows in corpus_refusals equal to `refused` (writing only on a change, logging each new
    one); the Chinese sentences for this instance's own report."""
    with db.read("读取资料同步问题") as conn:
        known = {r.source: r.sha256 for r in conn.execute(
            select(corpus_refusals.c.source, corpus_refusals.c.sha256).where(corpus_refusals.c.instance == instance))}
    if known != {name: sha for name, (sha, _) in refused.items()}:
        at = now()
        with db.transaction("记录资料同步问题") as conn:
            conn.execute(delete(corpus_refusals).where(corpus_refusals.c.instance == instance))
            if refused:
                conn.execute(corpus_refusals.insert(), [
                    {"instance": instance, "source": name, "sha256": sha, "reason": why, "at": at}
                    for name, (sha, why) in refused.items()])
        for name, (sha, why) in refused.items():
            if known.get(name) != sha:
                LOG.warning("corpus file %s in %s is not UTF-8 (%s): not recorded, not synced", name, instance, why)
    return [Refusal(instance, name, why, now()).sentence.replace(f"审核台「{instance}」", f"本机（{instance}）", 1)
            for name, (_, why) in refused.items()]


def _import(db: Database, name: str, data: bytes, now: Callable[[], datetime], problems: list[str]) -> bool:
    """Record a disk state the database has never seen as a baseline version; True if recorded."""
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return False
    at = now()
    try:
        with db.transaction("记录资料文件的原有版本") as conn:
            state = file_state(conn, name, data)
            if not state.disk_unrecorded:
                return False
            try:
                insert_version(conn, source=name, version=state.last_version + 1, action="baseline",
                               content=disk_text(data), data=data, actor=BASELINE_ACTOR, at=at)
            except IntegrityError:
                raise _Raced from None
            audit.record(db, BASELINE_ACTOR, "corpus_baseline", name,
                         f"记录服务器上的文件为第 {state.last_version + 1} 版，{len(data)} 字节", conn=conn,
                         now=lambda: at)
    except _Raced:
        return False
    if "\x00" in disk_text(data):
        problems.append(f"资料文件「{name}」含有空字符，请检查它是不是文本文件。")
    return True


def _materialise(db: Database, folder: Path, source: str, version: int, here: bytes | None,
                 problems: list[str]) -> bool:
    try:
        name = sanitize_filename(source)
    except CorpusError as error:
        problems.append(f"数据库里的资料「{source}」无法写成文件：{error}")
        return False
    with db.read("读取资料版本") as conn:
        content = content_of(conn, source, version)
    if here is not None and same_text(here, content):
        return False  # the same text, written with a BOM or re-encoded: nothing to do
    try:
        write_file(folder / name, content.encode("utf-8"))
    except CorpusError as error:
        problems.append(str(error))
        return False
    return True
