"""What the docs list must be what the code has: every queue lane in docs/review-queue.md's lane table, every
dependency of requirements*.txt in docs/dependencies.md's table."""

from __future__ import annotations

import re

import pytest

from core.stores.review_schema import LANES
from tests.paths import ROOT


def doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("code", sorted(LANES))
def test_every_queue_lane_is_a_row_of_the_lane_table(code):
    assert f"| `{code}` | {LANES[code].label} |" in doc("review-queue.md")


def requirements() -> list[str]:
    names = []
    for file in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / file).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                names.append(re.split(r"[<>=\[ ;#]", line.strip(), maxsplit=1)[0])
    return names


@pytest.mark.parametrize("name", requirements())
def test_every_dependency_is_a_row_of_the_dependencies_table(name):
    rows = [line for line in doc("dependencies.md").splitlines() if line.startswith("| ")]
    assert any(re.search(rf"(^\| |、|，| ){re.escape(name)}(\[|（| |、|，|\|)", row) for row in rows), name
