"""An answer as the chain returns it: text, hits, the gate's knobs and decision, and every check's report."""

from __future__ import annotations

from dataclasses import dataclass

from core.knobs import Knobs
from core.values.case import Result
from core.values.decisions import Decision, Grade
from core.values.reports import GroundingReport, Problem, RefReport
from core.values.retrieval import Hit


@dataclass(frozen=True)
class RAGAnswer:
    """Everything a caller needs to show, check or queue one answer."""

    question: str
    text: str
    hits: tuple[Hit, ...]
    candidates: tuple[Hit, ...]
    threshold: float
    k: int
    refused: bool
    model_called: bool
    problems: tuple[Problem, ...] = ()
    reason: str = ""
    knobs: Knobs | None = None
    decision: Decision | None = None
    citations: RefReport | None = None  # the checks' reports, rendered as they are (never recomputed)
    grounding: GroundingReport | None = None
    grade: Grade | None = None  # set when the grader (core.answering.grader) judged this question
    # Set by the own-figure path (core.answering.own_case): what was computed for the student's own case, from the
    # school facts; None for every other answer. `computes_own_amount` is the signal a release policy reads.
    own_case: Result | None = None

    @property
    def computes_own_amount(self) -> bool:
        """True when the answer works out an amount of the student's own (a refund, a fee, a difference)."""
        return self.own_case is not None and self.own_case.states_amount

    @property
    def flagged(self) -> bool:
        """True when a check found a problem: the text must not be shown to a student as final."""
        return bool(self.problems)

    @property
    def gate_refused(self) -> bool:
        """The gate refused before any model call (as `eval` reports); `refused` also counts a model
        that answered with the refusal sentence itself."""
        return self.refused and not self.model_called

    @property
    def best_score(self) -> float:
        return max((h.score for h in self.candidates), default=0.0)

    @property
    def reason_code(self) -> str:
        """Why the gate refused, as a code, when one rule alone refused (not_asked_attribute); else ""."""
        return self.decision.reason_code if self.gate_refused and self.decision is not None else ""

    def to_dict(self) -> dict:
        return {"question": self.question, "refused": self.refused, "gate_refused": self.gate_refused,
                "answer": self.text, "reason_code": self.reason_code,
                "asked": list(self.decision.asked) if self.decision is not None else [],
                "threshold": self.threshold, "k": self.k, "model_called": self.model_called,
                "reason": self.reason, "hits": [h.to_dict() for h in self.candidates],
                "problems": [p.to_dict() for p in self.problems],
                "computes_own_amount": self.computes_own_amount,
                **({"knobs": self.knobs.to_dict()} if self.knobs else {}),
                **({"grade": self.grade.to_dict()} if self.grade else {})}


