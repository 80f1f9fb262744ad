"""How one question ended, as one value: refused, answered, answered on the grader's word, or failed.

Every entry point (the Ask page, `xiaoe ask`, batch runs, `eval --with-model`, the benches) gets this one
value from `core.assistant.Assistant.respond` (or, piece by piece, from `respond_stream`), and the review
queue records it through one method (`core.stores.review.ReviewStore.record`), so a new kind of outcome
is added in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.values.answers import RAGAnswer
from core.values.decisions import Gate, Grade
from core.values.retrieval import Hit
from core.values.reuse import ApprovedAnswer, Reuse

REFUSED, ANSWERED, JUDGED, FAILED = "refused", "answered", "judged", "failed"


@dataclass(frozen=True)
class Failure:
    """A model call that failed: its ModelError kind (timeout, rate_limit, …) and the Chinese message."""

    kind: str
    message: str


@dataclass(frozen=True)
class Usage:
    """What generating the answer cost: tokens as the provider reported them (0 when it did not) and time."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: int = 0


@dataclass(frozen=True)
class Outcome:
    """One question's end. `answer` is None only when the model failed (`failure` set)."""

    gate: Gate  # the decision as taken, after the grader when it judged
    answer: RAGAnswer | None = None
    failure: Failure | None = None
    fingerprint: str = ""  # the corpus the answer came from
    usage: Usage | None = None  # None when no answer was generated
    reuse: Reuse | None = None  # the approved answers checked for this question (served or near misses)

    def __post_init__(self) -> None:
        if (self.answer is None) == (self.failure is None):
            raise ValueError("an Outcome has exactly one of answer and failure")

    @property
    def question(self) -> str:
        return self.gate.question

    @property
    def kind(self) -> str:
        """refused (the gate, the grader or the model said no), judged (answered on the grader's yes),
        answered, or failed."""
        if self.answer is None:  # then `failure` is set (__post_init__)
            return FAILED
        if self.answer.refused:
            return REFUSED
        return JUDGED if self.gate.grade is not None else ANSWERED

    @property
    def refused(self) -> bool:
        return self.kind == REFUSED

    @property
    def reused(self) -> ApprovedAnswer | None:
        """The approved answer served as this question's answer, if one was."""
        return self.reuse.answer if self.reuse is not None else None

    @property
    def candidates(self) -> tuple[Hit, ...]:
        return self.gate.candidates

    @property
    def grade(self) -> Grade | None:
        return self.gate.grade

    @property
    def problems(self):
        return self.answer.problems if self.answer is not None else ()

    @property
    def model_called(self) -> bool:
        """True when a model was asked for an answer or a verdict (a failure counts: it was asked)."""
        return self.answer is None or self.answer.model_called or self.gate.grade is not None

    def to_dict(self) -> dict:
        body = self.answer.to_dict() if self.answer is not None else {
            "question": self.question, "refused": True, "gate_refused": False, "answer": "",
            "threshold": self.gate.threshold, "k": self.gate.k, "model_called": True, "reason": self.gate.reason,
            "hits": [h.to_dict() for h in self.gate.candidates], "problems": [], "knobs": self.gate.knobs.to_dict()}
        return {**body, "outcome": self.kind,
                **({"failure": {"kind": self.failure.kind, "message": self.failure.message}} if self.failure else {}),
                **({"usage": {"prompt_tokens": self.usage.prompt_tokens,
                              "completion_tokens": self.usage.completion_tokens, "ms": self.usage.ms}}
                   if self.usage else {}),
                "reused": self._reused_dict()}

    def _reused_dict(self) -> dict | None:
        """`xiaoe ask --json`'s "reused": the approved answer served and the guards it passed (None if none),
        with the near misses and the guard that stopped each."""
        if self.reuse is None:
            return None
        data = self.reuse.to_dict()
        served = self.reuse.served
        if served is None:
            return {"id": None, "guards": [], "near": data["near"], "threshold": data["threshold"]}
        return {"id": served.answer.id, "version": served.answer.version, "approver": served.answer.approver,
                "approved_at": served.answer.approved_at.isoformat(), "uses": served.answer.uses,
                "similarity": served.similarity, "linked_wording": served.wording or None,
                "guards": data["served"]["passed"], "near": data["near"], "threshold": data["threshold"]}
