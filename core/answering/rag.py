"""The values a question travels as (Hit, Gate, RAGAnswer) and the steps that need no composition.

`retrieve` scores a question against an index; `finish` runs every check on a model's text and
builds the answer, which carries its citation and grounding reports so that no view computes
them again. The chain itself (retrieve → gate → answer → check) is composed in exactly one
place, core.assistant; nothing here decides whether to answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel

from core.answering.model_errors import as_model_error
from core.answering.offline import OfflineAnswerer
from core.answering.prompts import build_messages
from core.checks.citations import renumber, reorder
from core.checks.grounding import GroundingReport, check_grounding
from core.checks.problems import Problem
from core.checks.references import RefReport, check_refs
from core.errors import InvalidQuestion, ModelError
from core.knobs import Knobs
from core.retrieval.index import SearchIndex, search_with_score
from core.settings import MAX_QUESTION_CHARS, MAX_TOP_K, REFUSAL_TEXT

if TYPE_CHECKING:  # core.answerability.decision and core.answering.grader import Hit and Gate from here
    from core.answerability.decision import Decision
    from core.answering.grader import Grade


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
    value: float | None = None  # the ranking score; the retrieval score when nothing reranked

    def __post_init__(self) -> None:
        if self.value is None:
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
                **({} if self.coverage is None else {"coverage": self.coverage})}


@dataclass(frozen=True)
class Gate:
    """The decision taken before any model call: which kept candidates pass, and why it refuses if it does."""

    question: str
    candidates: tuple[Hit, ...]  # the first k ranked candidates, `passed` marked
    knobs: Knobs
    refused: bool
    reason: str
    decision: Decision | None = None  # None when the answerability decision is off
    grade: Grade | None = None  # the grader's verdict (core.answering.grader) for a question in the uncertain band

    @property
    def hits(self) -> tuple[Hit, ...]:
        return tuple(h for h in self.candidates if h.passed)

    @property
    def threshold(self) -> float:
        return self.knobs.threshold

    @property
    def k(self) -> int:
        return self.knobs.k


@dataclass(frozen=True)
class RAGAnswer:
    """Everything a caller needs to show, check or queue one answer."""

    question: str
    text: str
    hits: tuple[Hit, ...]
    candidates: tuple[Hit, ...]
    threshold: float
    k: int
    refused: bool
    model_called: bool
    problems: tuple[Problem, ...] = ()
    reason: str = ""
    knobs: Knobs | None = None
    decision: Decision | None = None
    citations: RefReport | None = None  # the checks' reports, rendered as they are (never recomputed)
    grounding: GroundingReport | None = None
    grade: Grade | None = None  # set when the grader (core.answering.grader) judged this question

    @property
    def flagged(self) -> bool:
        """True when a check found a problem: the text must not be shown to a student as final."""
        return bool(self.problems)

    @property
    def gate_refused(self) -> bool:
        """The gate refused before any model call (as `eval` reports); `refused` also counts a model
        that answered with the refusal sentence itself."""
        return self.refused and not self.model_called

    @property
    def best_score(self) -> float:
        return max((h.score for h in self.candidates), default=0.0)

    def to_dict(self) -> dict:
        return {"question": self.question, "refused": self.refused, "gate_refused": self.gate_refused,
                "answer": self.text,
                "threshold": self.threshold, "k": self.k, "model_called": self.model_called,
                "reason": self.reason, "hits": [h.to_dict() for h in self.candidates],
                "problems": [p.to_dict() for p in self.problems],
                **({"knobs": self.knobs.to_dict()} if self.knobs else {}),
                **({"grade": self.grade.to_dict()} if self.grade else {})}


def validate_question(question: str, max_chars: int = MAX_QUESTION_CHARS) -> str:
    """The stripped question, or InvalidQuestion with a message saying what to do."""
    if question is not None and not isinstance(question, str):
        raise InvalidQuestion(f"问题必须是文字（str），收到的是 {type(question).__name__}；"
                              "如果是字节串，请先按 UTF-8 解码成文字再提问。")
    text = (question or "").strip()
    if not text:
        raise InvalidQuestion("问题是空的，请先输入学员的问题再提交。")
    if len(text) > max_chars:
        raise InvalidQuestion(f"问题有 {len(text)} 个字，超过了 {max_chars} 字的上限，请删减到 {max_chars} 字以内再提交。")
    return text


def retrieve(question: str, index: SearchIndex, k: int = MAX_TOP_K) -> tuple[Hit, ...]:
    """Score the question once for the largest k; threshold and k are applied later by `select`."""
    hits = []
    for rank, (doc, score) in enumerate(search_with_score(index, question, k), start=1):
        meta = doc.metadata
        hits.append(Hit(rank=rank, source=meta.get("source", ""), heading=meta.get("heading", ""),
                        chunk=int(meta.get("chunk", 0)), start=int(meta.get("start", 0)),
                        end=int(meta.get("end", 0)), text=doc.page_content, score=score))
    return tuple(hits)


def apart(value: float, bound: float, *, percent: bool = False) -> str:
    """`value` with as many decimals as it takes (up to 4) to differ on the page from `bound` shown at its usual
    precision: 0.0496 against 0.05 shows as 0.0496 and a coverage of 0.6667 against 67% as 66.7%, never as
    「0.05 低于阈值 0.05」 or 「67% < 67%」. Bounds are grid values, so only a tie on the page needs more digits."""
    scale, digits = (100, 0) if percent else (1, 2)
    while digits < 4 and value != bound and round(value * scale, digits) == round(bound * scale, digits):
        digits += 1
    return f"{value * scale:.{digits}f}%" if percent else f"{value:.{digits}f}"


def below_threshold(best: float, threshold: float) -> str:
    """「最高排序分 0.04 低于阈值 0.05」, the two numbers never equal on the page."""
    return f"最高排序分 {apart(best, threshold)} 低于阈值 {threshold:.2f}"


def refusal(gate: Gate) -> RAGAnswer:
    return RAGAnswer(question=gate.question, text=REFUSAL_TEXT, hits=(), candidates=gate.candidates,
                     threshold=gate.threshold, k=gate.k, refused=True, model_called=False, reason=gate.reason,
                     knobs=gate.knobs, decision=gate.decision, grade=gate.grade)


def stream_text(gate: Gate, llm: BaseChatModel | None = None) -> Iterator[str]:
    """Stream the model's answer for a passing gate (raises ModelError on any failure)."""
    model = llm or OfflineAnswerer()
    messages = build_messages(gate.question, [h.document for h in gate.hits])
    # The offline answerer also reads the decision's keywords (glossary forms included); a real
    # model gets only the prompt.
    extra = {"keywords": gate.decision.terms} if gate.decision and isinstance(model, OfflineAnswerer) else {}
    try:
        for chunk in model.stream(messages, **extra):
            yield str(chunk.content)
    except ModelError:
        raise
    except Exception as error:  # noqa: BLE001 - every provider failure becomes a ModelError
        raise as_model_error(error) from error


def finish(gate: Gate, text: str) -> RAGAnswer:
    """Number the citations in order of first appearance, run every check on the whole text and
    build the answer with its reports. The references keep the order the model saw them in,
    rearranged the same way as the numbers, so [n] always names the same chunk."""
    text = text.strip()
    if not text:
        raise ModelError("模型返回了空回答，本次没有生成回答，问题已记录，请重试或转人工。", kind="empty_answer")
    text, order = renumber(text, len(gate.hits))
    hits = reorder(gate.hits, order)
    docs = [h.document for h in hits]
    model_refused = text == REFUSAL_TEXT
    citations = check_refs(text, docs, require=not model_refused)
    grounding = None if model_refused else check_grounding(text, docs, gate.question)
    problems = (*citations.problems, *(grounding.problems if grounding else ()))
    return RAGAnswer(question=gate.question, text=text, hits=hits, candidates=gate.candidates,
                     threshold=gate.threshold, k=gate.k, refused=model_refused, model_called=True,
                     problems=tuple(problems), reason="模型认为参考资料不足以回答" if model_refused else gate.reason,
                     knobs=gate.knobs, decision=gate.decision, citations=citations, grounding=grounding,
                     grade=gate.grade)
