"""Calibrate the gate's knobs on every labelled set that has had its one blind measurement, and write them to
core/data/calibration.json.

The rule is core.evaluation.metrics's SUGGEST_RULE (lowest cost, a false answer costing twice a false
refusal; the middle of the plateau, one knob at a time), applied jointly to the threshold and
the two decision knobs at the default k, on the union of the calibration sets, with the
shipped starter glossary so that nobody's edits change the result. A blind set joins only after
its one measurement, and the newest one (the judge of the last change) never takes part. The threshold for
XIAOE_ANSWERABILITY=off is calibrated by the same rule with the decision off.
`python -m core calibrate --write` is the only writer of the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.answerability.glossary import load_starter
from core.assistant import Assistant, build_assistant
from core.evaluation.metrics import (
    SUGGEST_RULE,
    Evaluation,
    Metrics,
    Suggestion,
    evaluate_at,
    evaluate_set,
    suggest,
)
from core.evaluation.reuse_calibration import RULE as REUSE_RULE
from core.evaluation.reuse_calibration import ReuseCalibration, calibrate_reuse
from core.knobs import Knobs, calibrated, write_calibration
from core.retrieval.store import load_or_build
from core.sets.format import LabelledQuestion, read_question_file
from core.settings import PROJECT_ROOT, Settings

# The labelled question sets (calibration, development and blind sets) live with the benches that read them.
SETS_DIR = PROJECT_ROOT / "bench" / "data"
# Written formally, written the way students type, and five student sets that were each held out
# once and then became development data (the starter glossary's consultant round was mined from their misses).
DEVELOPMENT_SETS = ("calibration.csv", "calibration_spoken.csv", "student_questions.csv",
                    "student_questions_v2.csv", "student_questions_v3.csv", "student_heldout.csv",
                    "student_heldout_v5.csv")
# Blind WeChat-style sets, each measured once and never mined for rules or glossary entries: the closest
# thing to students' real phrasing. Calibrating on the development sets alone set the absent-word ceiling
# for questions whose everyday words had already been put in the glossary. The newest blind set (v10)
# stays out: it judged this choice, and joins when a newer set takes its place as the judge.
MEASURED_BLIND_SETS = ("student_heldout_v6.csv", "student_heldout_v7.csv", "student_heldout_v8.csv",
                       "student_heldout_v9.csv")
CALIBRATION_SETS = DEVELOPMENT_SETS + MEASURED_BLIND_SETS


@dataclass(frozen=True)
class CalibrationRun:
    """What the rule chose, with the decision on and off, and on how many questions."""

    decision: Suggestion
    threshold_only: Suggestion
    questions: int
    sets: tuple[str, ...]
    current: Metrics  # the knobs the calibration file holds now, on the same questions
    reuse: ReuseCalibration | None = None  # the reuse threshold on the development reuse set
    evaluation: Evaluation | None = None  # every question at the chosen knobs: what `calibrate --save-run` keeps
    assistant: Assistant | None = None  # the chain it was measured with (starter glossary)


def calibration_questions(sets_dir: Path = SETS_DIR, names: tuple[str, ...] = CALIBRATION_SETS
                          ) -> tuple[LabelledQuestion, ...]:
    return tuple(q for name in names for q in read_question_file(sets_dir / name).questions)


def run_calibration(settings: Settings | None = None, *, k: int | None = None) -> CalibrationRun:
    """Apply the rule; writes nothing."""
    settings = settings or Settings()
    bundle = load_or_build(settings)
    questions = calibration_questions()
    base = calibrated().with_(k=k)
    on = build_assistant(settings.with_(answerability="on"), bundle, load_starter(corpus_dir=settings.corpus_dir), knobs=base)
    off = build_assistant(settings.with_(answerability="off"), bundle, None, knobs=base)
    evaluated = evaluate_set(on, questions)
    decision = suggest(evaluated, base.k, base)
    threshold_only = suggest(evaluate_set(off, questions), base.k, base)
    return CalibrationRun(decision=decision, threshold_only=threshold_only, questions=len(questions),
                          sets=CALIBRATION_SETS, current=evaluate_at(evaluated, base).metrics,
                          reuse=calibrate_reuse(on.with_knobs(decision.knobs)),
                          evaluation=evaluate_at(evaluated, decision.knobs), assistant=on)


def save(run: CalibrationRun) -> Knobs:
    plateaus = {name: [lo, hi] for name, (lo, hi) in run.decision.plateaus.items()}
    plateaus["threshold_only"] = list(run.threshold_only.plateaus["threshold"])
    if run.reuse is not None:
        plateaus["reuse_threshold"] = list(run.reuse.plateau)
    write_calibration(run.decision.knobs, threshold_only=run.threshold_only.knobs.threshold, rule=SUGGEST_RULE,
                      sets=run.sets, plateaus=plateaus,
                      reuse_threshold=run.reuse.threshold if run.reuse is not None else None, reuse_rule=REUSE_RULE)
    return run.decision.knobs
