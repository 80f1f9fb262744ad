"""`python -m core`: the command line of 小E. Each command group lives in its own cli_<group> module."""

from __future__ import annotations

import argparse
import importlib
import sys

from core.errors import XiaoEError

# Each module has `register(subparsers)`; a sub-command's handler returns the exit code.
COMMAND_MODULES = ("core.cli_ask", "core.cli_queue", "core.cli_eval", "core.cli_calibrate", "core.cli_users",
                   "core.cli_index")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="小E 审核台命令行")
    subparsers = parser.add_subparsers(dest="command", metavar="命令")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except XiaoEError as error:
        print(f"错误：{error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("已取消。", file=sys.stderr)
        return 130
