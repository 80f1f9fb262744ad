"""An `.npz` whose arrays start on 64-byte boundaries, read back as views of one read-only mmap.

`write_npz` writes an ordinary uncompressed `.npz` (numpy's `np.load` reads it as any other);
each member's local header carries a padding extra field so the array data lands aligned.
`read_npz` checks every member's CRC, then maps the file once and returns arrays that are views
of the mapping, so a saved index costs resident memory only for the pages a question touches
(the CRC pass reads every page; they are dropped from this process afterwards and stay in the
operating system's file cache). What is mapped is a private copy with no name (O_TMPFILE, or
a temp file unlinked at once) beside the file: a mapped file that someone truncates or rewrites in
place would kill the process with SIGBUS, and no one can reach a file without a name. Where no
such copy can be made (a read-only folder), the arrays are copied into memory instead. A member
that is not aligned (a file `np.savez` wrote) is copied into memory too, so any valid `.npz` of
plain arrays still loads.
"""

from __future__ import annotations

import io
import math
import mmap
import os
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

ALIGN = 64
_PAD_FIELD = 0x5850      # a private extra-field id: padding only, ignored by every zip reader
_LOCAL_HEADER = 30       # fixed part of a zip local file header
_ZIP64_FIELD = 20        # the zip64 extra field zipfile adds to the local header with force_zip64
_CRC_BLOCK = 16 * 2**20


def write_npz(file: BinaryIO, arrays: Mapping[str, np.ndarray]) -> None:
    """Write `arrays` (plain dtypes, no objects) as an uncompressed .npz with aligned data."""
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in arrays.items():
            array = np.ascontiguousarray(value)
            if array.dtype.hasobject:
                raise TypeError(f"array {name} holds Python objects; only plain arrays are saved")
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
            member = f"{name}.npy"
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            assert archive.fp is not None  # open for writing
            fixed = archive.fp.tell() + _LOCAL_HEADER + len(member.encode()) + 4 + _ZIP64_FIELD + header.tell()
            pad = -fixed % ALIGN
            info.extra = struct.pack("<HH", _PAD_FIELD, pad) + bytes(pad)
            with archive.open(info, "w", force_zip64=True) as out:
                out.write(header.getvalue())
                if array.size:
                    # numpy's stubs declare the buffer protocol only for Python 3.12+
                    out.write(memoryview(array.reshape(-1)).cast("B"))  # type: ignore[arg-type]


def read_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of the .npz at `path`, as read-only views of one mmap where aligned.

    Raises zipfile.BadZipFile for a damaged file (bad CRC, truncated), ValueError for one that is
    not an uncompressed .npz of plain arrays.
    """
    with path.open("rb") as handle:
        with zipfile.ZipFile(handle) as archive:
            members = archive.infolist()
        size = os.fstat(handle.fileno()).st_size
        private = _private_copy(handle, path.parent, size)
        source = private if private is not None else handle
        try:
            mapped = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
        finally:
            if private is not None:
                private.close()  # the mapping keeps the nameless copy alive; it is freed with the mapping
    try:
        arrays = {_name(info): _array(mapped, info, size) for info in members}
        if private is None:  # the file itself may change under us: hold nothing of it
            arrays = {name: np.array(value) for name, value in arrays.items()}
    finally:
        if hasattr(mapped, "madvise"):  # the CRC pass touched every page: give them back to the file cache
            mapped.madvise(mmap.MADV_DONTNEED)
    return arrays


def _private_copy(handle: BinaryIO, folder: Path, size: int) -> BinaryIO | None:
    """A nameless copy of `handle`'s file in `folder` (same file system, so the copy is cheap), or None."""
    try:
        try:
            fd = os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o600)
        except (AttributeError, OSError):  # no O_TMPFILE here: a named temp file, unlinked at once
            fd, name = tempfile.mkstemp(dir=folder, prefix=".xe-map-", suffix=".tmp")
            os.unlink(name)
        copy = os.fdopen(fd, "w+b")
    except OSError:
        return None
    try:
        offset = 0
        while offset < size:
            sent = os.sendfile(copy.fileno(), handle.fileno(), offset, size - offset)
            if sent == 0:
                raise zipfile.BadZipFile("the file got shorter while it was copied")
            offset += sent
    except OSError:
        copy.close()
        return None
    return copy


def _drop(mapped: mmap.mmap, start: int, end: int) -> None:
    """Drop the whole pages inside [start, end) from this process (they stay in the file cache)."""
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    last = end // mmap.PAGESIZE * mmap.PAGESIZE
    if last > first and hasattr(mapped, "madvise"):
        mapped.madvise(mmap.MADV_DONTNEED, first, last - first)


def _name(info: zipfile.ZipInfo) -> str:
    if not info.filename.endswith(".npy") or info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{info.filename} is not an uncompressed .npy member")
    return info.filename[:-4]


def _array(mapped: mmap.mmap, info: zipfile.ZipInfo, size: int) -> np.ndarray:
    local = mapped[info.header_offset:info.header_offset + _LOCAL_HEADER]
    if len(local) != _LOCAL_HEADER or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{info.filename}: no local header at {info.header_offset}")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    start = info.header_offset + _LOCAL_HEADER + name_len + extra_len
    end = start + info.file_size
    if end > size:
        raise zipfile.BadZipFile(f"{info.filename} ends past the end of the file")
    view = memoryview(mapped)
    crc = 0
    for block in range(start, end, _CRC_BLOCK):
        crc = zlib.crc32(view[block:min(block + _CRC_BLOCK, end)], crc)
        _drop(mapped, block, min(block + _CRC_BLOCK, end))  # read once: not kept resident
    if crc != info.CRC:
        raise zipfile.BadZipFile(f"{info.filename}: CRC mismatch")
    header = io.BytesIO(mapped[start:min(end, start + 65_536 + 16)])
    version = np.lib.format.read_magic(header)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(header)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(header)
    count = math.prod(shape)
    offset = start + header.tell()
    if dtype.hasobject or (fortran and len(shape) > 1) or offset + count * dtype.itemsize != end:
        raise ValueError(f"{info.filename}: not a plain array of the size its header says")
    array = np.frombuffer(mapped, dtype=dtype, count=count, offset=offset).reshape(shape)
    return array.copy() if offset % ALIGN else array
