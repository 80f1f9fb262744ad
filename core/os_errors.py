"""Operating-system errors in Chinese: `os_reason(error)` replaces the English strerror inside our messages.

Only the reason is translated; the caller's sentence says which file and what to do. An errno
without a translation is named by its number, never by the English text.
"""

from __future__ import annotations

import errno

REASONS = {
    errno.ENOENT: "文件或文件夹不存在",
    errno.EACCES: "没有访问权限",
    errno.EPERM: "操作不被允许",
    errno.ENOSPC: "磁盘空间已满",
    errno.EROFS: "所在磁盘是只读的",
    errno.EISDIR: "这是一个文件夹，不是文件",
    errno.ENOTDIR: "路径中有一段不是文件夹",
    errno.ENAMETOOLONG: "文件名或路径太长",
    errno.EEXIST: "已经存在同名文件",
    errno.EMFILE: "同时打开的文件太多",
    errno.EIO: "磁盘读写出错",
    errno.EBUSY: "文件正被占用",
    errno.ELOOP: "路径里的符号链接绕成了圈",
    errno.EDQUOT: "超出了磁盘配额",
}


def os_reason(error: BaseException) -> str:
    """A short Chinese reason for an OSError (or any exception: its kind, never its English text)."""
    code = getattr(error, "errno", None)
    if code in REASONS:
        return REASONS[code]
    if code is not None:
        return f"系统错误，编号 {code}"
    return f"{type(error).__name__} 错误"
