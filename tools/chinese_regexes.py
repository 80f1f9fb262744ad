"""Count the regular expressions with Chinese text in core/ (the issue #42 measure of words kept in code).

Run from the repository root:  python tools/chinese_regexes.py [folder ...]   (default: core)
A regular expression is a call of re.compile / search / match / fullmatch / sub / subn / findall / finditer / split
whose pattern (first argument) is written in the code — a string, an f-string or a concatenation of them — and holds
at least one CJK character. Patterns built at run time from a data file's words hold none and are not counted.
Prints the count per file and the total.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

_CJK = re.compile(r"[\u4e00-\u9fff]")
_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def _literal_text(node: ast.AST) -> str:
    """The text written in the code that makes up a pattern expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_literal_text(v) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _literal_text(node.left) + _literal_text(node.right)
    return ""


def count(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = 0
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CALLS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args
                and _CJK.search(_literal_text(node.args[0]))):
            found += 1
    return found


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv] or [Path("core")]
    total = 0
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            n = count(path)
            if n:
                print(f"{n:4d}  {path}")
                total += n
    print(f"{total:4d}  合计（含中文的正则表达式）")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
