"""bench/load.py runs (it crashed once `ui.state.effective_settings` was gone and nobody noticed): a few consultants
for a few seconds on SQLite, and on PostgreSQL when XIAOE_TEST_DATABASE_URL names one, with 0 errors, 0 lost
updates and at most one database connection per consultant (it opened two: 100 for 50, a stock server's limit)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.db_engines import ENV
from tests.paths import ROOT

CONSULTANTS = 3


def test_load_bench_runs_with_one_connection_per_consultant():
    base = os.environ.get(ENV, "").strip()
    engines = "postgresql,sqlite" if base else "sqlite"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XIAOE_")}
    done = subprocess.run([sys.executable, "-m", "bench.load", "--consultants", str(CONSULTANTS), "--seconds", "3",
                           "--think", "0.3", "--engines", engines, "--postgres-url", base],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines()
            if re.match(r"^(postgresql|sqlite) \| .*\| \d+ \| ", line)][:len(engines.split(","))]
    assert [r[0] for r in rows] == engines.split(",")
    for row in rows:
        asks, errors, lost, peak = int(row[3]), int(row[11]), int(row[12]), row[13]
        assert asks > 0 and errors == 0 and lost == 0, row
        assert peak == "—" or 1 <= int(peak) <= CONSULTANTS, row
    assert "每名顾问至多一个数据库连接：是" in done.stdout
