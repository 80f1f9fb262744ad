"""The shipped knobs are what the written rule picks today, on the sets it names: a change to retrieval, the
term rules, the starter glossary or a labelled set that moves the rule's choice fails here until
`python -m core calibrate --write` is run again (and the docs' default-knob figures are re-measured)."""

from __future__ import annotations

from core.evaluation.calibration import (
    CALIBRATION_SETS,
    DEVELOPMENT_SETS,
    MEASURED_BLIND_SETS,
    SETS_DIR,
    run_calibration,
)
from core.knobs import calibration
from tests.paths import ROOT


def test_the_shipped_calibration_is_what_the_rule_picks_now(isolated_env):
    shipped = calibration()
    run = run_calibration()
    assert run.decision.knobs == shipped.knobs
    assert run.threshold_only.knobs.threshold == shipped.threshold_only
    assert run.sets == shipped.sets == CALIBRATION_SETS
    assert run.reuse.threshold == shipped.reuse_threshold
    r = run.reuse  # what `python -m core calibrate` prints is what docs/approved-answers.md says
    said = (ROOT / "docs" / "approved-answers.md").read_text(encoding="utf-8")
    assert (f"{r.rows} 行到了这一关：该复用的 {r.should} 行复用 {r.reused_right}，不该复用的 {r.should_not} 行复用 "
            f"{r.reused_wrong}") in said


def test_calibration_reads_the_development_sets_and_only_blind_sets_already_measured():
    held_out = sorted(p.name for p in SETS_DIR.glob("student_heldout_v*.csv"))
    newest = max(held_out, key=lambda name: int(name.removeprefix("student_heldout_v").removesuffix(".csv")))
    assert set(MEASURED_BLIND_SETS) <= set(held_out)
    assert newest not in CALIBRATION_SETS  # the next change's judge
    assert not set(DEVELOPMENT_SETS) & set(MEASURED_BLIND_SETS)
    assert all((SETS_DIR / name).is_file() for name in CALIBRATION_SETS)
