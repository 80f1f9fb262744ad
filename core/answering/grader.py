"""The grader: for a question in the uncertain band, let the configured model read the passing chunks.

The lexical decision (core.answerability.decision) cannot tell 「闺女」 from 「孩子」; a reader can. When
XIAOE_GRADER=band and a chat model is configured, `core.assistant.Assistant.grade` sends a
question the gate refused *narrowly* (`in_band`) to the model once, with its passing chunks
numbered, and asks for a structured verdict: first the quote (the chunk's sentence that answers, copied;
the model decides after writing it, not before), then answerable yes/no, the chunk numbers that hold the
answer, one sentence of reason. A "yes" without a quote or an existing chunk number counts as "no"; any
failure of the call (timeout, 429, garbage) refuses, with the fault recorded. Clear answers and
clear refusals never reach the model, and nothing passing the threshold means no call at all
(the seed's rule).

The band's two edges are settings (XIAOE_GRADER_BAND_COVERAGE, XIAOE_GRADER_BAND_UNKNOWN), not
gate knobs: they only matter with a model configured, and docs/grader.md says why.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from core.errors import ModelError
from core.provider_errors import as_model_error
from core.values import Band, Gate, Grade, Hit

GRADER_CHUNK_CHARS = 600  # each chunk is cut to this many characters in the grader's prompt
REASON_CHARS = 200  # the model's reason is cut to this many characters before it is stored or shown
SYSTEM_PROMPT = (
    "你是启明英语的资料核对员。下面给出学员的问题和若干编号的资料片段。"
    "先在片段里找出能回答这个问题的那一句，原样抄进 quote（找不到就写空字符串 \"\"）；"
    "再根据抄出的这句话判断：它是否明确回答了学员问的事。只是话题相近、需要猜测或编造的，都算不可答；"
    "学员给了自己的数字（学费、级别、已上课时）时，片段写有计算规则（公式、手续费、学费标准）就算可答。"
    "只输出一个 JSON 对象，不要输出其他文字，字段按这个顺序："
    '{"quote": "片段里回答问题的原句", "answerable": true 或 false, "chunks": [写有这句话的片段编号], '
    '"reason": "一句话理由"}'
)
VERDICT_SCHEMA = {
    "title": "grader_verdict",
    "description": "资料片段能否回答学员的问题",
    "type": "object",
    "properties": {
        "quote": {"type": "string", "description": "片段里回答问题的原句，原样抄出；没有就写空字符串"},
        "answerable": {"type": "boolean", "description": "片段里明确写了答案时为 true"},
        "chunks": {"type": "array", "items": {"type": "integer"}, "description": "写有答案的片段编号"},
        "reason": {"type": "string", "description": "一句话理由"},
    },
    "required": ["quote", "answerable", "chunks", "reason"],
}
OUTCOME = "本次没有让模型判定，已拒答"






class BadVerdict(ValueError):
    """The model's reply is not the verdict asked for; the message says what was wrong, in Chinese."""


def in_band(gate: Gate, band: Band) -> bool:
    """True for a question the gate refused narrowly: something passes the threshold, the question has
    checkable words, the coverage is at most `coverage_margin` below the floor and the heaviest word
    absent from the corpus weighs at most `unknown_limit`. Answers, refusals with nothing passing the
    threshold, and everything without the answerability decision are outside."""
    d = gate.decision
    if not gate.refused or d is None or not gate.hits or not d.terms:
        return False
    if not d.signals[0].passed:
        return False
    if d.coverage < gate.knobs.min_coverage - band.coverage_margin - 1e-9:
        return False
    return d.signals[2].value <= band.unknown_limit + 1e-9


def grader_messages(question: str, hits: Sequence[Hit]) -> list:
    """The one short request: the instructions, then the question and the numbered chunks."""
    blocks = []
    for number, hit in enumerate(hits, start=1):
        where = " · ".join(x for x in (hit.source, hit.heading) if x)
        text = hit.text if len(hit.text) <= GRADER_CHUNK_CHARS else hit.text[:GRADER_CHUNK_CHARS] + "…"
        blocks.append(f"[{number}] {where}\n{text}")
    body = f"学员的问题：{question}\n\n资料片段：\n\n" + "\n\n".join(blocks) + "\n\n请只输出 JSON。"
    return [SystemMessage(content=SYSTEM_PROMPT), HumanMessage(content=body)]


def prompt_chars(question: str, hits: Sequence[Hit]) -> int:
    """Characters of the grader's request (for the cost estimate before an evaluation run)."""
    return sum(len(str(m.content)) for m in grader_messages(question, hits))


