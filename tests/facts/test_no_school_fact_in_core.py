"""No school fact in core: the documents' level names, prices and rates appear in no string of core's code (comments
and docstrings are explanations, not facts the code uses) and in none of core's data files."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.paths import ROOT
from tests.school import shipped_facts

CORE = ROOT / "core"


def needles() -> list[str]:
    """The facts the documents state that must not be written in core: every level's name, every tuition, the
    textbook fee, the fee rate (5%, 5个点). (A name's alias, 流利 of 流利级, is also an everyday word: 流利表达.)"""
    facts = shipped_facts()
    out = [level.name for level in facts.levels]
    amounts = [f.value[1] for f in facts.tuition] + [facts.textbook_fee.value]
    out += [f"{a:g}" for a in amounts]
    rate = f"{facts.fee_rate.value * 100:g}"
    out += [f"{rate}%", f"{rate}个点"]
    return out


def _code_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _found(text: str, needle: str) -> bool:
    if needle.isdigit():
        return re.search(rf"(?<![\d.]){needle}(?![\d.])", text) is not None
    return needle in text


def test_the_needles_are_the_documents_facts():
    assert {"流利级", "商务级", "4800", "280", "5%"} <= set(needles())


def test_no_level_name_price_or_rate_in_core_code_or_data():
    hits = []
    for path in sorted(CORE.rglob("*.py")):
        for text in _code_strings(path):
            hits += [f"{path.relative_to(ROOT)}: {needle} in {text[:60]!r}" for needle in needles() if _found(text, needle)]
    for path in sorted((CORE / "data").iterdir()):
        if path.suffix in (".txt", ".csv", ".json") and path.name != "calibration.json":
            text = path.read_text(encoding="utf-8")
            hits += [f"{path.relative_to(ROOT)}: {needle}" for needle in needles() if _found(text, needle)]
    assert hits == []


def test_the_check_finds_a_planted_fact(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""Doc mentions 流利级 and 4800: fine."""\nLEVELS = {"流利级": 3}\n', encoding="utf-8")
    assert [t for t in _code_strings(planted) if any(_found(t, n) for n in needles())] == ["流利级"]
