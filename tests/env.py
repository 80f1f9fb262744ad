"""The one rule for which environment settings a test may inherit from the developer's shell: none of the
console's own (every XIAOE_* name), except the few that only tell the test harness where its tools are."""

from __future__ import annotations

import os
from collections.abc import Mapping

import pytest

# Read by the tests and benches themselves, never by the console: the PostgreSQL server for the dual-engine
# store tests, the folder for documentation screenshots, the CMRC benchmark file.
HARNESS = frozenset({"XIAOE_TEST_DATABASE_URL", "XIAOE_SCREENSHOTS", "XIAOE_CMRC_PATH"})


def console_settings(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The console settings present in `environ` that a test must not see."""
    return sorted(name for name in environ if name.startswith("XIAOE_") and name not in HARNESS)


def clear_console_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in console_settings():
        monkeypatch.delenv(name, raising=False)


def without_console_settings(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """A copy of `environ` for a child process (a console under test), without the console settings."""
    dropped = set(console_settings(environ))
    return {name: value for name, value in environ.items() if name not in dropped}
