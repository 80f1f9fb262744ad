"""The command line in Chinese: argparse's own words (usage, options, its error messages), typed
flag values that name the flag when wrong, and output that cannot drive the terminal.

argparse's strings go through gettext with no Chinese catalogue, so this module replaces them
where argparse lets a subclass do it (the usage prefix, group titles, -h, `error`), and
translates the handful of error sentences argparse builds itself.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from typing import IO, NoReturn

# argparse's error sentences (Python 3.11–3.13) → Chinese; matched on the whole message.
_ERRORS = [
    (re.compile(r"argument (?P<arg>\S+?): invalid choice: '?(?P<value>.*?)'? \(choose from (?P<choices>.*)\)$"),
     "参数 {arg} 的值「{value}」不可用，可选：{choices}"),
    (re.compile(r"argument (?P<arg>\S+?): invalid (?P<type>\w+) value: '(?P<value>.*)'$"),
     "参数 {arg} 的值「{value}」不是{type}"),
    (re.compile(r"argument (?P<arg>\S+?): expected one argument$"), "参数 {arg} 后面需要跟一个值"),
    (re.compile(r"argument (?P<arg>\S+?): expected at least one argument$"), "参数 {arg} 后面至少要跟一个值"),
    (re.compile(r"argument (?P<arg>\S+?): ignored explicit argument '(?P<value>.*)'$"),
     "参数 {arg} 不接受值「{value}」"),
    (re.compile(r"argument (?P<arg>\S+?): not allowed with argument (?P<other>\S+)$"),
     "参数 {arg} 不能和 {other} 一起用"),
    (re.compile(r"argument (?P<arg>\S+?): (?P<rest>.*)$"), "参数 {arg}：{rest}"),
    (re.compile(r"the following arguments are required: (?P<args>.*)$"), "缺少必填参数：{args}"),
    (re.compile(r"unrecognized arguments: (?P<args>.*)$"), "不认识的参数：{args}"),
    (re.compile(r"ambiguous option: (?P<arg>\S+) could match (?P<choices>.*)$"),
     "参数 {arg} 有歧义，可能是：{choices}"),
]
_TYPES = {"int": "整数", "float": "数字"}
METAVARS = {"question": "问题", "name": "用户名", "limit": "条数", "status": "状态", "lane": "通道", "search": "文字",
            "k": "条数", "min_score": "阈值", "threshold": "阈值", "display_name": "显示名", "email": "邮箱",
            "set_path": "题集文件", "file": "文件"}


def translate_error(message: str) -> str:
    for pattern, chinese in _ERRORS:
        found = pattern.match(message)
        if found:
            fields = {k: v for k, v in found.groupdict().items()}
            if "type" in fields:
                fields["type"] = _TYPES.get(fields["type"], fields["type"])
            if "choices" in fields:
                fields["choices"] = fields["choices"].replace("'", "").replace(", ", "、")
            return chinese.format(**fields)
    return message


class ChineseHelpFormatter(argparse.HelpFormatter):
    def _format_usage(self, usage, actions, groups, prefix):  # noqa: ANN001 (argparse's signature)
        return super()._format_usage(usage, actions, groups, "用法：" if prefix is None else prefix)


class ChineseArgumentParser(argparse.ArgumentParser):
    """ArgumentParser whose help, usage and errors read in Chinese; sub-parsers inherit it."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", ChineseHelpFormatter)
        add_help = kwargs.pop("add_help", True)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = "位置参数"
        self._optionals.title = "选项"
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="显示这段帮助并退出")

    def add_argument(self, *names, **kwargs):
        """Chinese placeholders in usage lines (`--limit 条数`, `问题`) unless the caller chose one."""
        action = kwargs.get("action")
        takes_value = action in (None, "store", "append") and "choices" not in kwargs
        if takes_value and "metavar" not in kwargs and names and names[0] not in ("-h", "--help"):
            key = (kwargs.get("dest") or names[-1]).lstrip("-").replace("-", "_")
            kwargs["metavar"] = METAVARS.get(key, "值" if names[0].startswith("-") else "参数")
        return super().add_argument(*names, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"错误：{translate_error(message)}。用 -h 查看帮助。\n")


# --- flag values that name the flag when they are wrong ------------------------------------------

def int_between(low: int, high: int):
    """An argparse `type`: an integer in [low, high]; the message says the range (argparse adds the flag)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"「{text}」不是整数，应为 {low}–{high} 之间的整数") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} 超出范围，应为 {low}–{high} 之间的整数")
        return value
    parse.__name__ = "整数"
    return parse




# --- output that cannot drive the terminal --------------------------------------------------------

def escape_controls(text: str) -> str:
    """Control and bidi characters shown as \\u escapes; newlines and tabs kept."""
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
                   else f"\\u{ord(ch):04x}" for ch in text)


class EscapingStream:
    """A text stream wrapper: everything printed through it has its control characters escaped."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(escape_controls(text))
        return len(text)

    @property
    def raw(self) -> IO[str]:
        """The wrapped stream, for the one control character we send on purpose (`progress_line`'s \\r)."""
        return self._stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def progress_line(text: str, *, last: bool, stream: IO[str] | None = None) -> None:
    """One progress update on stderr: redrawn in place on a terminal, one line per update elsewhere (logs, CI).

    On a terminal the carriage return goes out unescaped (it is ours), the text itself still escaped.
    """
    stream = stream or sys.stderr
    if _is_terminal(stream):
        raw = stream.raw if isinstance(stream, EscapingStream) else stream
        raw.write("\r" + escape_controls(text) + ("\n" if last else ""))
    else:
        stream.write(text + "\n")
    stream.flush()


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def has_undecodable(values) -> bool:
    """True when a command-line value held bytes that were not UTF-8 (Python keeps them as surrogates)."""
    return any(isinstance(v, str) and any("\udc80" <= ch <= "\udcff" for ch in v) for v in values)
