"""The values of a conversation's context: a turn as it is remembered (its standalone question, the student's case
figures and the decision — never the raw text) and the standalone question a new message became."""

from __future__ import annotations

from dataclasses import dataclass

# How a message was read in its conversation (`Standalone.kind`).
FIRST, FOLLOW_UP, TOPIC_SWITCH, AFTER_REFUSAL, COURTESY, OWN_QUESTION = (
    "first", "follow_up", "topic_switch", "after_refusal", "courtesy", "own_question")
KIND_LABELS = {FIRST: "第一句", FOLLOW_UP: "追问（已改写）", TOPIC_SWITCH: "换了话题（原样）",
               AFTER_REFUSAL: "上一句拒答了（不带上文）", COURTESY: "客气话（原样）", OWN_QUESTION: "新问题（原样）"}


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of the conversation as the context keeps it."""

    standalone: str  # the question the gate and the answer used (masked)
    refused: bool  # refused, or answered by no one (nothing is carried over from it)
    message_id: str = ""
    decision: str = ""  # answered / held / refused / handed_off
    case: tuple[tuple[str, str], ...] = ()  # the student's case figures read from it: (kind, values)
    # its answer's sentences, each as the documents' words it used (core.conversations.answered: no figure, no word
    # the documents lack): what a follow-up may ask about next (「是原路退吗」 after a refund's timeline)
    answer_words: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Standalone:
    """A student's message read in its conversation: the question everything downstream uses, and how it came."""

    message: str  # the student's words (masked)
    question: str  # the standalone question
    kind: str = FIRST
    rules: tuple[str, ...] = ()  # the rewrite rules that changed it, in order
    derived_from: str = ""  # the message id of the turn it was derived from ("" when not rewritten)

    @property
    def rewritten(self) -> bool:
        return self.question != self.message
