"""Build the one Outcome the queue records from a hand-made RAGAnswer (tests that start from an answer)."""

from __future__ import annotations

from core.knobs import calibrated
from core.values import Failure, Gate, Outcome, RAGAnswer


def outcome_of(answer: RAGAnswer, fingerprint: str = "") -> Outcome:
    """The outcome an Assistant would have returned for `answer`: the gate it was decided under, then it."""
    knobs = answer.knobs or calibrated().with_(threshold=answer.threshold, k=answer.k)
    gate = Gate(answer.question, tuple(answer.candidates), knobs, refused=answer.refused and not answer.model_called,
                reason=answer.reason, decision=answer.decision, grade=answer.grade)
    return Outcome(gate, answer=answer, fingerprint=fingerprint)


def failure_outcome(question: str, *, message: str, kind: str = "model_error", candidates=(), threshold: float = 0.2,
                    k: int = 3, fingerprint: str = "") -> Outcome:
    """The outcome of a question whose model call failed after the gate let it through."""
    gate = Gate(question, tuple(candidates), calibrated().with_(threshold=threshold, k=k), refused=False, reason="")
    return Outcome(gate, failure=Failure(kind, message), fingerprint=fingerprint)
