"""Answer a question from the corpus: retrieve, gate on the threshold, ask the model, check the answer.

The refusal gate runs before any model call: when no candidate reaches the threshold (>=),
the refusal sentence is returned and the model is never invoked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel

from core.errors import InvalidQuestion, ModelError
from core.grounding import check_grounding
from core.index import SearchIndex, search_with_score
from core.llm import OfflineAnswerer
from core.model_errors import as_model_error
from core.problems import Problem
from core.prompts import build_messages
from core.references import check_refs
from core.settings import DEFAULT_MIN_SCORE, DEFAULT_TOP_K, MAX_QUESTION_CHARS, MAX_TOP_K, REFUSAL_TEXT

if TYPE_CHECKING:  # core.answerability imports Hit from here
    from core.answerability import Decision


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with its score and whether it reached the threshold."""

    rank: int
    source: str
    heading: str
    chunk: int
    start: int
    end: int
    text: str
    score: float
    passed: bool = False
    coverage: float | None = None  # this chunk's own keyword coverage, set by a reranker


    @property
    def document(self) -> Document:
        return Document(page_content=self.text, metadata={
            "source": self.source, "heading": self.heading, "chunk": self.chunk,
            "start": self.start, "end": self.end})

    def to_dict(self) -> dict:
        return {"rank": self.rank, "source": self.source, "heading": self.heading, "chunk": self.chunk,
                "start": self.start, "end": self.end, "score": round(self.score, 6),
                "passed": self.passed, "text": self.text,
                **({} if self.coverage is None else {"coverage": self.coverage})}


@dataclass(frozen=True)
class Gate:
    """The decision taken before any model call: which candidates pass, and why it refuses if it does."""

    question: str
    candidates: tuple[Hit, ...]
    threshold: float
    k: int
    refused: bool
    reason: str
    decision: Decision | None = None  # set when select() was given a `decide` hook

    @property
    def hits(self) -> tuple[Hit, ...]:
        return tuple(h for h in self.candidates if h.passed)


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

    @property
    def flagged(self) -> bool:
        """True when a check found a problem: the text must not be shown to a student as final."""
        return bool(self.problems)

    @property
    def best_score(self) -> float:
        return max((h.score for h in self.candidates), default=0.0)

    def to_dict(self) -> dict:
        return {"question": self.question, "refused": self.refused, "answer": self.text,
                "threshold": self.threshold, "k": self.k, "model_called": self.model_called,
                "reason": self.reason, "hits": [h.to_dict() for h in self.candidates],
                "problems": [p.to_dict() for p in self.problems]}


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


def select(question: str, candidates: tuple[Hit, ...], threshold: float, k: int, *,
           decide: Callable[[str, tuple[Hit, ...], float], Decision] | None = None) -> Gate:
    """Keep the first k candidates and mark those at or above the threshold; refuse if none pass.

    With `decide` (e.g. `core.answerability.make_decider(...)`), the gate also refuses when the
    decision is not answerable, and carries the decision and its reason either way.
    """
    if not 1 <= k <= MAX_TOP_K:
        raise InvalidQuestion(f"k（{k}）必须在 1 到 {MAX_TOP_K} 之间。")
    kept = tuple(replace(h, passed=h.score >= threshold) for h in candidates[:k])
    decision = decide(question, kept, threshold) if decide is not None and kept else None
    if any(h.passed for h in kept) and (decision is None or decision.answerable):
        return Gate(question, kept, threshold, k, refused=False, reason=decision.reason if decision else "",
                    decision=decision)
    best = max((h.score for h in kept), default=0.0)
    reason = (f"{below_threshold(best, threshold)}，没有可用的资料片段" if kept
              else "资料库是空的，没有可检索的片段")
    return Gate(question, kept, threshold, k, refused=True, reason=decision.reason if decision else reason,
                decision=decision)


def below_threshold(best: float, threshold: float) -> str:
    """「最高分 0.04 低于阈值 0.05」, with as many decimals as it takes for the two numbers to
    differ on the page (0.0496 shows as 0.0496, never as 「0.05 低于阈值 0.05」)."""
    digits = 2
    while digits < 4 and round(best, digits) >= round(threshold, digits):
        digits += 1
    return f"最高分 {best:.{digits}f} 低于阈值 {threshold:.2f}"


