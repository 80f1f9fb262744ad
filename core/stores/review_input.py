"""Validation of what goes into the review queue: bounds, names, origins and decisions.

Every message names the value and the limit, in Chinese, so a consultant knows what to change.
Answers have no length limit: a runaway answer is exactly what a reviewer must see (the page
shows a preview). Text a database cannot store (lone surrogates anywhere, NUL on PostgreSQL) is
replaced by a visible U+FFFD and the item gets a `text_repaired` reason, so it is never lost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.errors import InvalidQuestion, InvalidReview
from core.settings import MAX_QUESTION_CHARS
from core.stores.review_schema import (
    MAX_CORRECTED_CHARS,
    MAX_NAME_CHARS,
    MAX_NOTE_CHARS,
    MAX_TOPIC_CHARS,
    ORIGINS,
    TRANSITIONS,
)
from core.values import FAILED, JUDGED, GroundingReport, Hit, Outcome, Problem, RAGAnswer


@dataclass(frozen=True)
class Entry:
    """One item about to be inserted, already validated."""

    question: str
    answer: str
    origin: str
    reasons: tuple[Problem, ...]
    threshold: float | None
    k: int | None
    candidates: tuple[Hit, ...]
    fingerprint: str
    flagged_by: str | None
    grounding: GroundingReport | None = None  # the sentence verdicts the checks gave, stored with the item


@dataclass(frozen=True)
class ReviewDecision:
    """A validated approve / reject / reopen, before it meets the database."""

    action: str
    reviewer: str
    note: str | None
    corrected_answer: str | None
    add_reason: Problem | None = None
    topic: str | None = None  # 「预期拒答」 only: the topic a consultant gave it (optional)

    @classmethod
    def build(cls, action: str, reviewer: str, note: str | None, corrected_answer: str | None,
              add_reason: Problem | None = None, *, topic: str | None = None) -> ReviewDecision:
        if action not in TRANSITIONS:
            raise InvalidReview(f"操作「{action}」不存在，可选：approve（通过）、reject（驳回）、reopen（重新打开）、"
                                "expect（预期拒答）。")
        who = person_name(reviewer, "复核人")
        if who is None:
            raise InvalidReview("请先填写复核人姓名，再通过或驳回。")
        note = bounded(note, MAX_NOTE_CHARS, "备注")
        if action == "reject" and not note:
            raise InvalidReview("驳回必须写明理由：请在备注里说明这条回答错在哪里。")
        # None keeps the stored correction; an empty text clears it.
        corrected = None if corrected_answer is None else (
            bounded(corrected_answer, MAX_CORRECTED_CHARS, "修改后的回答") or "")
        if add_reason is not None:
            bounded(add_reason.message, MAX_NOTE_CHARS, "新增的问题说明")
        if topic is not None and action != "expect":
            raise InvalidReview("只有「预期拒答」可以填话题。")
        return cls(action, who, note, corrected, add_reason, bounded(topic, MAX_TOPIC_CHARS, "话题"))


def entry_from_answer(answer: RAGAnswer, *, origin: str, fingerprint: str, flagged_by: str | None,
                      extra_reasons: Sequence[Problem]) -> Entry:
    """The answer's problems (after a refusal reason, if refused) become the item's reasons."""
    found = list(answer.problems) + list(extra_reasons)
    if answer.grade is not None:  # the refusal reason below already carries a refusing verdict
        g = answer.grade
        found.insert(0, Problem("grader", f"模型判定{g.cost()}" if answer.refused else f"{g.describe()}；{g.cost()}"))
    if answer.refused:  # the gate's own code when one rule alone refused (资料没写问的内容), else 拒答
        found.insert(0, Problem(answer.reason_code or "refused", answer.reason or "模型认为参考资料不足以回答"))
    entry = validated(question=answer.question, answer=answer.text, origin=origin, reasons=tuple(found),
                      threshold=answer.threshold, k=answer.k, candidates=tuple(answer.candidates),
                      fingerprint=fingerprint, flagged_by=flagged_by)
    return replace(entry, grounding=answer.grounding) if answer.grounding is not None and not repaired(entry) else entry


def route(outcome: Outcome, *, batch: Problem | None = None, batch_run: bool = False) -> tuple[str, bool] | None:
    """(origin lane, whether a repeat joins the pending item) for an outcome a consultant must see, else None.

    A model failure goes to 模型故障, an answer on the grader's yes to 模型判定可答 (always, until a consultant
    approves it), a refusal to 拒答, an answer a check flagged to 自动标记. In a batch run a refusal or a clean
    answer is queued only when it contradicts the label (`batch`), and such an item keeps the run's verdict
    (it is not merged into an earlier item).
    """
    if outcome.kind == FAILED:
        return "model_error", True
    if outcome.kind == JUDGED:
        return "grader", False
    if batch is not None:
        return ("refusal" if outcome.refused else "auto"), False
    if outcome.refused:
        return (None if batch_run else ("refusal", True))
    if outcome.reused is not None and not outcome.problems:  # approved already: not queued again
        return None
    if outcome.problems:
        return "auto", True
    return None


def entry_from_outcome(outcome: Outcome, *, origin: str, extra_reasons: Sequence[Problem] = ()) -> Entry:
    """The item an outcome becomes: the answer's reasons, or for a model failure the failure with the
    question's candidates (so a reviewer sees what the model would have read)."""
    if outcome.answer is not None:
        return entry_from_answer(outcome.answer, origin=origin, fingerprint=outcome.fingerprint, flagged_by=None,
                                 extra_reasons=extra_reasons)
    gate, failure = outcome.gate, outcome.failure
    assert failure is not None  # an Outcome has exactly one of answer and failure
    return validated(question=gate.question, answer="", origin=origin,
                     reasons=(Problem(failure.kind, failure.message), *extra_reasons),
                     threshold=gate.threshold, k=gate.k, candidates=tuple(gate.candidates),
                     fingerprint=outcome.fingerprint, flagged_by=None)


