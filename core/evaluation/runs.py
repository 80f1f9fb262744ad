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
from core.evaluation.metrics import Evaluation, row_reason
from core.knobs import Knobs
from core.sets.format import LabelledQuestion
from core.stores.runs import NewRun, Run, RunFile, RunInfo, RunQuestion
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
                    reason=f"已审答案 #{reused[i]} 作答" if i in reused and not q.gone else row_reason(q, g),
                    top_hit=_top(g))
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


def as_run(new: NewRun, *, created_at=None) -> Run:
    """An unsaved run as a `Run` (the tuning page compares a batch run with the baseline before saving it);
    its files carry no recorded version."""
    counts: dict[str, int] = {}
    for q in new.questions:
        counts[q.outcome] = counts.get(q.outcome, 0) + 1
    info = RunInfo(name=new.name, kind=new.origin, set_name=new.set_name, set_version=new.set_version,
                   set_hash=new.set_hash, fingerprint=new.fingerprint, knobs=dict(new.knobs),
                   glossary_fingerprint=new.glossary_fingerprint, glossary_entries=len(new.glossary),
                   answerer=new.answerer, grader=new.grader, reuse=new.reuse, actor=new.actor, created_at=created_at,
                   question_count=len(new.questions), counts=counts)
    files = tuple(RunFile(f.name, f.sha256, None, tuple((s.heading, s.sha256) for s in f.sections))
                  for f in new.corpus.files)
    return Run(info, new.questions, files, tuple(new.glossary))


def section_texts(new: NewRun) -> dict[str, str]:
    """sha256 → text of every section of an unsaved run's corpus."""
    return {s.sha256: s.text for f in new.corpus.files for s in f.sections}
