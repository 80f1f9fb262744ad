"""Calibrate the reuse threshold (core.reuse.match similarity) by a written rule on the development reuse set, the way
the gate's knobs are calibrated; `python -m core calibrate --write` writes it to core/data/calibration.json.

The development reuse set (bench/data/reuse_dev.csv: a consultant-approved answer, a new question, whether it
should be reused) was written for this; a blind reuse set joins it only after its one measurement (reuse_set.csv,
reuse_set_v2.csv, reuse_set_v3.csv and reuse_set_v4.csv have had theirs, as the measured answerability sets join the gate's
calibration); a new blind set never takes part before it is measured. Each row
is approved as `eval --reuse` approves it (its sentences cited against the chunks the approved question
retrieves), then every guard but the threshold is applied to the new question as the Assistant applies it; the
rule below picks the threshold from the similarities of the rows that reached it. Stale rows do not depend on the
threshold and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core.assistant import Assistant
from core.checks.approval import citable
from core.checks.references import extract_refs
from core.evaluation.reuse_eval import cite
from core.retrieval.hashes import corpus_hashes, sha256_text
from core.reuse.guards import check
from core.sets.reuse_format import ReuseCase, read_reuse_set
from core.settings import PROJECT_ROOT
from core.values import ApprovedAnswer, Citation
from core.values.reuse import ACTIVE

DEV_SETS = tuple(PROJECT_ROOT / "bench" / "data" / name
                 for name in ("reuse_dev.csv", "reuse_set.csv", "reuse_set_v2.csv", "reuse_set_v3.csv", "reuse_set_v4.csv"))
GRID = tuple(round(0.30 + 0.01 * i, 2) for i in range(71))  # 0.30 … 1.00
# Round 3 priced a wrong reuse at 5 missed ones; with the blind sets measured since, that price let one served answer
# to another question through (d158: 「转班手续费最低收多少」 given the answer about the refund fee). Issue #31 asks for
# no wrong reuse at all, so a threshold that serves any row that must not be reused is out, whatever it gains.
RULE = ("开发用复用题集和已测过一次的复用盲测集上，不该复用的行一行也不能复用（#31 的要求：带着顾问名字的错误答案不能发给学员）；"
        "满足这一条的阈值里取没复用的该复用行最少的，这样的阈值连成一片时取中间。")


@dataclass(frozen=True)
class ReuseCalibration:
    """What the rule chose, and on how many rows."""

    threshold: float
    plateau: tuple[float, float]
    rows: int
    should: int  # rows that should be reused and reached the threshold guard
    should_not: int  # rows that should not be, and reached it
    reused_right: int  # at the chosen threshold
    reused_wrong: int
    cost: int


def approved_for(assistant: Assistant, case: ReuseCase, number: int = 1) -> ApprovedAnswer:
    """The row's approved answer as the review queue would store it, cited against its question's chunks."""
    gate = assistant.gate(assistant.retrieve(case.approved_question))
    hits = citable(gate.candidates)
    text = cite(case.approved_answer, hits)
    numbers = sorted({n for n in extract_refs(text) if 1 <= n <= len(hits)})
    citations = tuple(Citation(n, hits[n - 1].source, hits[n - 1].heading, hits[n - 1].chunk,
                               sha256_text(hits[n - 1].text)) for n in numbers)
    return ApprovedAnswer(id=number, question=case.approved_question, text=text, citations=citations, status=ACTIVE,
                          version=1, approver="校准", approved_at=datetime(2026, 1, 1, tzinfo=UTC), item_id=None,
                          fingerprint=assistant.fingerprint)


def similarities(assistant: Assistant, cases: Sequence[ReuseCase]) -> list[tuple[bool, float]]:
    """(should be reused, similarity) of every non-stale row that passed every guard but the threshold."""
    hashes = corpus_hashes(assistant.index)
    out = []
    for number, case in enumerate(cases, start=1):
        if case.kind == "stale":
            continue
        approved = approved_for(assistant, case, number)
        approved_terms = assistant.retrieve(case.approved_question).terms
        retrieval = assistant.retrieve(case.new_question)
        result = check(approved, approved_terms, retrieval, assistant.gate(retrieval), hashes,
                       {sha256_text(h.text) for h in retrieval.candidates}, 0.0, facts=assistant.facts,
                       kinds=assistant.case_kinds)  # the guards exactly as Assistant.reuse runs them
        if result.served:
            out.append((case.expect == "reuse", result.similarity))
    return out


def calibrate_reuse(assistant: Assistant, paths: Sequence[Path] = DEV_SETS) -> ReuseCalibration:
    scored = [s for path in paths for s in similarities(assistant, read_reuse_set(path))]
    should = [s for right, s in scored if right]
    should_not = [s for right, s in scored if not right]
    costs = {t: sum(s < t for s in should) for t in GRID if not any(s >= t for s in should_not)}
    best = min(costs.values())
    run = _longest_run([t for t in GRID if costs.get(t) == best])
    threshold = run[len(run) // 2]
    return ReuseCalibration(threshold=threshold, plateau=(run[0], run[-1]), rows=len(scored), should=len(should),
                            should_not=len(should_not), reused_right=sum(s >= threshold for s in should),
                            reused_wrong=sum(s >= threshold for s in should_not), cost=best)


def _longest_run(values: Sequence[float]) -> list[float]:
    """The longest run of consecutive grid values (the first one when several are as long)."""
    runs: list[list[float]] = []
    for value in values:
        if runs and round(value - runs[-1][-1], 2) == 0.01:
            runs[-1].append(value)
        else:
            runs.append([value])
    return max(runs, key=len)
