"""An optional model rewrite of a follow-up, guarded (XIAOE_FOLLOWUP_MODEL=on and a chat model configured).

The model-free rewrite (core.conversations.standalone) always runs first; the model is asked only for a follow-up,
once, to rewrite the student's message as one standalone question given the previous one. Its text stands only when
`guard` accepts it: it is a question (it ends with a question mark or asks something, core.case.asked), it is at
most twice as long as the longer of the message and the model-free question, and it brings in no figure and no
name (a level, an interchangeable word, a Latin word) that is absent from the previous question and the message.
Otherwise — or when the model fails — the model-free rewrite stands, and the reason is kept with it.

Left out: retries, streaming, any answer: the model only rewrites; it never answers (a reply that is no question
fails the guard).
"""

from __future__ import annotations

import re
from dataclasses import replace

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from core.case.asked import read_asked
from core.conversations.swaps import level_spans
from core.conversations.words import interchangeable
from core.language.figures import extract_figures
from core.values.conversations import FOLLOW_UP, Standalone
from core.values.facts import NO_FACTS, SchoolFacts

SYSTEM_PROMPT = ("你把学员在对话里的一句追问改写成一个能单独看懂的问题。只输出改写后的那一个问题，不要回答它，不要解释，"
                 "不要加进对话里没有出现过的数字、名字或级别。")
_LATIN_RE = re.compile(r"[A-Za-z]{2,}")


def messages(previous: str, message: str) -> list:
    return [SystemMessage(content=SYSTEM_PROMPT),
            HumanMessage(content=f"上一个问题：{previous}\n学员接着说：{message}\n改写成一个独立的问题：")]


def _names(text: str, facts: SchoolFacts) -> set[str]:
    found = {word for _, _, word in level_spans(text, facts)}
    found |= {w for w in interchangeable() if w in text}
    found |= {m.group().lower() for m in _LATIN_RE.finditer(text)}
    return found


def guard(candidate: str, previous: str, message: str, fallback: str, facts: SchoolFacts = NO_FACTS) -> str:
    """"" when `candidate` may stand, else why not (in Chinese)."""
    text = candidate.strip()
    if not text:
        return "模型没有给出改写"
    if not (text.endswith(("？", "?")) or read_asked(text)):
        return "模型的改写不是一个问题"
    limit = 2 * max(len(message), len(fallback))
    if len(text) > limit:
        return f"模型的改写有 {len(text)} 个字，超过了 {limit} 个字"
    known = previous + " " + message
    figures = {f.value for f in extract_figures(known)}
    new_figures = [f.text for f in extract_figures(text) if f.value not in figures]
    if new_figures:
        return f"模型的改写带进了对话里没有的数字：{'、'.join(new_figures)}"
    new_names = sorted(_names(text, facts) - _names(known, facts) - {w.lower() for w in _names(known, facts)})
    if new_names:
        return f"模型的改写带进了对话里没有的名字：{'、'.join(new_names)}"
    return ""


def rewrite(model: BaseChatModel, previous: str, read: Standalone, facts: SchoolFacts = NO_FACTS
            ) -> tuple[Standalone, str]:
    """(the standalone question that stands, why the model's was not taken or ""). Only a follow-up is sent."""
    if read.kind != FOLLOW_UP:
        return read, ""
    try:
        reply = model.invoke(messages(previous, read.message))
    except Exception as error:  # noqa: BLE001 - any provider failure keeps the model-free rewrite, with its reason
        return read, f"模型改写失败（{type(error).__name__}），用规则的改写"
    candidate = str(getattr(reply, "content", reply) or "").strip().splitlines()[0:1]
    text = candidate[0].strip() if candidate else ""
    why = guard(text, previous, read.message, read.question, facts)
    if why:
        return read, why + "，用规则的改写"
    return replace(read, question=text, rules=(*read.rules, "model")), ""
