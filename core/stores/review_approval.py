"""What a review decision makes reusable: the text approved (the correction, when there is one), its citations
resolved to the item's chunks by content hash, and what the checks found in it.

Approving an answer, or approving / rejecting with a correction, approves a text; approving a refusal or a
model failure without a correction does not (a correct refusal is not an answer to serve). A correction with
problems needs the reviewer's second confirmation; an answer approved as it was queued stays one click, and
becomes reusable only when it passes the checks. Citations `[n]`
name the chunks the item offered (core.checks.approval.citable).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.checks.approval import check_text, citable
from core.retrieval.hashes import sha256_text
from core.settings import REFUSAL_TEXT
from core.stores.review_models import ReviewItem
from core.values import Citation, Problem

MAX_LISTED = 5


@dataclass(frozen=True)
class Approval:
    """The text to approve for an item, its citations, and the checks' problems (empty when it passed)."""

    question: str
    text: str
    citations: tuple[Citation, ...]
    problems: tuple[Problem, ...]
    fingerprint: str
    corrected: bool  # the text is the reviewer's correction (checked before it may be approved)

    @property
    def reusable(self) -> bool:
        """Whether approving makes it an approved answer without asking: it passed the checks."""
        return not self.problems

    def override(self) -> str:
        """What is recorded when the reviewer approves over the problems."""
        return "；".join(p.message for p in self.problems)

    def refusal(self) -> str:
        """The message that asks for the second click."""
        listed = "；".join(p.message for p in self.problems[:MAX_LISTED])
        more = f" 等 {len(self.problems)} 处" if len(self.problems) > MAX_LISTED else ""
        return (f"要通过的回答没有通过检查：{listed}{more}。请先修改；确认无误要仍然通过，"
                "请点「仍然通过」，这会记录在处理记录里。")

    def noted(self, note: str | None) -> str:
        """The decision's note with the override recorded in it."""
        head = f"越过检查通过：{self.override()}"
        return f"{note}（{head}）" if note else head


def approval_of(item: ReviewItem, action: str, corrected: str | None) -> Approval | None:
    """The Approval a decision on `item` makes, or None when it approves nothing reusable."""
    correction = (corrected if corrected is not None else item.corrected_answer) or ""
    if correction.strip():
        text = correction.strip()
    elif action == "approve" and item.answer.strip() and item.origin != "model_error" \
            and item.answer.strip() != REFUSAL_TEXT:
        text = item.answer.strip()
    else:
        return None
    problems, cited = check_text(text, item.candidates, item.question)
    hits = citable(item.candidates)
    citations = tuple(Citation(n, hits[n - 1].source, hits[n - 1].heading, hits[n - 1].chunk,
                               sha256_text(hits[n - 1].text)) for n in cited)
    return Approval(item.question, text, citations, tuple(problems), item.fingerprint, corrected=bool(correction.strip()))
