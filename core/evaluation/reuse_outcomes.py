"""A labelled set's outcomes with approved answers reused, as the Ask page and `xiaoe ask` would answer.

`eval` measures the gate; with reuse on (the default when approved answers exist) a question an approved answer
passes every guard for (core.reuse.guards) is answered by it: 正确回答 when a chunk it cites holds the labelled
fact, 命中错误资料 when none does, 误答 when the question should be refused. `--no-reuse` (XIAOE_REUSE=off)
measures the gate alone, which is what calibration and the blind sets use.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.answerability.gate import decide
from core.assistant import Assistant
from core.evaluation.metrics import (
    CORRECT_ANSWER,
    FALSE_ANSWER,
    OUTCOMES,
    WRONG_SOURCE,
    Evaluation,
    holds_fact,
    metrics_from_counts,
)
from core.retrieval.hashes import sha256_text


@dataclass(frozen=True)
class Reused:
    """Which questions (by position) an approved answer answered, and its id for each."""

    evaluation: Evaluation
    answers: dict[int, int]  # question position → approved answer id
    texts: dict[int, str] = field(default_factory=dict)  # question position → the approved answer's text


def with_reuse(assistant: Assistant, evaluation: Evaluation) -> Reused:
    """`evaluation` with every question an approved answer would answer counted as its outcome."""
    evaluated = evaluation.evaluated
    outcomes = list(evaluation.outcomes)
    answers: dict[int, int] = {}
    texts: dict[int, str] = {}
    for i, (question, retrieval) in enumerate(zip(evaluated.questions, evaluated.retrievals)):
        reuse = assistant.reuse(retrieval, decide(retrieval, evaluation.knobs))
        if reuse is None or reuse.served is None:
            continue
        approved = reuse.served.answer
        cited = {c.sha256 for c in approved.citations}
        hits = [h for h in retrieval.candidates if sha256_text(h.text) in cited]
        if question.should_refuse:
            outcomes[i] = FALSE_ANSWER
        else:
            outcomes[i] = CORRECT_ANSWER if any(holds_fact(question, h) for h in hits) else WRONG_SOURCE
        answers[i] = approved.id
        texts[i] = approved.text
    if not answers:
        return Reused(evaluation, answers)
    counts = [outcomes.count(o) for o in OUTCOMES]
    return Reused(replace(evaluation, outcomes=tuple(outcomes), metrics=metrics_from_counts(evaluation.knobs, counts)),
                  answers, texts)
