"""Give freed heap memory back to the operating system (glibc keeps it otherwise)."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None


def release_free_memory() -> None:
    """malloc_trim(0) where glibc offers it: after a large build's temporaries are freed, the
    pages they used stay resident until trimmed. A no-op elsewhere."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
