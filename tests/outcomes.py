"""Build the one Outcome the queue records from a hand-made RAGAnswer (tests that start from an answer)."""

from __future__ import annotations

from core.knobs import calibrated
from core.values import Gate, Outcome, RAGAnswer


def outcome_of(answer: RAGAnswer, fingerprint: str = "") -> Outcome:
    """The outcome an Assistant would have returned for `answer`: the gate it was decided under, then it."""
    knobs = answer.knobs or calibrated().with_(threshold=answer.threshold, k=answer.k)
    gate = Gate(answer.question, tuple(answer.candidates), knobs, refused=answer.refused and not answer.model_called,
                reason=answer.reason, decision=answer.decision, grade=answer.grade)
    return Outcome(gate, answer=answer, fingerprint=fingerprint)
