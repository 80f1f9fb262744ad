"""Corpus administration (admins only): upload or edit a Markdown file, keep every version, show diffs.

The database is the source of truth (core.stores.corpus_versions): a save stages the new bytes in a
short-named temporary file inside the corpus folder (fsynced), records the version rows and the
audit line in one transaction, and only after the commit renames the file into place. A crash
before the commit leaves an orphan temporary file, one after it leaves the folder behind the
database; core.stores.corpus_sync repairs both at start-up. Whether an editor's starting point is still
current is checked inside that transaction, so two admins saving in the same instant get one
version and one conflict message. What follows from the new text is done by the save itself, after the commit
(core.stores.stale.refresh_after_save): approved review items that cite a changed chunk go back to 待复核, approved
answers the documents no longer back are suspended and those they back again resumed — so no reader (asking,
`eval`, a bench) ever has to write. Deleting files is left out on purpose: take a file out of the corpus on
the server, where it is a deliberate act.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from core.clock import utcnow
from core.corpus.files import NEW_FILE, decode_markdown, repair_text, sanitize_filename
from core.corpus.loader import DEFAULT_CHUNKING
from core.corpus.write import check_name_fits, discard, publish, regular_file_inside, stage
from core.errors import ConflictError, CorpusError, XiaoEError
from core.os_errors import os_reason
from core.reuse.drift import still_stating
from core.stores import audit
from core.stores.accounts import User, require
from core.stores.corpus_versions import (
    ACTION_LABELS,
    BASELINE_ACTOR,
    CORPUS_SCHEMA,
    CorpusVersion,
    FileState,
    as_utc,
    as_version,
    corpus_versions,
    disk_text,
    file_state,
    insert_version,
    is_utf8,
    sha256_hex,
)
from core.stores.db import Database
from core.stores.roles import Authorize, checked
from core.stores.stale import AfterSave, refresh_after_save
from core.values import Contradiction

CONFLICT_MESSAGE = ("资料文件「{name}」在你打开之后已被修改（可能是其他管理员），你的修改没有保存。"
                    "请复制你的内容，刷新后在最新版本上重新修改。")


@dataclass(frozen=True)
class SaveResult:
    """What a save did. `changed` is False when the content was already exactly that."""

    source: str
    changed: bool
    created: bool
    version: int | None
    sha256: str
    previous_sha256: str | None
    repaired: int = 0  # lone surrogates replaced by U+FFFD before saving
    after: AfterSave | None = None  # what followed the new version (items reopened, answers suspended …)
    after_error: str = ""  # why that step failed, when it did (the version is saved all the same)


def diff_text(old: str, new: str, *, old_label: str = "旧版本", new_label: str = "新版本", context: int = 3) -> str:
    """A unified diff (plain text, for st.code) from `old` to `new`; empty when they are equal."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=old_label, tofile=new_label, n=context)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class CorpusAdmin:
    """Saves corpus files with their versions; every change is checked against the user's role."""

    def __init__(self, db: Database, corpus_dir: Path | str, *, now: Callable[[], datetime] = utcnow,
                 chunking: tuple[int, int] = DEFAULT_CHUNKING) -> None:
        self.db = db
        self.corpus_dir = Path(corpus_dir)
        self.chunking = chunking  # (chunk_size, chunk_overlap) of the index: approved answers cite its chunks
        self._now = lambda: as_utc(now())
        audit.ensure(db)
        db.migrate(CORPUS_SCHEMA)

    def files(self) -> list[str]:
        if not self.corpus_dir.is_dir():
            return []
        return sorted(p.name for p in self.corpus_dir.glob("*.md")
                      if not p.name.startswith(".") and regular_file_inside(self.corpus_dir, p) is None and p.is_file())

    def read(self, source: str) -> tuple[str, str]:
        """(text, sha256) of one corpus file's current state: the newest version, or the disk's own
        state when it was written outside the console (that is what a save must start from)."""
        path = self._path(source)
        disk = path.read_bytes() if path.exists() else None
        with self.db.read("读取资料版本") as conn:
            state = file_state(conn, path.name, disk)
            if state.latest_sha256 is not None and not state.disk_unrecorded:
                content = conn.execute(select(corpus_versions.c.content).where(
                    corpus_versions.c.source == path.name,
                    corpus_versions.c.version == state.last_version)).scalar_one()
                return content, state.latest_sha256
        if disk is None:
            raise CorpusError(f"没有找到资料文件「{path.name}」，请刷新后再试。")
        if not is_utf8(disk):  # opening its U+FFFD mojibake for editing would save it as a version
            raise CorpusError(f"资料文件「{path.name}」不是 UTF-8 编码，不能在线编辑（会把乱码存成新版本）。"
                              "请把它用 UTF-8 另存后，在「上传文件」里勾选「覆盖同名文件」上传。")
        assert state.disk_sha256 is not None  # read from `disk`, which is there
        return disk_text(disk), state.disk_sha256

    def save(self, user: User, source: str, content: bytes | str, *, expected_sha256: str | None = None,
             action: str = "edit", authorize: Authorize | None = None) -> SaveResult:
        """Write one file and record its versions. `expected_sha256`: None = no check, NEW_FILE = must
        not exist yet, else the sha256 the editor started from (someone else's save in between → ConflictError)."""
        require(user, "edit_corpus")
        if action not in ACTION_LABELS or action == "baseline":
            raise ValueError(f"unknown save action {action!r}")
        name = sanitize_filename(source)
        path = self._path(name)
        repaired = 0
        if isinstance(content, str):
            content, repaired = repair_text(content)
        content_text = decode_markdown(content, name=name)
        new_bytes = content_text.encode("utf-8")
        new_sha = sha256_hex(new_bytes)
        now = self._now()  # read before the transaction: nothing slow while the write lock is held
        disk = path.read_bytes() if path.exists() else None
        staged = stage(path, new_bytes)
        try:
            with self.db.transaction("保存资料文件", immediate=authorize is not None) as conn:
                checked(conn, authorize, "edit_corpus")
                state = file_state(conn, name, disk)
                self._check_expected(name, expected_sha256, state.current_sha256)
                if new_sha == state.current_sha256:
                    result = SaveResult(name, changed=False, created=False, version=None, sha256=new_sha,
                                        previous_sha256=state.current_sha256)
                else:
                    result = self._record(conn, user, name, state, disk, content_text, new_bytes, action, now,
                                          repaired)
        except BaseException:
            discard(staged)
            raise
        if disk is not None and sha256_hex(disk) == new_sha:
            discard(staged)
            return self._follow(user, result)
        try:
            publish(staged)
        except OSError as error:
            discard(staged)
            self._follow(user, result)
            raise CorpusError(f"「{name}」已保存为新版本，但写入资料文件夹失败（{os_reason(error)}）；"
                              "系统会在几秒内自动补写，若仍未更新请检查资料文件夹的权限。") from None
        return self._follow(user, result)

    def _follow(self, user: User, result: SaveResult) -> SaveResult:
        """A saved version's consequences (core.stores.stale.refresh_after_save), in their own transactions after
        the commit; a failure there is reported on the result, never undoes the save."""
        if not result.changed:
            return result
        try:
            after = refresh_after_save(self, result.source, user.label, chunking=self.chunking)
        except XiaoEError as error:
            return replace(result, after_error=str(error))
        return replace(result, after=after)

    def _record(self, conn, user: User, name: str, state: FileState, disk: bytes | None, content_text: str,
                new_bytes: bytes, action: str, now: datetime, repaired: int = 0) -> SaveResult:
        number = state.last_version
        unrecorded = disk if state.disk_unrecorded else None  # (`state` was read from `disk`: unrecorded means on disk)
        replaced_unreadable = unrecorded is not None and not is_utf8(unrecorded)
        try:
            if unrecorded is not None and not replaced_unreadable:  # changed outside the console: keep that state too
                number += 1
                insert_version(conn, source=name, version=number, action="baseline", content=disk_text(unrecorded),
                               data=unrecorded, actor=BASELINE_ACTOR, at=now)
            number += 1
            insert_version(conn, source=name, version=number, action=action, content=content_text,
                           data=new_bytes, actor=user.username, at=now)
        except IntegrityError:
            # Another save of this file committed between our read and our insert (both took the
            # same version number): no update is lost, and this one reports the conflict.
            raise ConflictError(CONFLICT_MESSAGE.format(name=name)) from None
        created = state.current_sha256 is None
        audit.record(self.db, user.username, f"corpus_{action}", name,
                     f"{ACTION_LABELS[action]}，第 {number} 版，{len(new_bytes)} 字节，sha256 {sha256_hex(new_bytes)[:12]}"
                     + ("（新文件）" if created else "")
                     + ("（覆盖了不是 UTF-8 的原文件，原文件没有记为版本）" if replaced_unreadable else "")
                     + (f"，{repaired} 个无法保存的字符（单独的代理字符）已换成 \ufffd" if repaired else ""),
                     conn=conn, now=lambda: now)
        return SaveResult(name, changed=True, created=created, version=number, sha256=sha256_hex(new_bytes),
                          previous_sha256=state.current_sha256, repaired=repaired)

    def restore(self, user: User, version_id: int, *, authorize: Authorize | None = None) -> SaveResult:
        """Save an old version's content as the newest version of its file."""
        old = self.version(version_id)
        return self.save(user, old.source, old.content, action="restore", authorize=authorize)

    def texts(self) -> dict[str, str]:
        """Every corpus file's current text (as `read` gives it), by name; unreadable files are left out."""
        out = {}
        for name in self.files():
            try:
                out[name] = self.read(name)[0]
            except CorpusError:
                continue
        return out

    def still_stating(self, source: str, new: str | bytes, *, old: str | None = None) -> tuple[Contradiction, ...]:
        """The other sentences of the documents that would still state a rule this text of `source` changes
        (core.reuse.drift.still_stating): what the Sources page lists before a save is confirmed. `old`: the text
        before the change (default: the current one)."""
        name = sanitize_filename(source)
        texts = self.texts()
        before = old if old is not None else texts.get(name)
        after = new if isinstance(new, str) else decode_markdown(new, name=name)
        return still_stating({name: (before, after)}, {**texts, name: after})

    def history(self, source: str) -> tuple[CorpusVersion, ...]:
        """Every recorded version of one file, newest first."""
        with self.db.read("读取资料版本") as conn:
            rows = conn.execute(select(corpus_versions).where(corpus_versions.c.source == source)
                                .order_by(corpus_versions.c.version.desc())).all()
        return tuple(as_version(r) for r in rows)

    def version(self, version_id: int) -> CorpusVersion:
        with self.db.read("读取资料版本") as conn:
            row = conn.execute(select(corpus_versions).where(corpus_versions.c.id == version_id)).first()
        if row is None:
            raise CorpusError(f"没有找到编号为 {version_id} 的资料版本，请刷新后再试。")
        return as_version(row)

    def versioned_sources(self) -> list[str]:
        with self.db.read("读取资料版本") as conn:
            return list(conn.execute(select(corpus_versions.c.source).group_by(corpus_versions.c.source)
                                     .order_by(func.min(corpus_versions.c.id))).scalars())

    def _path(self, name: str) -> Path:
        folder = self.corpus_dir
        if not folder.is_dir():
            raise CorpusError(f"资料文件夹「{folder}」不存在，请检查 XIAOE_CORPUS_DIR 设置。")
        name = sanitize_filename(name)
        check_name_fits(folder, name)
        path = folder / name
        problem = regular_file_inside(folder, path)
        if problem:
            raise CorpusError(problem)
        return path

    @staticmethod
    def _check_expected(name: str, expected: str | None, current: str | None) -> None:
        if expected is None or expected == current or (expected == NEW_FILE and current is None):
            return
        if expected == NEW_FILE:
            raise ConflictError(f"资料文件「{name}」已经存在。如果要用新内容替换它，请勾选「覆盖同名文件」（旧版本会保留）。")
        raise ConflictError(CONFLICT_MESSAGE.format(name=name))