_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.DOTALL)


def parse_verdict(text: str) -> dict:
    """The strict fallback parser: exactly one JSON object (a ```json fence around it is allowed)."""
    raw = text.strip()
    fenced = _FENCE.match(raw)
    if fenced:
        raw = fenced.group(1).strip()
    try:
        value = json.loads(raw)
    except ValueError:
        raise BadVerdict("模型的回复不是 JSON") from None
    if not isinstance(value, dict):
        raise BadVerdict("模型的回复不是一个 JSON 对象")
    return value


def verdict(value: object, chunk_count: int) -> tuple[bool, tuple[int, ...], str]:
    """(answerable, chunk numbers, reason) from a parsed reply, checked field by field.

    A "yes" whose chunk list is empty or names a chunk that was not sent is a "no"."""
    if not isinstance(value, dict):
        raise BadVerdict("模型的回复不是一个 JSON 对象")
    answerable, chunks, reason = value.get("answerable"), value.get("chunks", []), value.get("reason")
    quote = value.get("quote")
    if not isinstance(quote, str):
        raise BadVerdict("回复里缺少引文 quote（片段里回答问题的原句，没有就写空字符串）")
    if not isinstance(answerable, bool):
        raise BadVerdict("回复里的 answerable 不是 true 或 false")
    if not isinstance(chunks, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in chunks):
        raise BadVerdict("回复里的 chunks 不是编号列表")
    if not isinstance(reason, str) or not reason.strip():
        raise BadVerdict("回复里缺少一句话理由 reason")
    reason = " ".join(reason.split())
    reason = reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS] + "…"
    numbers = tuple(dict.fromkeys(chunks))
    if answerable and not quote.strip():
        return False, (), f"模型说可答，但没有抄出片段里回答问题的原句，按不可答处理。模型理由：{reason}"
    if answerable:
        bad = [c for c in numbers if not 1 <= c <= chunk_count]
        if not numbers or bad:
            given = "、".join(map(str, bad)) if bad else "无"
            return False, (), (f"模型说可答，但没有给出存在的片段编号（给出的无效编号：{given}；"
                               f"共 {chunk_count} 个片段），按不可答处理。模型理由：{reason}")
    return answerable, numbers if answerable else (), reason


def grade(gate: Gate, model: BaseChatModel) -> Grade:
    """One grader request for `gate`'s passing chunks; never raises for a model failure (it refuses)."""
    hits = gate.hits
    messages = grader_messages(gate.question, hits)
    start = time.perf_counter()
    structured, usage = True, (0, 0)
    try:
        try:
            runnable = model.with_structured_output(VERDICT_SCHEMA, method="json_mode", include_raw=True)
        except (NotImplementedError, TypeError, ValueError):
            runnable, structured = None, False
        if runnable is not None:
            out = cast(dict, runnable.invoke(messages))  # include_raw=True: a dict, whatever the schema
            raw, parsed = out.get("raw"), out.get("parsed")
        else:
            raw, parsed = model.invoke(messages), None
        usage = _usage(raw)
        value = parsed if isinstance(parsed, dict) else parse_verdict(_content(raw))
        answerable, chunks, reason = verdict(value, len(hits))
    except BadVerdict as error:
        return Grade(False, (), f"{error}，{OUTCOME}。", *usage, ms=_ms(start),
                     fault="bad_response", structured=structured)
    except Exception as error:  # noqa: BLE001 - every provider failure refuses, with the fault recorded
        failure = error if isinstance(error, ModelError) else as_model_error(error, outcome=OUTCOME)
        return Grade(False, (), str(failure), ms=_ms(start), fault=failure.kind or "model_error",
                     structured=structured)
    return Grade(answerable, chunks, reason, *usage, ms=_ms(start), structured=structured)


def apply_grade(gate: Gate, result: Grade) -> Gate:
    """The gate after the grader: answered on a valid "yes", else refused with the verdict as the reason."""
    if result.answerable and not result.fault:
        return replace(gate, refused=False, reason=result.describe(), grade=result)
    return replace(gate, reason=f"{gate.reason}；{result.describe()}", grade=result)


def _content(message: object) -> str:
    if not isinstance(message, AIMessage):
        raise BadVerdict("模型没有返回文字")
    return str(message.content)


def _usage(message: object) -> tuple[int, int]:
    meta = getattr(message, "usage_metadata", None) or {}
    return int(meta.get("input_tokens", 0) or 0), int(meta.get("output_tokens", 0) or 0)


def _ms(start: float) -> int:
    return round((time.perf_counter() - start) * 1000)
