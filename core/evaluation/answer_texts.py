"""Does the answer itself state the labelled fact? The answers a labelled set gets, read for their key phrase.

The gate's metrics (core.evaluation.metrics) count a question 正确回答 when a passing chunk holds the fact; a student
reads the answer, not the chunk. Here every answerable question the gate (or an approved answer) answers is answered
as the chain answers it — the offline answerer unless `eval --with-model` — and counted when the answer's text holds
the key phrase (any of its `|` wordings; a row without one counts when its outcome is 正确回答). Writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.assistant import Assistant
from core.evaluation.metrics import CORRECT_ANSWER, Evaluation
from core.sets.format import holds_key_phrase


@dataclass(frozen=True)
class AnswerTexts:
    """Per question (in set order) the answer's text ("" when refused) and whether it states the labelled fact."""

    texts: tuple[str, ...]
    stated: tuple[bool, ...]
    answerable: int

    @property
    def count(self) -> int:
        return sum(self.stated)


def answer_texts(assistant: Assistant, evaluation: Evaluation, reused: dict[int, str] | None = None) -> AnswerTexts:
    """The answers of `evaluation`'s questions and whether each states its fact; `reused` gives the text of the
    approved answer served to a question (by position), which stands for the chain's answer."""
    reused = reused or {}
    texts: list[str] = []
    stated: list[bool] = []
    evaluated = evaluation.evaluated
    for i, (question, gate, outcome) in enumerate(zip(evaluated.questions, evaluation.gates, evaluation.outcomes)):
        if question.should_refuse or (gate.refused and i not in reused):
            texts.append("")
            stated.append(False)
            continue
        text = reused[i] if i in reused else assistant.answer(gate).text
        texts.append(text)
        stated.append(holds_key_phrase(text, question.key_phrase) if question.key_phrase
                      else outcome == CORRECT_ANSWER)
    answerable = sum(1 for q in evaluated.questions if not q.should_refuse)
    return AnswerTexts(tuple(texts), tuple(stated), answerable)
