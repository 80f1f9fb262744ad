"""Write corpus files safely: short temporary names beside the target, fsync, rename; clean up after a crash.

A save is two steps with the database in between (see core.stores.corpus_admin): `stage` writes the
new bytes to a hidden temporary file in the corpus folder and fsyncs it; after the version rows
are committed, `publish` renames it over the target. A crash before the commit leaves only an
orphan temporary file (removed by `remove_orphans` at start-up); a crash after it leaves the
database ahead of the folder, which core.stores.corpus_sync materialises. Temporary names are short
(`.xe-<pid>-<8 hex>.tmp`, about 25 bytes) whatever the file's own name, so an 80-character
Chinese name (240 bytes) still fits the file system's 255-byte limit.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from core.errors import CorpusError
from core.os_errors import os_reason

TEMP_PREFIX = ".xe-"
TEMP_RE = re.compile(r"^\.xe-(\d+)-[0-9a-f]{8}\.tmp$")
LEGACY_TEMP_RE = re.compile(r"^\..+\.md\.[A-Za-z0-9_]+\.tmp$")  # tempfile.mkstemp names of earlier versions
LEGACY_GRACE_S = 600  # a legacy temporary file this old belongs to no save in progress


@dataclass(frozen=True)
class Staged:
    """A fsynced temporary file waiting to be renamed over `target`."""

    temp: Path
    target: Path


def name_max(folder: Path) -> int:
    """The longest file name (in bytes) the file system of `folder` allows (255 on ext4, xfs, btrfs)."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


def check_name_fits(folder: Path, name: str) -> None:
    """CorpusError (Chinese) when `name` is longer than the file system of `folder` allows."""
    limit = name_max(folder)
    size = len(name.encode("utf-8"))
    if size > limit:
        raise CorpusError(f"文件名「{name}」占 {size} 字节，超过了服务器文件系统允许的 {limit} 字节"
                          f"（一个汉字占 3 字节，约 {limit // 3} 个汉字），请缩短文件名后再保存。")


def regular_file_inside(folder: Path, path: Path) -> str | None:
    """None when `path` is a regular file (or absent) directly inside `folder`, else why not (Chinese)."""
    if path.is_symlink():
        return f"「{path.name}」是一个符号链接（指向别处的快捷方式），为安全起见不会读取或覆盖它，请换成普通文件。"
    if path.resolve().parent != folder.resolve():
        return f"「{path.name}」不在资料文件夹里，不能读取或修改，请联系维护人员。"
    if path.exists() and not path.is_file():
        return f"「{path.name}」不是普通文件（可能是文件夹或设备），不能读取或修改，请联系维护人员。"
    return None


def stage(target: Path, data: bytes) -> Staged:
    """Write `data` to a new short-named temporary file beside `target` and fsync it."""
    mode = target.stat().st_mode & 0o777 if target.is_file() else 0o644  # mkstemp-style 0600 would hide it
    temp = target.parent / f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as error:
        temp.unlink(missing_ok=True)
        raise CorpusError(f"无法写入资料文件「{target.name}」（{os_reason(error)}），请检查资料文件夹的权限和剩余空间。") from None
    return Staged(temp=temp, target=target)


def publish(staged: Staged) -> None:
    """Rename the temporary file over its target (atomic on one file system) and fsync the folder."""
    os.replace(staged.temp, staged.target)
    fsync_folder(staged.target.parent)


def discard(staged: Staged) -> None:
    staged.temp.unlink(missing_ok=True)


def write_file(target: Path, data: bytes) -> None:
    """stage + publish in one go, for writes that record nothing (materialising a saved version)."""
    staged = stage(target, data)
    try:
        publish(staged)
    except OSError as error:
        discard(staged)
        raise CorpusError(f"无法写入资料文件「{target.name}」（{os_reason(error)}），请检查资料文件夹的权限。") from None


def fsync_folder(folder: Path) -> None:
    """Make a rename durable: without it a power cut can undo the rename (ext4, xfs)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_orphans(folder: Path) -> tuple[str, ...]:
    """Delete temporary files left by saves that crashed; returns their names.

    A temporary file whose process is gone belongs to no save in progress; one of a live process
    (this one's threads, or another instance sharing the folder on this machine) is left alone.
    """
    removed: list[str] = []
    if not folder.is_dir():
        return ()
    for path in folder.iterdir():
        match = TEMP_RE.match(path.name)
        if match:
            orphan = int(match.group(1)) != os.getpid() and not _alive(int(match.group(1)))
        elif LEGACY_TEMP_RE.match(path.name):
            orphan = _age_s(path) > LEGACY_GRACE_S
        else:
            continue
        if orphan and path.is_file() and not path.is_symlink():
            path.unlink(missing_ok=True)
            removed.append(path.name)
    return tuple(sorted(removed))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0
