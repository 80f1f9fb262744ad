"""bench/ask_cpu.py runs end to end on a few questions and prints a row with no approved answers and one with some."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.paths import ROOT


def test_ask_cpu_prints_each_part_before_and_after_answers_are_approved():
    done = subprocess.run([sys.executable, "-m", "bench.ask_cpu", "--questions", "12", "--approved", "3"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={k: v for k, v in os.environ.items() if not k.startswith("XIAOE_")})
    assert done.returncode == 0, done.stderr[-2000:]
    rows = re.findall(r"^sqlite \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)$", done.stdout,
                      re.MULTILINE)
    assert [r[0] for r in rows] == ["0", "3"]
    assert all(float(v) > 0 for r in rows for v in r[1:3])
