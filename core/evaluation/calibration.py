"""Calibrate the gate's knobs on the development sets and write them to core/data/calibration.json.

The rule is core.evaluation.metrics's SUGGEST_RULE (lowest cost, a false answer costing twice a false
refusal; the middle of the plateau, one knob at a time), applied jointly to the threshold and
the two decision knobs at the default k, on the union of the development sets only, with the
shipped starter glossary so that nobody's edits change the result. The held-out (blind) sets
never take part. The threshold for XIAOE_ANSWERABILITY=off is calibrated by the same rule with
the decision off. `python -m core calibrate --write` is the only writer of the file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from core.answerability.glossary import load_starter
from core.assistant import build_assistant
from core.evaluation.metrics import SUGGEST_RULE, Suggestion, evaluate_set, suggest
from core.evaluation.set_format import LabelledQuestion, read_question_file
from core.knobs import Knobs, calibrated, write_calibration
from core.retrieval.store import load_or_build
from core.settings import PROJECT_ROOT, Settings

# The labelled question sets (calibration, development and blind sets) live with the benches that read them.
SETS_DIR = PROJECT_ROOT / "bench" / "data"
# Written formally, written the way students type, and five student sets that were each held out
# once and then became development data. v6 to v9 stay out: they are how a change is judged.
DEVELOPMENT_SETS = ("calibration.csv", "calibration_spoken.csv", "student_questions.csv",
                    "student_questions_v2.csv", "student_questions_v3.csv", "student_heldout.csv",
                    "student_heldout_v5.csv")


@dataclass(frozen=True)
class CalibrationRun:
    """What the rule chose, with the decision on and off, and on how many questions."""

    decision: Suggestion
    threshold_only: Suggestion
    questions: int
    sets: tuple[str, ...]


def development_questions(sets_dir: Path = SETS_DIR, names: tuple[str, ...] = DEVELOPMENT_SETS
                          ) -> tuple[LabelledQuestion, ...]:
    return tuple(q for name in names for q in read_question_file(sets_dir / name).questions)


def run_calibration(settings: Settings | None = None, *, k: int | None = None) -> CalibrationRun:
    """Apply the rule; writes nothing."""
    settings = settings or Settings()
    bundle = load_or_build(settings)
    questions = development_questions()
    base = calibrated().with_(k=k)
    on = build_assistant(replace(settings, answerability="on"), bundle, load_starter(), knobs=base)
    off = build_assistant(replace(settings, answerability="off"), bundle, None, knobs=base)
    decision = suggest(evaluate_set(on, questions), base.k, base)
    threshold_only = suggest(evaluate_set(off, questions), base.k, base)
    return CalibrationRun(decision=decision, threshold_only=threshold_only, questions=len(questions),
                          sets=DEVELOPMENT_SETS)


def save(run: CalibrationRun) -> Knobs:
    plateaus = {name: [lo, hi] for name, (lo, hi) in run.decision.plateaus.items()}
    plateaus["threshold_only"] = list(run.threshold_only.plateaus["threshold"])
    write_calibration(run.decision.knobs, threshold_only=run.threshold_only.knobs.threshold, rule=SUGGEST_RULE,
                      sets=run.sets, plateaus=plateaus)
    return run.decision.knobs
