"""What one question is retrieved as: the chunks (Hit), the question's weighted words (Term), and the
knob-free measures of every passing prefix (Measures), gathered in a Retrieval."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.documents import Document

# The default of Hit.value, told apart by identity: a Hit built without a ranking score ranks by its retrieval score.
_FROM_SCORE = float("nan")


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk: its retrieval score, its ranking score (`value`, what the threshold is
    compared with and what the chart draws) and whether it passed the gate."""

    rank: int
    source: str
    heading: str
    chunk: int
    start: int
    end: int
    text: str
    score: float
    passed: bool = False
    coverage: float | None = None  # this chunk's own keyword coverage, set by the ranking step
    value: float = _FROM_SCORE  # the ranking score; the retrieval score when nothing reranked
    # whether it holds a sentence carrying what is asked, when the rule asked_rank reordered by it (False: its
    # ranking score was halved); None when nothing was reordered
    asked: bool | None = None

    def __post_init__(self) -> None:
        if self.value is _FROM_SCORE or self.value is None:
            object.__setattr__(self, "value", self.score)

    @property
    def document(self) -> Document:
        return Document(page_content=self.text, metadata={
            "source": self.source, "heading": self.heading, "chunk": self.chunk,
            "start": self.start, "end": self.end})

    def to_dict(self) -> dict:
        return {"rank": self.rank, "source": self.source, "heading": self.heading, "chunk": self.chunk,
                "start": self.start, "end": self.end, "score": round(self.score, 6),
                "value": round(self.value, 6), "passed": self.passed, "text": self.text,
                **({} if self.coverage is None else {"coverage": self.coverage}),
                **({} if self.asked is None else {"asked": self.asked})}


@dataclass(frozen=True)
class Term:
    """One content word of a question: its weight, and every form that counts as finding it.

    `forms` is the word itself followed by the canonical terms the glossary maps it to;
    `known` says whether any form occurs anywhere in the corpus; `specificity` (0..1] is how rare
    its rarest known form is across the corpus's chunks (1 for a word the corpus never uses): the
    offline answerer weighs keywords by it (core.answering.offline), the gate no longer does; `typed` is what the
    student typed when a rule read it as `text` (homophones: 学废 read as 学费).
    """

    text: str
    weight: float
    forms: tuple[str, ...]
    known: bool
    via_glossary: bool = False
    is_number: bool = False
    specificity: float = 1.0
    typed: str = ""  # what the student typed, when a rule read it as `text` (学废 read as 学费)


@dataclass(frozen=True)
class Measures:
    """What one set of passing chunks holds of a question's terms; no knob is involved."""

    passing: int  # how many chunks (a prefix of the ranked candidates) these measures are for
    coverage: float
    heaviest_unknown: float
    unknown: tuple[Term, ...]  # absent from the corpus and from the passing chunks, heaviest first
    uncovered: tuple[Term, ...]  # not found in the passing chunks, heaviest first
    carrying: tuple[str, ...]
    # What the question asks that a sentence must carry (core.answerability.asked): the kinds (amount, year),
    # and, when no passing sentence carries one about the question's subject, the first such kind and the reason
    # (「资料里没有写“成立年份”」); all empty when the question asks nothing a sentence's form shows, or the rule is off.
    asked: tuple[str, ...] = ()
    asked_missing: str = ""
    asked_reason: str = ""


@dataclass(frozen=True)
class Retrieval:
    """One question retrieved once for the largest k and ranked; knob-free.

    `measures[j]` describes the first j candidates as passing chunks (j = 0 … len(candidates));
    it is empty when the answerability decision is off.
    """

    question: str
    candidates: tuple[Hit, ...]
    terms: tuple[Term, ...] = ()
    context: tuple[str, ...] = ()
    measures: tuple[Measures, ...] = ()

    @property
    def decides(self) -> bool:
        """True when the answerability decision takes part (XIAOE_ANSWERABILITY=on)."""
        return bool(self.measures)


