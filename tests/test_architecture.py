"""The layout keeps its promises: imports follow the stage order written in docs/development.md (module-level,
lazy and TYPE_CHECKING imports alike), core/ has no import cycle, database sessions open only in core/stores,
no streamlit in core/, and every module says its job in a docstring."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.paths import ROOT

CORE = ROOT / "core"
DEVELOPMENT = ROOT / "docs" / "development.md"
# The one written stage order, bottom to top: 「环节顺序：errors os_errors … → knobs → values → …」 in
# docs/development.md. Names inside one stage are separated by spaces; a stage may import its own stage and
# every stage before it.
ORDER_LINE = re.compile(r"^环节顺序：(.+)$", re.M)


def stage_order(text: str | None = None) -> dict[str, int]:
    """{top-level name under core/ → its rank} as docs/development.md writes it."""
    found = ORDER_LINE.search(text if text is not None else DEVELOPMENT.read_text(encoding="utf-8"))
    assert found, "docs/development.md must write the stage order in one line starting with 环节顺序："
    ranks: dict[str, int] = {}
    for rank, stage in enumerate(found.group(1).split("→")):
        for name in stage.replace("`", "").split():
            ranks[name] = rank
    return ranks


@dataclass(frozen=True)
class Import:
    """One import of a core module by another: where, and of which kind."""

    importer: str
    imported: str
    kind: str  # "module" (top level), "lazy" (inside a function or class), "type_checking"
    line: int


def modules(root: Path = CORE) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _resolve(name: str, known: set[str]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[Import]:
    """Every import of a module of core/ in `path`, of every kind."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            for inner in ast.walk(node):
                kinds[id(inner)] = "type_checking"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            for inner in ast.walk(node):
                kinds.setdefault(id(inner), "lazy")
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: from . import x
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            targets = [f"{module}.{alias.name}" for alias in node.names] or [module]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                targets = [node.args[0].value]
        for target in targets:
            resolved = _resolve(target, known) if target.startswith("core") else None
            if resolved and resolved != name:
                yield Import(name, resolved, kinds.get(id(node), "module"), node.lineno)


def all_imports(root: Path = CORE) -> list[Import]:
    mods = modules(root)
    return [imp for name, path in sorted(mods.items()) for imp in imports_of(name, path, set(mods))]


def stage_of(module: str, ranks: dict[str, int]) -> int:
    parts = module.split(".")
    return ranks[parts[1]] if len(parts) > 1 else ranks["core"]


def backward_imports(found: list[Import], ranks: dict[str, int]) -> list[str]:
    """Imports of a module in a later stage than the importer's, named with kind and line."""
    return [f"{i.importer} → {i.imported}（{i.kind}，第 {i.line} 行）" for i in found
            if i.imported != "core" and stage_of(i.imported, ranks) > stage_of(i.importer, ranks)]


def cycles(found: list[Import]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), counting every kind of import."""
    graph: dict[str, set[str]] = {}
    for i in found:
        graph.setdefault(i.importer, set()).add(i.imported)
        graph.setdefault(i.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_every_core_package_and_top_level_module_has_a_stage():
    ranks = stage_order()
    names = {p.stem if p.is_file() else p.name for p in CORE.iterdir()
             if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()}
    assert names - set(ranks) == set(), "give these a place in 环节顺序 (docs/development.md)"
    assert set(ranks) - names - {"core"} == set(), "环节顺序 names what core/ does not have"


def test_no_import_runs_back_up_the_stage_order():
    backward = backward_imports(all_imports(), stage_order())
    assert not backward, "imports that run back up the stage order:\n" + "\n".join(backward)


def test_core_has_no_import_cycles():
    found = cycles(all_imports())
    assert not found, "import cycles (every kind of import counts):\n" + "\n".join(" ↔ ".join(g) for g in found)


@pytest.mark.parametrize("planted, kind", [
    ("from core.high.top import thing\n", "module"),
    ("def f():\n    from core.high import top\n    return top\n", "lazy"),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.high.top import Thing\n", "type_checking"),
    ("import importlib\nmod = importlib.import_module('core.high.top')\n", "module"),
])
def test_a_planted_backward_import_of_each_kind_is_caught(tmp_path, planted, kind):
    core = tmp_path / "core"
    for package in ("low", "high"):
        (core / package).mkdir(parents=True)
        (core / package / "__init__.py").write_text('"""x."""\n', encoding="utf-8")
    (core / "__init__.py").write_text('"""x."""\n', encoding="utf-8")
    (core / "high" / "top.py").write_text('"""x."""\nthing = 1\n', encoding="utf-8")
    (core / "low" / "bottom.py").write_text('"""x."""\n' + planted, encoding="utf-8")
    ranks = stage_order("环节顺序：low → high")
    found = all_imports(core)
    assert [i.kind for i in found if i.importer == "core.low.bottom"] == [kind]
    assert backward_imports(found, ranks) and backward_imports(found, ranks)[0].startswith("core.low.bottom → core.high")


def test_a_planted_cycle_is_caught(tmp_path):
    core = tmp_path / "core"
    (core / "a").mkdir(parents=True)
    for name, body in (("__init__", ""), ("a/__init__", ""), ("a/one", "def f():\n    from core.a import two\n"),
                       ("a/two", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.a import one\n")):
        (core / f"{name}.py").write_text('"""x."""\n' + body, encoding="utf-8")
    assert cycles(all_imports(core)) == [["core.a.one", "core.a.two"]]


def test_only_the_stores_package_opens_database_sessions():
    offenders = []
    for name, path in modules().items():
        if name.startswith("core.stores"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = ast.unparse(node.func.value)
                if node.func.attr in ("transaction", "read") and (owner.endswith("db") or "database" in owner):
                    offenders.append(f"{name}: {ast.unparse(node)[:60]}")
                if node.func.attr in ("begin", "connect") and "engine" in owner:
                    offenders.append(f"{name}: {ast.unparse(node)[:60]}")
    assert not offenders, "\n".join(offenders)


def test_every_core_module_opens_with_a_docstring():
    missing = [name for name, path in modules().items()
               if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))]
    assert not missing, missing


# Folders of tests/ that do not mirror a core package: pages (AppTest), the browser, security regressions, benches, the
# student service over real HTTP (the top-level `service` package).
NOT_PACKAGES = {"app", "e2e", "security", "bench", "service"}


def test_the_tests_mirror_the_package_tree():
    """Each core package has its tests in tests/<package>/, and no tests folder names a package that does not exist."""
    packages = {p.name for p in CORE.iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in (ROOT / "tests").iterdir()
               if p.is_dir() and not p.name.startswith((".", "_")) and any(p.glob("test_*.py"))}
    assert packages - folders == set(), "core packages without a tests/<package>/ folder"
    assert folders - packages - NOT_PACKAGES == set(), "tests folders that mirror no core package"


def test_labelled_sets_live_outside_the_tests():
    assert not list((ROOT / "tests").rglob("*.csv")), "labelled sets belong in bench/data/"
    assert list((ROOT / "bench" / "data").glob("student_heldout_*.csv"))
