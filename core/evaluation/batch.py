"""Batch run: every question of a set through the Assistant (gate, configured model, checks), one at a time.

Unlike `python -m core eval` (the gate only), this generates the answer with the configured chat
model, so the answer text and its checks are included. `run_one` handles one question so a
caller can stop between questions (the tuning page's cancel button) and resume from where it
stopped. Answers with a problem — a failed check, or an outcome other than 正确回答/正确拒答 —
are recorded in the review queue the way every entry point records them (`ReviewStore.record`): a wrong
outcome carries its eval_wrong_* reason and shows in the lane 批量评测.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.cells import csv_bytes
from core.evaluation.metrics import (
    CORRECT_ANSWER,
    CORRECT_REFUSAL,
    FALSE_ANSWER,
    FALSE_REFUSAL,
    GOOD_OUTCOMES,
    WRONG_SOURCE,
    holds_fact,
)
from core.knobs import Knobs
from core.sets.format import LabelledQuestion
from core.stores.review import ReviewStore
from core.values import Outcome, Problem

MODEL_FAILED = "模型故障"
CSV_COLUMNS = ("行号", "问题", "预期", "结果", "是否拒答", "回答", "问题标记", "最高分", "模型判定", "复核条目")


@dataclass(frozen=True)
class BatchRow:
    """The outcome of one question in a batch run."""

    line: int
    question: str
    expectation: str
    outcome: str
    refused: bool
    text: str
    problems: tuple[Problem, ...]
    best_score: float
    queued_id: int | None = None
    grade: str = ""  # the grader's verdict and cost when the question was in the uncertain band
    reason: str = ""  # the decision's reason (the gate's, or the grader's / reuse's when they decided)
    top_hit: str = ""  # 「文件 · 小节」 of the first candidate

    def to_dict(self) -> dict:
        return {"行号": self.line, "问题": self.question, "预期": self.expectation, "结果": self.outcome,
                "是否拒答": "是" if self.refused else "否", "回答": self.text,
                "问题标记": "；".join(p.message for p in self.problems), "最高分": round(self.best_score, 4),
                "模型判定": self.grade, "复核条目": self.queued_id}


def answer_outcome(question: LabelledQuestion, outcome: Outcome) -> str:
    """The label of an actual outcome against the set's expectation (a refusal by the model counts as a
    refusal; a model failure is 模型故障)."""
    result = outcome.answer
    if result is None:  # the model failed (an Outcome has exactly one of answer and failure)
        return MODEL_FAILED
    if question.should_refuse:
        return CORRECT_REFUSAL if result.refused else FALSE_ANSWER
    if result.refused:
        return FALSE_REFUSAL
    return CORRECT_ANSWER if any(holds_fact(question, h) for h in result.hits) else WRONG_SOURCE


def outcome_problem(question: LabelledQuestion, outcome: str) -> Problem | None:
    """The review reason for a wrong outcome, None for a correct one (or a model failure, its own reason)."""
    if outcome in GOOD_OUTCOMES or outcome == MODEL_FAILED:
        return None
    messages = {
        FALSE_REFUSAL: f"批量评测：预期由「{question.expectation}」回答，小E 却拒答了（误拒）",
        FALSE_ANSWER: "批量评测：这道题资料里没有答案、预期应拒答，小E 却作答了（误答）",
        WRONG_SOURCE: f"批量评测：作答所用的片段里没有预期的「{question.expectation}」（命中错误资料）",
    }
    codes = {FALSE_REFUSAL: "eval_wrong_refusal", FALSE_ANSWER: "eval_wrong_answer", WRONG_SOURCE: "eval_wrong_source"}
    return Problem(codes[outcome], messages[outcome])


def run_one(question: LabelledQuestion, assistant, *, knobs: Knobs | None = None,
            queue: ReviewStore | None = None, flagged_by: str | None = None) -> BatchRow:
    """Answer one question through `assistant` (core.assistant.Assistant, with its configured model)
    at `knobs` (default: the assistant's), judge it against its label, and record the outcome in the
    queue the way every entry point does (`ReviewStore.record`, as a batch run)."""
    outcome = assistant.respond(question.question, knobs)
    label = answer_outcome(question, outcome)
    extra = outcome_problem(question, label)
    top = outcome.gate.candidates[0] if outcome.gate.candidates else None
    top_hit = f"{top.source} · {top.heading}" if top else ""
    queued = queue.record(outcome, asker=flagged_by, batch=extra, batch_run=True) if queue is not None else None
    if outcome.failure is not None:
        return BatchRow(line=question.line, question=question.question, expectation=question.expectation,
                        outcome=MODEL_FAILED, refused=True, text="",
                        problems=(Problem(outcome.failure.kind, outcome.failure.message),),
                        best_score=max((h.score for h in outcome.candidates), default=0.0), queued_id=queued,
                        reason=outcome.failure.message, top_hit=top_hit)
    result = outcome.answer
    return BatchRow(line=question.line, question=question.question, expectation=question.expectation,
                    outcome=label, refused=result.refused, text=result.text,
                    problems=tuple(result.problems) + ((extra,) if extra else ()),
                    best_score=result.best_score, queued_id=queued,
                    grade=f"{result.grade.describe()}；{result.grade.cost()}" if result.grade else "",
                    reason=result.reason, top_hit=top_hit)


def rows_to_csv(rows: Iterable[dict]) -> bytes:
    """Batch results (BatchRow.to_dict() rows) as CSV with a BOM so Excel opens the Chinese text, through the
    formula-safe writer: a student's 「=HYPERLINK(…)」 or a model's ESC never reaches a spreadsheet as is."""
    return csv_bytes(CSV_COLUMNS, ([row.get(column, "") for column in CSV_COLUMNS] for row in rows))
