"""After a corpus save: re-run the questions a fix was for through the one gate, and record what fixed them.

`recheck` asks `Assistant.gate` on a fresh retrieval of each question (no model is called), so "现在可答"
means exactly what the Ask page would do now. `verify_topic` stores the re-check with the topic (which closes
when every question passes, core.stores.gaps.GapStore.record_check); when it closes, the corpus version goes
into the history of every queue item of the topic (core.stores.review.ReviewStore.record_fixes). Until then
the items stay on the board, so a topic half fixed keeps all its questions and its 「x/y 题现在可答」.
`verify_item` does the same for a single queue item opened from the review page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.stores.gaps import GapStore, GapTopic, QuestionCheck
from core.stores.review import ReviewStore
from core.stores.review_marks import question_hash
from core.stores.roles import Authorize

if TYPE_CHECKING:
    from core.assistant import Assistant


@dataclass(frozen=True)
class FixResult:
    """What a re-check found and recorded: each question's new decision, the items closed, the topic after."""

    checks: tuple[QuestionCheck, ...]
    fixed_items: tuple[int, ...]
    topic: GapTopic | None = None

    @property
    def passed(self) -> int:
        return sum(c.answerable for c in self.checks)

    @property
    def line(self) -> str:
        """「2/3 题现在可答」"""
        return f"{self.passed}/{len(self.checks)} 题现在可答"


def recheck(assistant: Assistant, questions: Sequence[str]) -> tuple[QuestionCheck, ...]:
    """Each question through the gate at the knobs in force, on a fresh retrieval; the reason the gate gives."""
    found = []
    for question in questions:
        gate = assistant.gate(assistant.retrieve(question))
        reason = gate.reason if gate.refused or gate.decision is None else gate.decision.reason
        found.append(QuestionCheck(question=question, answerable=not gate.refused, reason=reason))
    return tuple(found)


def version_note(source: str, version: int | None, fingerprint: str) -> str:
    """「「01-口语课分级说明.md」第 3 版（资料指纹 ab12cd34）」: the corpus version a check ran on."""
    numbered = f"第 {version} 版" if version is not None else "当前版本"
    return f"「{source}」{numbered}（资料指纹 {fingerprint}）"


def verify_topic(assistant: Assistant, review: ReviewStore, gaps: GapStore, topic_id: int, *, note: str,
                 actor: str, authorize: Authorize | None = None) -> FixResult:
    """Re-check every question of a topic and store the result; when all pass, the topic closes and every queue
    item asking one of its questions records the fix."""
    topic = gaps.get(topic_id)
    checks = recheck(assistant, topic.questions)
    topic = gaps.record_check(topic_id, checks, fingerprint=assistant.fingerprint, version_note=note, actor=actor,
                              authorize=authorize)
    fixed = _record(review, set(topic.keys), note=note, actor=actor, authorize=authorize) if topic.closed else ()
    return FixResult(checks=checks, fixed_items=fixed, topic=topic)


def verify_item(assistant: Assistant, review: ReviewStore, item_id: int, *, note: str, actor: str,
                authorize: Authorize | None = None) -> FixResult:
    """Re-check one queue item's question; when it passes now, record the fix on every gap item asking it."""
    checks = recheck(assistant, [review.get(item_id).question])
    passing = {question_hash(c.question) for c in checks if c.answerable}
    return FixResult(checks=checks, fixed_items=_record(review, passing, note=note, actor=actor, authorize=authorize))


def _record(review: ReviewStore, keys: set[str], *, note: str, actor: str,
            authorize: Authorize | None) -> tuple[int, ...]:
    ids = [item.id for item in review.iter_gap_items() if question_hash(item.question) in keys]
    if not ids:
        return ()
    return tuple(review.record_fixes(ids, actor=actor, detail=f"{note}补充后，闸门判定可答", authorize=authorize))
