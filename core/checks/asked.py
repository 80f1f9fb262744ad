"""Check that a model's answer carries what the question asked: `off_question` (答非所问).

The gate already made sure a passing sentence states what is asked (core.answerability.asked); a model may still
answer beside it — 「启明英语是哪一年成立的」 answered with 「小E 是启明英语的助教[1]。」, every citation right. When the
question asks for kinds a sentence's form can show (an amount, a duration, a year …: core.case.asked) and no
sentence of the answer states any of them, the answer is flagged and queued in the lane 答非所问. The offline
answerer chooses only sentences that carry what is asked (core.answering.choose), so it is checked only when a model
wrote the text (core.answering.rag.finish). Left out: whether the amount stated is the right one (the grounding and
arithmetic checks) and whether it is about the question's subject.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.case.asked import asked_kind, states
from core.language.citations import CITATION_RE
from core.settings import REFUSAL_TEXT
from core.values import Problem

OFF_QUESTION = "off_question"


def off_question(text: str, kinds: Sequence[str]) -> Problem | None:
    """The off_question problem when `text` states none of `kinds` (the kinds the gate required: Decision.asked);
    None when it states one, when nothing was required, or when the text is the refusal."""
    plain = CITATION_RE.sub("", text or "")
    if not kinds or not plain.strip() or plain.strip() == REFUSAL_TEXT:
        return None
    if any(states(plain, kind) for kind in kinds):
        return None
    labels = "、".join(asked_kind(kind).label_zh for kind in kinds)
    return Problem(OFF_QUESTION, f"问题问的是{labels}，回答里没有写出{labels}：请核对它有没有回答学员问的事")
