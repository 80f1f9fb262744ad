"""`make bench` runs every bench script with a __main__, except the few docs/benchmarks.md names with the reason."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.paths import ROOT

MAIN = re.compile(r'^if __name__ == "__main__":', re.MULTILINE)


def scripts_with_main() -> set[str]:
    return {path.stem for path in (ROOT / "bench").glob("*.py") if MAIN.search(path.read_text(encoding="utf-8"))}


def skipped() -> set[str]:
    (line,) = [line for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
               if line.startswith("BENCH_SKIP :=")]
    return set(line.split(":=", 1)[1].split())


@pytest.mark.skipif(shutil.which("make") is None, reason="没有 make")
def test_make_bench_runs_every_bench_script_with_a_main_but_the_ones_it_names():
    # PY=echo prints each command instead of running it; -o: never reinstall the virtualenv for this
    done = subprocess.run(["make", "-s", "bench", "PY=echo", "-o", ".venv/.installed"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    run = set(re.findall(r"^-m bench\.(\w+)$", done, re.MULTILINE))
    assert run == scripts_with_main() - skipped()
    assert len(run) >= 20 and skipped() < scripts_with_main()


def test_every_script_make_bench_leaves_out_is_named_in_the_benchmarks_doc_with_why():
    doc = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for name in skipped():
        assert re.search(rf"`bench/{name}\.py`[^\n]*`make bench` 不跑", doc), name
