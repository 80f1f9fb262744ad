"""`eval --with-model`: a labelled set through the gate, the grader and the configured model's answer.

`plan` runs the gate on every question (no model call) and estimates the cost: how many questions
fall in the uncertain band (one grader request each) and roughly how many tokens those requests
take. `run_model` then asks each question through the Assistant, exactly as the Ask page does
(gate → grade → answer → check), and counts: the outcomes with the model beside the gate alone,
the grader's verdicts in the band against the label, and the grader's tokens and time. Nothing
here decides anything: core.assistant composes, core.answerability.gate and core.answering.grader decide.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.answering.grader import in_band, prompt_chars
from core.evaluation.batch import answer_outcome
from core.evaluation.metrics import CORRECT_REFUSAL, FALSE_REFUSAL, OUTCOMES, Metrics, metrics_from_counts, outcome_of
from core.knobs import Knobs
from core.sets.format import LabelledQuestion
from core.values import Band, Gate, Grade

# A rough token count for the estimate: about one token per Chinese character (tokenizers differ by
# model; the run itself reports the tokens the provider counted), plus a short JSON verdict.
VERDICT_TOKENS = 60
MODEL_FAILED = "模型故障"


@dataclass(frozen=True)
class Planned:
    """Every question's gate decision (no model call yet) and the cost estimate of the run."""

    knobs: Knobs
    questions: tuple[LabelledQuestion, ...]
    gates: tuple[Gate, ...]
    band: tuple[bool, ...]
    grader_tokens: int  # estimated, for the band's grader requests
    answer_calls: int  # at most: every gate answer plus every band question

    @property
    def band_count(self) -> int:
        return sum(self.band)


@dataclass(frozen=True)
class ModelRow:
    question: LabelledQuestion
    in_band: bool
    outcome: str  # one of OUTCOMES, or MODEL_FAILED when the answer's model call failed
    grade: Grade | None
    fault: str = ""


@dataclass(frozen=True)
class ModelRun:
    """The outcome of a run: per question, the metrics with the model and with the gate alone."""

    rows: tuple[ModelRow, ...]
    metrics: Metrics  # a failed answer counts as a refusal
    gate_metrics: Metrics
    seconds: float

    def _graded(self) -> list[ModelRow]:
        return [r for r in self.rows if r.grade is not None]

    @property
    def band_count(self) -> int:
        return sum(r.in_band for r in self.rows)

    @property
    def said_yes(self) -> int:
        return sum(1 for r in self._graded() if r.grade.answerable and not r.grade.fault)

    @property
    def said_no(self) -> int:
        return sum(1 for r in self._graded() if not r.grade.answerable and not r.grade.fault)

    @property
    def faults(self) -> int:
        return sum(1 for r in self._graded() if r.grade.fault)

    @property
    def yes_but_refuse(self) -> int:
        """The grader said yes to a question labelled 应拒答 (would be a 误答)."""
        return sum(1 for r in self._graded() if r.grade.answerable and not r.grade.fault and r.question.should_refuse)

    @property
    def no_but_answer(self) -> int:
        """The grader said no to a question labelled with an answer (stays a 误拒)."""
        return sum(1 for r in self._graded()
                   if not r.grade.answerable and not r.grade.fault and not r.question.should_refuse)

    @property
    def agree(self) -> int:
        return self.said_yes + self.said_no - self.yes_but_refuse - self.no_but_answer

    @property
    def prompt_tokens(self) -> int:
        return sum(r.grade.prompt_tokens for r in self._graded())

    @property
    def completion_tokens(self) -> int:
        return sum(r.grade.completion_tokens for r in self._graded())

    @property
    def grader_ms(self) -> int:
        return sum(r.grade.ms for r in self._graded())

    @property
    def answer_failures(self) -> int:
        return sum(1 for r in self.rows if r.outcome == MODEL_FAILED)


def band_count(gates: Sequence[Gate], band: Band) -> int:
    """How many of these gate decisions fall in the grader's uncertain band (no model call)."""
    return sum(1 for g in gates if in_band(g, band))


def plan(assistant, questions: Sequence[LabelledQuestion], knobs: Knobs) -> Planned:
    """The gate's decision on every question and the cost estimate; no model call."""
    gates = tuple(assistant.gate(assistant.retrieve(q.question), knobs) for q in questions)
    band = tuple(in_band(g, assistant.settings.grader_band) for g in gates)
    tokens = sum(prompt_chars(g.question, g.hits) + VERDICT_TOKENS for g, b in zip(gates, band) if b)
    answers = sum(1 for g in gates if not g.refused) + sum(band)
    return Planned(knobs, tuple(questions), gates, band, tokens, answers)


def run_model(assistant, planned: Planned, *, progress: Callable[[int, int], None] | None = None) -> ModelRun:
    """Grade and answer every planned question through `assistant` (which must have a chat model)."""
    start = time.perf_counter()
    rows = []
    total = len(planned.questions)
    for i, (q, gate, band) in enumerate(zip(planned.questions, planned.gates, planned.band)):
        outcome = assistant.outcome(assistant.grade(gate))
        rows.append(ModelRow(q, band, answer_outcome(q, outcome), outcome.grade,
                             fault=outcome.failure.kind if outcome.failure else ""))
        if progress:
            progress(i + 1, total)
    return ModelRun(rows=tuple(rows), metrics=_metrics(planned.knobs, rows),
                    gate_metrics=_gate_metrics(planned), seconds=time.perf_counter() - start)


def _metrics(knobs: Knobs, rows: Sequence[ModelRow]) -> Metrics:
    counts = [0] * len(OUTCOMES)
    for r in rows:
        outcome = r.outcome
        if outcome == MODEL_FAILED:  # no answer reached anyone: counted as a refusal
            outcome = CORRECT_REFUSAL if r.question.should_refuse else FALSE_REFUSAL
        counts[OUTCOMES.index(outcome)] += 1
    return metrics_from_counts(knobs, counts)


def _gate_metrics(planned: Planned) -> Metrics:
    counts = [0] * len(OUTCOMES)
    for q, g in zip(planned.questions, planned.gates):
        counts[OUTCOMES.index(outcome_of(q, g))] += 1
    return metrics_from_counts(planned.knobs, counts)
