"""The values a question travels as (Hit, Gate, RAGAnswer) and the steps that need no composition.

`retrieve` scores a question against an index; `finish` runs every check on a model's text and
builds the answer, which carries its citation and grounding reports so that no view computes
them again. The chain itself (retrieve → gate → answer → check) is composed in exactly one
place, core.assistant; nothing here decides whether to answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from core.answering.offline import OfflineAnswerer
from core.answering.prompts import build_messages
from core.checks.asked import off_question
from core.checks.grounding import check_grounding
from core.checks.references import check_refs
from core.errors import InvalidQuestion, ModelError
from core.language.citations import renumber, reorder
from core.provider_errors import as_model_error
from core.retrieval.index import SearchIndex, search_with_score
from core.settings import MAX_QUESTION_CHARS, MAX_TOP_K, REFUSAL_TEXT
from core.values import Gate, Hit, RAGAnswer
from core.values.facts import NO_FACTS, SchoolFacts

if TYPE_CHECKING:  # core.answerability.decision and core.answering.grader import Hit and Gate from here
    pass








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






def refusal(gate: Gate) -> RAGAnswer:
    return RAGAnswer(question=gate.question, text=REFUSAL_TEXT, hits=(), candidates=gate.candidates,
                     threshold=gate.threshold, k=gate.k, refused=True, model_called=False, reason=gate.reason,
                     knobs=gate.knobs, decision=gate.decision, grade=gate.grade)


def stream_text(gate: Gate, llm: BaseChatModel | None = None, *, usage: dict[str, int] | None = None) -> Iterator[str]:
    """Stream the model's answer for a passing gate (raises ModelError on any failure); the token counts
    the provider reports (`usage_metadata`) are added into `usage` when given."""
    model = llm or OfflineAnswerer()
    messages = build_messages(gate.question, [h.document for h in gate.hits])
    # The offline answerer also reads the decision's keywords (glossary forms included); a real
    # model gets only the prompt.
    extra: dict[str, Any] = ({"keywords": gate.decision.terms, "asked": gate.decision.asked}
             if gate.decision and isinstance(model, OfflineAnswerer) else {})
    try:
        if isinstance(model, OfflineAnswerer):  # the same text and pieces as its `stream`, at a fraction of the cost
            yield from model.pieces(messages, **extra)
            return
        for chunk in model.stream(messages, **extra):
            meta = getattr(chunk, "usage_metadata", None) or {}
            if usage is not None:
                for key in ("input_tokens", "output_tokens"):
                    usage[key] = usage.get(key, 0) + int(meta.get(key, 0) or 0)
            yield str(chunk.content)
    except ModelError:
        raise
    except Exception as error:  # noqa: BLE001 - every provider failure becomes a ModelError
        raise as_model_error(error) from error


def finish(gate: Gate, text: str, facts: SchoolFacts = NO_FACTS, *, by_model: bool = False) -> RAGAnswer:
    """Number the citations in order of first appearance, run every check on the whole text and
    build the answer with its reports. The references keep the order the model saw them in,
    rearranged the same way as the numbers, so [n] always names the same chunk. `by_model`: a chat model wrote
    the text, so it is also checked for carrying what the question asks (core.checks.asked)."""
    text = text.strip()
    if not text:
        raise ModelError("模型返回了空回答，本次没有生成回答，问题已记录，请重试或转人工。", kind="empty_answer")
    text, order = renumber(text, len(gate.hits))
    hits = reorder(gate.hits, order)
    docs = [h.document for h in hits]
    model_refused = text == REFUSAL_TEXT
    citations = check_refs(text, docs, require=not model_refused)
    grounding = None if model_refused else check_grounding(text, docs, gate.question, facts)
    problems = (*citations.problems, *(grounding.problems if grounding else ()))
    off = off_question(text, gate.decision.asked) if by_model and gate.decision and not model_refused else None
    problems = (*problems, off) if off is not None else problems
    # The passing candidates in the references' order: whoever reads [n] from the candidates (the queue, the
    # approval checks, approved answers' citations, 资料已更新) must find the chunk the answer cites.
    candidates = (*hits, *(h for h in gate.candidates if not h.passed))
    return RAGAnswer(question=gate.question, text=text, hits=hits, candidates=candidates,
                     threshold=gate.threshold, k=gate.k, refused=model_refused, model_called=True,
                     problems=tuple(problems), reason="模型认为参考资料不足以回答" if model_refused else gate.reason,
                     knobs=gate.knobs, decision=gate.decision, citations=citations, grounding=grounding,
                     grade=gate.grade)
