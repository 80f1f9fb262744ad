"""The mypy settings in pyproject.toml keep their promise: the settings, values and stores are always checked.

mypy itself runs in `make lint` (too slow for the test suite); this reads the configuration only. A module in the
ratchet list (an override with `ignore_errors = true`) is not checked at all, so none of the strict part may be
there, not even through a wildcard such as `core.*`.
"""

from __future__ import annotations

import tomllib

from tests.paths import ROOT

STRICT_PACKAGES = ("core.values", "core.stores")
STRICT_MODULES = ("core.settings",)


def _mypy_config(text: str | None = None) -> dict:
    data = tomllib.loads(text) if text is not None else tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return data["tool"]["mypy"]


def _ignored_patterns(config: dict) -> list[str]:
    """Every module pattern whose errors are ignored (an override's `module` is a string or a list)."""
    patterns: list[str] = []
    for override in config.get("overrides", []):
        if override.get("ignore_errors"):
            modules = override["module"]
            patterns += [modules] if isinstance(modules, str) else list(modules)
    return patterns


def _covers(pattern: str, module: str) -> bool:
    """mypy's override matching: `a.b` is that module only, `a.b.*` is `a.b` and everything under it."""
    if pattern.endswith(".*"):
        package = pattern[:-2]
        return module == package or module.startswith(package + ".")
    return module == pattern


def _strict_modules() -> list[str]:
    """core.settings and every module of core/values and core/stores, as found on disk."""
    found = list(STRICT_MODULES)
    for package in STRICT_PACKAGES:
        folder = ROOT.joinpath(*package.split("."))
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _slipped(config: dict, modules: list[str]) -> list[str]:
    return [f"{m} ({p})" for m in modules for p in _ignored_patterns(config) if _covers(p, m)]


def test_mypy_config_checks_core_without_a_global_ignore():
    config = _mypy_config()
    assert config["files"] == ["core"]
    assert not config.get("ignore_errors") and not config.get("ignore_missing_imports")
    assert config["check_untyped_defs"] and config["warn_unused_ignores"] and config["no_implicit_optional"]


def test_mypy_config_strict_part_is_not_in_the_ratchet_list():
    modules = _strict_modules()
    assert "core.stores.review" in modules and "core.values" in modules  # the walk found the packages
    assert _slipped(_mypy_config(), modules) == []


def test_mypy_config_ratchet_list_names_only_modules_that_exist():
    def exists(module: str) -> bool:
        path = ROOT.joinpath(*module.split("."))
        return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()

    stale = [p for p in _ignored_patterns(_mypy_config()) if not exists(p.removesuffix(".*"))]
    assert stale == [], "remove these from the ratchet list in pyproject.toml"


def test_mypy_config_slipped_finds_a_strict_module_named_or_under_a_wildcard():
    config = _mypy_config("""
[tool.mypy]
files = ["core"]
[[tool.mypy.overrides]]
module = ["core.assistant", "core.stores.review"]
ignore_errors = true
[[tool.mypy.overrides]]
module = "core.*"
ignore_errors = true
[[tool.mypy.overrides]]
module = ["core.values.*"]
ignore_missing_imports = true
""")
    modules = ["core.settings", "core.stores.review", "core.values.answers"]
    assert _slipped(config, modules) == ["core.settings (core.*)", "core.stores.review (core.stores.review)",
                                         "core.stores.review (core.*)", "core.values.answers (core.*)"]
