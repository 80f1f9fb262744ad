"""Turn an evaluation into a run to keep (core.stores.runs.NewRun): the outcomes `eval`, the tuning page's batch
run and `calibrate` already computed, plus the state they were computed in.

Nothing is evaluated here: each question's outcome is the one the caller's Evaluation (or batch row) holds, the
reason is the gate's reason, the top hit the gate's first candidate. The state is the Assistant's: fingerprint,
knobs, glossary, answerer (「offline」 or the model's name), grader and reuse, and a snapshot of the corpus folder
(core.corpus.snapshot) so that a later compare can name the sections that changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.corpus.snapshot import CorpusSnapshot, snapshot
from core.evaluation.batch import BatchRow
from core.evaluation.metrics import Evaluation
from core.knobs import Knobs
from core.sets.format import LabelledQuestion
from core.stores.runs import NewRun, RunQuestion
from core.values import Gate

OFFLINE = "offline"


def _state(assistant) -> dict:
    glossary = assistant.glossary
    return {"fingerprint": assistant.fingerprint,
            "glossary": tuple((e.term, e.synonym) for e in glossary.entries) if glossary else (),
            "glossary_fingerprint": glossary.fingerprint if glossary else "",
            "answerer": OFFLINE if assistant.offline else (assistant.settings.llm_model or "model"),
            "grader": assistant.settings.grader if assistant.grades else "off",
            "reuse": "on" if assistant.approved is not None else "off"}


def _top(gate: Gate) -> str:
    top = gate.candidates[0] if gate.candidates else None
    return f"{top.source} · {top.heading}" if top else ""


def run_from_evaluation(name: str, assistant, evaluation: Evaluation, *, set_name: str, set_version: int | None,
                        actor: str, origin: str = "eval", reused: Mapping[int, int] | None = None,
                        corpus: CorpusSnapshot | None = None) -> NewRun:
    """A run of a gate evaluation (`eval`, the tuning page, `calibrate`): one RunQuestion per question, with the
    outcome `evaluation` holds (reuse already counted by core.evaluation.reuse_outcomes when `reused` is given)."""
    evaluated = evaluation.evaluated
    reused = reused or {}
    questions = tuple(
        RunQuestion(question=q.question, expected=q.expectation, outcome=o,
                    reason=f"已审答案 #{reused[i]} 作答" if i in reused else g.reason, top_hit=_top(g))
        for i, (q, g, o) in enumerate(zip(evaluated.questions, evaluation.gates, evaluation.outcomes)))
    return NewRun(name=name, origin=origin, set_name=set_name, set_version=set_version,
                  set_hash=evaluated.content_hash, knobs=evaluation.knobs.to_dict(), actor=actor,
                  questions=questions, corpus=corpus or snapshot(assistant.settings.corpus_dir), **_state(assistant))


def run_from_batch(name: str, assistant, questions: Sequence[LabelledQuestion], rows: Sequence[BatchRow], *,
                   knobs: Knobs, set_name: str, set_version: int | None, set_hash: str, actor: str,
                   corpus: CorpusSnapshot | None = None) -> NewRun:
    """A run of the tuning page's batch run (the whole chain): each row's outcome and check codes."""
    by_line = {q.line: q for q in questions}
    kept = tuple(RunQuestion(question=r.question, expected=r.expectation, outcome=r.outcome, reason=r.reason,
                             top_hit=r.top_hit, checks=tuple(sorted({p.code for p in r.problems
                                                                      if not p.code.startswith("eval_wrong_")})))
                 for r in rows if r.line in by_line or not by_line)
    return NewRun(name=name, origin="batch", set_name=set_name, set_version=set_version, set_hash=set_hash,
                  knobs=knobs.to_dict(), actor=actor, questions=kept,
                  corpus=corpus or snapshot(assistant.settings.corpus_dir), **_state(assistant))
