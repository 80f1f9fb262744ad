"""Checks for a corpus file coming from a browser: a safe file name, and UTF-8 Markdown text of at most 2 MB.

The name rules keep a file inside the corpus folder (no separators, no `..`), visible to the
loader (no leading dot, `.md`) and portable (no control characters, no Windows device names,
at most 255 bytes); Chinese names are welcome.
"""

from __future__ import annotations

import re
import unicodedata

from core.corpus.loader import MAX_FILE_BYTES
from core.errors import CorpusError

MAX_NAME_CHARS = 100
MAX_NAME_BYTES = 255  # ext4 and most file systems: 100 Chinese characters would be 300 bytes
FORBIDDEN_CHARS = frozenset('/\\:*?"<>|')
# Windows device names: a file called CON.md cannot be copied to a Windows share or USB stick.
RESERVED_STEMS = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                            *(f"lpt{i}" for i in range(1, 10))})
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
NEW_FILE = ""  # expected_sha256 for "this file must not exist yet"
# A lone surrogate (pasted from a broken clipboard, or a str built in code) cannot be encoded as UTF-8; as the
# review queue does (core.stores.review_input), it becomes a visible U+FFFD instead of failing the save.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def repair_text(text: str) -> tuple[str, int]:
    """`text` with every lone surrogate replaced by U+FFFD, and how many were replaced."""
    return LONE_SURROGATE.subn("\ufffd", text)


def sanitize_filename(name: str) -> str:
    """A safe corpus file name (NFC, `.md` in lower case) or CorpusError saying what is wrong."""
    cleaned = unicodedata.normalize("NFC", name or "").strip()
    if not cleaned:
        raise CorpusError("文件名是空的，请填写一个以 .md 结尾的文件名。")
    if any(unicodedata.category(c) in INVISIBLE_CATEGORIES for c in cleaned):
        raise CorpusError("文件名含有控制字符或不可见字符，请只用文字、数字、空格和 - _ 等常见符号重新命名。")
    if any(c in FORBIDDEN_CHARS for c in cleaned):
        raise CorpusError(f"文件名「{cleaned}」不能包含 / \\ : * ? \" < > | 这些字符（也不能指向别的文件夹），请改名。")
    if cleaned.startswith("."):
        raise CorpusError(f"文件名「{cleaned}」以点开头，会成为隐藏文件，请改名。")
    if ".." in cleaned:
        raise CorpusError(f"文件名「{cleaned}」不能包含连续的两个点「..」，请改名。")
    stem, dot, suffix = cleaned.rpartition(".")
    if not dot or suffix.lower() != "md":
        raise CorpusError(f"「{cleaned}」不是 Markdown 文件：只能上传以 .md 结尾的文件。")
    if not stem.strip() or stem != stem.rstrip(" ."):
        raise CorpusError(f"文件名「{cleaned}」在 .md 前面不能为空，也不能以空格或点结尾，请改名。")
    if stem.split(".")[0].strip().lower() in RESERVED_STEMS:
        raise CorpusError(f"「{cleaned}」是 Windows 的保留设备名，这样的文件无法复制到 Windows 电脑，请改名。")
    result = f"{stem}.md"
    if len(result) > MAX_NAME_CHARS or len(result.encode("utf-8")) > MAX_NAME_BYTES:
        raise CorpusError(f"文件名有 {len(result)} 个字，太长了：最多 {MAX_NAME_CHARS} 个字（汉字最多约 80 个），请缩短。")
    return result


def decode_markdown(data: bytes | str, *, name: str) -> str:
    """The file's text if it is UTF-8, at most 2 MB, not binary and not empty; else CorpusError."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if len(raw) > MAX_FILE_BYTES:
        raise CorpusError(f"「{name}」有 {len(raw) / 1024 / 1024:.1f} MB，超过 2 MB 上限，请拆分成几个文件再上传。")
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorpusError(f"「{name}」不是 UTF-8 编码（第 {error.start} 字节附近无法解码），"
                          "请在编辑器里用 UTF-8 另存后再上传。") from None
    if "\x00" in content:
        raise CorpusError(f"「{name}」含有空字符，看起来不是文本文件，请上传 Markdown 文本。")
    if not content.strip():
        raise CorpusError(f"「{name}」是空的，请写入内容后再保存。")
    return content