def validated(*, question: str, answer: str, origin: str, reasons: tuple[Problem, ...],
              threshold: float | None, k: int | None, candidates: tuple[Hit, ...], fingerprint: str,
              flagged_by: str | None) -> Entry:
    if question is not None and not isinstance(question, str):
        raise InvalidQuestion(f"问题必须是文字（str），收到的是 {type(question).__name__}，无法放进复核队列。")
    repaired = Repairs()
    question = repaired(question or "").strip()
    if not question:
        raise InvalidQuestion("问题是空的，无法放进复核队列。")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidQuestion(f"问题有 {len(question)} 个字，超过了 {MAX_QUESTION_CHARS} 字的上限，"
                              f"请删减到 {MAX_QUESTION_CHARS} 字以内。")
    answer = repaired(str(answer or ""))
    if origin not in ORIGINS:
        raise InvalidReview(f"来源「{origin}」不存在，可选：{'、'.join(ORIGINS)}。")
    flagged_by = person_name(repaired(flagged_by or ""), "标记人")
    if origin == "manual" and not flagged_by:
        raise InvalidReview("人工标记需要填写标记人姓名。")
    reasons = tuple(replace(p, message=repaired(p.message)) for p in reasons)
    candidates = tuple(replace(h, source=repaired(h.source), heading=repaired(h.heading), text=repaired(h.text))
                       for h in candidates)
    if repaired.count:
        reasons += (Problem("text_repaired", f"问题、回答或片段里有 {repaired.count} 个无法保存的字符"
                                             "（单独的代理字符或 NUL），已替换为 �。"),)
    return Entry(question, answer, origin, reasons, threshold, k, candidates, repaired(fingerprint or ""),
                 flagged_by)


def repaired(entry: Entry) -> bool:
    """True when unstorable characters were replaced: the stored text's offsets no longer match a report."""
    return any(p.code == "text_repaired" for p in entry.reasons)


# Lone surrogates cannot be encoded as UTF-8 (SQLite and PostgreSQL both refuse them); PostgreSQL
# text cannot hold NUL. Each becomes U+FFFD, which a reviewer sees.
UNSTORABLE = re.compile("[\ud800-\udfff\x00]")
REPLACEMENT = "\ufffd"


class Repairs:
    """Replaces unstorable characters and counts how many it replaced."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, text: str) -> str:
        fixed, n = UNSTORABLE.subn(REPLACEMENT, text)
        self.count += n
        return fixed


def bounded(value: str | None, limit: int, what: str) -> str | None:
    value = (value or "").strip()
    if len(value) > limit:
        raise InvalidReview(f"{what}有 {len(value)} 个字，超过了 {limit} 字的上限，请删减到 {limit} 字以内。")
    return value or None


def person_name(value: str | None, what: str) -> str | None:
    value = " ".join((value or "").split())
    if len(value) > MAX_NAME_CHARS:
        raise InvalidReview(f"{what}姓名有 {len(value)} 个字，超过了 {MAX_NAME_CHARS} 字的上限。")
    return value or None
