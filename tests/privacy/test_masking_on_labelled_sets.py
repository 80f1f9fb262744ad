"""With masking on, eval gives the same decisions on every labelled set: masking changes no text of any set (every
cell of every CSV under bench/data), and Assistant.validate — where masking happens — is the only place the
question's text differs between masking on and off; one set is also evaluated both ways to show it."""

from __future__ import annotations

import csv

from bench.sets import bench_assistant, run
from core.privacy.mask import mask, without_placeholders
from core.settings import Settings
from tests.paths import ROOT

DATA = ROOT / "bench" / "data"


def test_masking_changes_no_text_of_any_labelled_set():
    changed = []
    files = sorted(DATA.rglob("*.csv"))
    for path in files:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.reader(handle):
                changed += [(path.name, cell[:40]) for cell in row
                            if mask(cell).text != cell or without_placeholders(cell) != cell]
    assert len(files) > 10 and changed == []


def test_eval_decisions_equal_with_masking_on_and_off(tmp_path):
    settings = Settings(data_dir=tmp_path, reuse="off")
    on = run(bench_assistant(settings), str(DATA / "calibration_spoken.csv"))[1]
    off = run(bench_assistant(settings.with_(masking="off")), str(DATA / "calibration_spoken.csv"))[1]
    assert len(on.outcomes) > 50 and on.outcomes == off.outcomes
    assert [g.refused for g in on.gates] == [g.refused for g in off.gates]
