"""One vocabulary each: every reason code the core can emit has a Chinese label, and the pages and exports
show labels, never raw codes."""

from __future__ import annotations

import ast
import re

from core.labels import REASON_LABELS, reason_label
from tests.paths import ROOT

CODE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")


def _module_constants(tree: ast.Module) -> dict[str, object]:
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return found


def emitted_codes() -> set[str]:
    """Every reason or failure code written in core/: the first argument of Problem(...), a `kind=` keyword,
    the kind a provider failure is sorted into, a `*_CODE(S)` constant, and the values of a `codes` table."""
    codes: set[str] = set()
    for path in (ROOT / "core").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _module_constants(tree)
        for name, value in constants.items():
            if name.endswith("_CODE") and isinstance(value, str):
                codes.add(value)
            if name.endswith("_CODES") and isinstance(value, tuple):
                codes.update(v for v in value if isinstance(v, str))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Problem" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    codes.add(first.value)
                elif isinstance(first, ast.Name) and isinstance(constants.get(first.id), str):
                    codes.add(constants[first.id])
            if isinstance(node, ast.keyword) and node.arg == "kind" and isinstance(node.value, ast.Constant):
                codes.add(node.value.value)
            if (isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and node.value.elts
                    and path.name == "provider_errors.py" and isinstance(node.value.elts[0], ast.Constant)):
                codes.add(node.value.elts[0].value)
            if (isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "codes" for t in node.targets)
                    and isinstance(node.value, ast.Dict)):
                codes.update(v.value for v in node.value.values if isinstance(v, ast.Constant))
    return {c for c in codes if isinstance(c, str) and CODE.match(c)}


def test_every_reason_code_the_core_emits_has_a_chinese_label():
    codes = emitted_codes()
    assert {"bad_ref", "question_mismatch", "grader", "timeout", "eval_wrong_source", "stale_corpus"} <= codes
    missing = sorted(c for c in codes if c not in REASON_LABELS)
    assert not missing, f"codes without a Chinese label in core/labels.py: {missing}"


def test_an_unknown_code_is_shown_as_itself_so_nothing_is_hidden():
    assert reason_label("no_such_code") == "no_such_code" and reason_label("grader") != "grader"


def test_the_csv_export_and_the_review_page_name_every_reason_by_its_label(tmp_path):
    import csv

    from core.stores.db import Database
    from core.stores.review import ReviewStore
    from core.values import Problem, RAGAnswer
    from ui.review_view import reason_lines

    codes = sorted(emitted_codes())
    answer = RAGAnswer(question="口语课几级？", text="四级 [1]", hits=(), candidates=(), threshold=0.0, k=3,
                       refused=False, model_called=True, problems=tuple(Problem(c, f"说明{c}") for c in codes))
    store = ReviewStore(Database(f"sqlite:///{tmp_path / 'q.sqlite3'}"))
    item = store.get(store.enqueue(answer, fingerprint="f"))
    store.export_csv(tmp_path / "q.csv")
    with open(tmp_path / "q.csv", encoding="utf-8-sig", newline="") as handle:
        exported = next(csv.DictReader(handle))["问题原因"]
    shown = reason_lines(item)
    for code in codes:
        assert f"{REASON_LABELS[code]}：说明{code}" in exported
        assert f"**{REASON_LABELS[code]}**" in shown and f"{code}：" not in exported