Reranker = Callable[[str, tuple[Hit, ...]], tuple[Hit, ...]]


def candidates_for(question: str, index: SearchIndex, *, expand: Callable[[str], str] | None = None,
                   rerank: Reranker | None = None, k: int = MAX_TOP_K) -> tuple[Hit, ...]:
    """Retrieve for the (expanded) question; with `rerank`, reorder the top MAX_TOP_K for the question as asked."""
    hits = retrieve(expand(question) if expand is not None else question, index, MAX_TOP_K if rerank else k)
    return rerank(question, hits) if rerank is not None else hits


def prepare(question: str, index: SearchIndex, *, k: int = DEFAULT_TOP_K, min_score: float | None = None,
            decide: Callable[[str, tuple[Hit, ...], float], Decision] | None = None,
            expand: Callable[[str], str] | None = None, rerank: Reranker | None = None) -> Gate:
    """Validate, retrieve and gate; no model is involved.

    `expand` rewrites the retrieval query only (e.g. glossary expansion); the gate, the decision
    and the prompt keep the question as asked. `rerank` (core.answerability.make_reranker)
    reorders the top MAX_TOP_K candidates before the first k are kept.
    """
    text = validate_question(question)
    threshold = DEFAULT_MIN_SCORE if min_score is None else float(min_score)
    hits = candidates_for(text, index, expand=expand, rerank=rerank, k=max(k, 1))
    return select(text, hits, threshold, k, decide=decide)


def refusal(gate: Gate) -> RAGAnswer:
    return RAGAnswer(question=gate.question, text=REFUSAL_TEXT, hits=(), candidates=gate.candidates,
                     threshold=gate.threshold, k=gate.k, refused=True, model_called=False, reason=gate.reason)


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
    """Run the checks on the whole answer text and build the final RAGAnswer."""
    text = text.strip()
    if not text:
        raise ModelError("模型返回了空回答，本次没有生成回答，问题已记录，请重试或转人工。", kind="empty_answer")
    docs = [h.document for h in gate.hits]
    model_refused = text == REFUSAL_TEXT
    problems = list(check_refs(text, docs, require=not model_refused).problems)
    if not model_refused:
        problems.extend(_grounding_problems(text, docs, gate.question))
    return RAGAnswer(question=gate.question, text=text, hits=gate.hits, candidates=gate.candidates,
                     threshold=gate.threshold, k=gate.k, refused=model_refused, model_called=True,
                     problems=tuple(problems),
                     reason="模型认为参考资料不足以回答" if model_refused else gate.reason)


def _grounding_problems(text: str, docs: list[Document], question: str) -> list[Problem]:
    """Figures, arithmetic and uncited claims (core.grounding), after the citation-number check."""
    return list(check_grounding(text, docs, question).problems)


@functools.cache
def _starter_glossary():
    from core.glossary import load_starter

    return load_starter()


DEFAULT_DECISION = "default"  # sentinel: the answerability decision without a glossary


def answer(question: str, index: SearchIndex, llm: BaseChatModel | None = None, *,
           k: int = DEFAULT_TOP_K, min_score: float | None = None,
           decide: Callable[[str, tuple[Hit, ...], float], Decision] | str | None = DEFAULT_DECISION,
           expand: Callable[[str], str] | None = None, rerank: Reranker | None = None) -> RAGAnswer:
    """Answer from the corpus or refuse; `llm=None` uses the offline answerer.

    By default the answerability decision (core.answerability) gates alongside the threshold and
    reranks the candidates, with the shipped starter glossary; `decide=None` keeps the seed's
    threshold-only gate and plain score order. core.pipeline does the same with the glossary
    consultants maintain in the database.
    """
    if decide == DEFAULT_DECISION:
        # late imports: core.answerability imports Hit from here
        from core.answerability import make_decider, make_reranker
        from core.glossary import expand_query

        glossary = _starter_glossary()  # the shipped glossary; core.pipeline uses the consultants' edited one
        decide = make_decider(index, glossary) if len(index) else None
        rerank = rerank or (make_reranker(index, glossary) if len(index) else None)
        expand = expand or (lambda question: expand_query(question, glossary))
    gate = prepare(question, index, k=k, min_score=min_score, decide=decide, expand=expand, rerank=rerank)
    if gate.refused:
        return refusal(gate)
    return finish(gate, "".join(stream_text(gate, llm)))
