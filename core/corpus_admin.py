"""Corpus administration (admins only): upload or edit a Markdown file, keep every version, show diffs.

Every save records the file's previous content (if the database does not have it yet) and the
new content in `corpus_versions`, with sha256, who and when, and writes the file atomically
inside the same transaction: if the write fails, no version is recorded. Approved review items
that cite a changed file go back to 待复核 (`requeue_stale`). Deleting files is left out on
purpose: take a file out of the corpus on the server, where it is a deliberate act.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, Text, UniqueConstraint, func, select, text

from core import audit
from core.accounts import User, require
from core.corpus_files import MAX_NAME_BYTES, NEW_FILE, decode_markdown, sanitize_filename
from core.db import Database, Migration, Schema, append_only, create_tables, utcnow
from core.errors import ConflictError, CorpusError
from core.os_errors import os_reason
from core.problems import Problem
from core.references import extract_refs

BASELINE_ACTOR = "（改动前的原文件）"  # a state found on disk: written outside the console or before it
STALE_CODE = "stale_corpus"
STALE_LABEL = "资料已更新"

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

ACTION_LABELS = {"baseline": "原有版本", "upload": "上传", "edit": "在线编辑", "restore": "恢复旧版"}


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
class SaveResult:
    """What a save did. `changed` is False when the content was already exactly that."""

    source: str
    changed: bool
    created: bool
    version: int | None
    sha256: str
    previous_sha256: str | None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def diff_text(old: str, new: str, *, old_label: str = "旧版本", new_label: str = "新版本", context: int = 3) -> str:
    """A unified diff (plain text, for st.code) from `old` to `new`; empty when they are equal."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=old_label, tofile=new_label, n=context)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class CorpusAdmin:
    """Saves corpus files with their versions; every change is checked against the user's role."""

    def __init__(self, db: Database, corpus_dir: Path | str, *, now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.corpus_dir = Path(corpus_dir)
        self._now = lambda: _utc(now())
        audit.ensure(db)
        db.migrate(CORPUS_SCHEMA)

    def files(self) -> list[str]:
        if not self.corpus_dir.is_dir():
            return []
        return sorted(p.name for p in self.corpus_dir.glob("*.md") if p.is_file() and not p.name.startswith("."))

    def read(self, source: str) -> tuple[str, str]:
        """(text, sha256 of the bytes on disk) of one corpus file."""
        raw = self._path(source).read_bytes()
        return raw.decode("utf-8-sig", errors="replace"), sha256_hex(raw)

    def save(self, user: User, source: str, content: bytes | str, *, expected_sha256: str | None = None,
             action: str = "edit") -> SaveResult:
        """Write one file and record its versions. `expected_sha256`: None = no check, NEW_FILE = must
        not exist yet, else the sha256 the editor started from (someone else's save in between → ConflictError)."""
        require(user, "edit_corpus")
        if action not in ACTION_LABELS or action == "baseline":
            raise ValueError(f"unknown save action {action!r}")
        name = sanitize_filename(source)
        content_text = decode_markdown(content, name=name)
        path = self._path(name)
        current = path.read_bytes() if path.exists() else None
        current_sha = sha256_hex(current) if current is not None else None
        self._check_expected(name, expected_sha256, current_sha)
        new_bytes = content_text.encode("utf-8")
        new_sha = sha256_hex(new_bytes)
        if new_sha == current_sha:
            return SaveResult(name, changed=False, created=False, version=None, sha256=new_sha,
                              previous_sha256=current_sha)
        now = self._now()
        with self.db.transaction("保存资料文件") as conn:
            last = conn.execute(select(corpus_versions.c.version, corpus_versions.c.sha256)
                                .where(corpus_versions.c.source == name)
                                .order_by(corpus_versions.c.version.desc()).limit(1)).first()
            number = last.version if last else 0
            if current is not None and (last is None or last.sha256 != current_sha):
                number += 1  # the file was changed outside the console, or predates it: keep that state too
                conn.execute(corpus_versions.insert().values(
                    source=name, version=number, action="baseline", sha256=current_sha, size=len(current),
                    content=current.decode("utf-8-sig", errors="replace"), actor=BASELINE_ACTOR, at=now))
            number += 1
            conn.execute(corpus_versions.insert().values(
                source=name, version=number, action=action, sha256=new_sha, size=len(new_bytes),
                content=content_text, actor=user.username, at=now))
            audit.record(self.db, user.username, f"corpus_{action}", name,
                         f"{ACTION_LABELS[action]}，第 {number} 版，{len(new_bytes)} 字节，sha256 {new_sha[:12]}"
                         + ("（新文件）" if current is None else ""), conn=conn, now=self._now)
            _atomic_write(path, new_bytes)  # last: if it fails, the versions above roll back
        return SaveResult(name, changed=True, created=current is None, version=number, sha256=new_sha,
                          previous_sha256=current_sha)

    def restore(self, user: User, version_id: int) -> SaveResult:
        """Save an old version's content as the newest version of its file."""
        old = self.version(version_id)
        return self.save(user, old.source, old.content, action="restore")

    def history(self, source: str) -> tuple[CorpusVersion, ...]:
        """Every recorded version of one file, newest first."""
        with self.db.read("读取资料版本") as conn:
            rows = conn.execute(select(corpus_versions).where(corpus_versions.c.source == source)
                                .order_by(corpus_versions.c.version.desc())).all()
        return tuple(_version(r) for r in rows)

    def version(self, version_id: int) -> CorpusVersion:
        with self.db.read("读取资料版本") as conn:
            row = conn.execute(select(corpus_versions).where(corpus_versions.c.id == version_id)).first()
        if row is None:
            raise CorpusError(f"没有找到编号为 {version_id} 的资料版本，请刷新后再试。")
        return _version(row)

    def versioned_sources(self) -> list[str]:
        with self.db.read("读取资料版本") as conn:
            return list(conn.execute(select(corpus_versions.c.source).group_by(corpus_versions.c.source)
                                     .order_by(func.min(corpus_versions.c.id))).scalars())

    def _path(self, name: str) -> Path:
        folder = self.corpus_dir
        if not folder.is_dir():
            raise CorpusError(f"资料文件夹「{folder}」不存在，请检查 XIAOE_CORPUS_DIR 设置。")
        path = folder / sanitize_filename(name)
        if path.is_symlink() or path.resolve().parent != folder.resolve() or (path.exists() and not path.is_file()):
            raise CorpusError(f"「{path.name}」不是资料文件夹里的普通文件，不能在这里修改，请联系维护人员。")
        return path

    @staticmethod
    def _check_expected(name: str, expected: str | None, current: str | None) -> None:
        if expected is None or expected == current or (expected == NEW_FILE and current is None):
            return
        if expected == NEW_FILE:
            raise ConflictError(f"资料文件「{name}」已经存在。如果要用新内容替换它，请勾选「覆盖同名文件」（旧版本会保留）。")
        raise ConflictError(f"资料文件「{name}」在你打开之后已被修改（可能是其他管理员），你的修改没有保存。"
                            "请复制你的内容，刷新后在最新版本上重新修改。")


def cited_sources(answer: str, candidates) -> set[str]:
    """Sources an answer cites: [n] is the n-th passed candidate; no [n] at all means every passed one."""
    passed = [h for h in candidates if h.passed]
    cited = {passed[n - 1].source for n in extract_refs(answer) if 1 <= n <= len(passed)}
    return cited or {h.source for h in passed}


def requeue_stale(db: Database, changed_sources: set[str], actor: str) -> list[int]:
    """Send approved review items that cite a changed file back to 待复核; returns their ids.

    Each is reopened through ReviewStore's public API with the reason `stale_corpus` (lane
    资料已更新) naming its files. An item someone decided meanwhile is skipped, not overwritten.
    """
    from core.review import Filters, ReviewStore  # the review queue is optional for this module's other uses

    if not changed_sources:
        return []
    store = ReviewStore(db)
    stale: dict[int, tuple[int, list[str]]] = {}
    for item in store.iter_items(Filters(status="approved"), with_candidates=True):
        files = sorted(cited_sources(item.corrected_answer or item.answer, item.candidates) & set(changed_sources))
        if files:
            stale[item.id] = (item.version, files)
    reopened: list[int] = []
    for item_id, (version, files) in stale.items():  # one reason per item, naming its own files
        message = f"{STALE_LABEL}：所引资料「{'、'.join(files)}」在通过后被修改，请按新资料重新复核。"
        result = store.bulk_decide({item_id: version}, action="reopen", reviewer=actor, note=message,
                                   add_reason=Problem(STALE_CODE, message))
        reopened.extend(result.decided)
    return reopened


def _atomic_write(path: Path, data: bytes) -> None:
    # A hidden temp file in the same folder: the loader ignores it, and os.replace is atomic there.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644  # mkstemp's 0600 would hide it from others
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise CorpusError(f"无法写入资料文件「{path.name}」（{os_reason(error)}），请检查资料文件夹的权限。") from None


def _version(row) -> CorpusVersion:
    return CorpusVersion(id=row.id, source=row.source, version=row.version, action=row.action, sha256=row.sha256,
                         size=row.size, actor=row.actor, at=_utc(row.at), content=row.content)


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
