"""The layout keeps its promises: no import cycles inside core/, database sessions only in core/stores,
no streamlit in core/, and every module says its job in a docstring."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import ROOT

CORE = ROOT / "core"

SESSION_CALLS = ("transaction", "read", "begin", "connect", "execute")


def modules() -> dict[str, Path]:
    out = {}
    for path in CORE.rglob("*.py"):
        parts = path.relative_to(CORE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(path: Path, known: set[str]) -> set[str]:
    """Modules of core/ that `path` imports at module level (imports inside functions are deferred on purpose)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("core"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("core")}
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            continue
    return {m for m in found if m in known}


def test_core_has_no_import_cycles():
    mods = modules()
    graph = {name: imports(path, set(mods)) - {name} for name, path in mods.items()}
    # a package's __init__ may re-export its modules; an edge into a package is an edge into its __init__ only
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        stack.pop()
        return None

    for name in sorted(graph):
        if name not in state and (cycle := visit(name)):
            raise AssertionError("import cycle: " + " → ".join(cycle))


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


# Folders of tests/ that do not mirror a core package: pages (AppTest), the browser, security regressions, benches.
NOT_PACKAGES = {"app", "e2e", "security", "bench"}


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
