"""`python -m core`: the command line of 小E. Each command group lives in its own cli_<group> module."""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import entry_points

from core.cli.parser import ChineseArgumentParser, EscapingStream, has_undecodable
from core.errors import XiaoEError
from core.os_errors import os_reason

# Each module has `register(subparsers)`; a sub-command's handler returns the exit code.
COMMAND_MODULES = ("core.cli.ask", "core.cli.queue", "core.cli.eval", "core.cli.calibrate", "core.cli.users",
                   "core.cli.index", "core.cli.db", "core.cli.gaps", "core.cli.runs", "core.cli.keys",
                   "core.cli.conversations", "core.cli.facts")


# Commands other packages add (the student service's `serve`), found through installed entry points, so core
# names no package above it.
PLUGIN_GROUP = "xiaoe.commands"


def build_parser() -> argparse.ArgumentParser:
    parser = ChineseArgumentParser(prog="python -m core", description="小E 审核台命令行")
    subparsers = parser.add_subparsers(dest="command", metavar="命令")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    for entry in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        entry.load()(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(out), EscapingStream(err)  # stored text cannot drive the terminal
    try:
        return _run(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if has_undecodable(sys.argv[1:] if argv is None else argv):
        print("错误：命令行参数里有不是 UTF-8 的字节，无法保存。请把终端的编码设为 UTF-8 后重新输入。", file=sys.stderr)
        return 2
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except XiaoEError as error:
        print(f"错误：{error}", file=sys.stderr)
        return 1
    except UnicodeError:
        print("错误：输入里有不是 UTF-8 的字节（例如从标准输入读到的密码），无法处理。"
              "请把终端或文件的编码设为 UTF-8 后重试。", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"错误：读写文件失败（{os_reason(error)}），请检查路径和权限。", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("已取消。", file=sys.stderr)
        return 130
