"""Answerers behind langchain's BaseChatModel: the deterministic offline one and a scripted one.

`OfflineAnswerer` needs no network: it reads the numbered references out of the prompt and
answers with the reference sentences that best match the question, each followed by its [n].
It never writes a word that is not in the references (it only drops 「问：/答：」 labels). When the
caller passes the answerability decision's terms (`keywords=` on invoke/stream, as
core.rag.stream_text does), a sentence holding them, or their glossary forms, counts too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from core.prompts import parse_human_message
from core.settings import REFUSAL_TEXT
from core.terms import Term, credit
from core.text import normalize

_SENTENCE_RE = re.compile(r"[^。！？；\n]+[。！？；]?")
_LABEL_RE = re.compile(r"^\s*[问答][:：]\s*")
MAX_SENTENCES = 4
# Keep sentences scoring at least this share of the best one. With the decision's terms the best
# sentence scores higher; bench/offline_answer_quality.py compares, on the development sets'
# correctly answered questions, how often the answer itself states the labelled fact: 78.0% at 86
# characters with bigrams only (cutoff 0.25), 90.0% at 91 with keywords and cutoff 0.3. A cutoff of
# 0.4 (87%, 82 characters) drops the second half of the worked refund example; keeping only
# sentences that add a new keyword (76%, 46 characters) drops facts as well.
RELATIVE_CUTOFF = 0.3
STREAM_PIECE = 6


def _bigrams(text: str) -> set[str]:
    clean = normalize(text)
    return {clean[i:i + 2] for i in range(len(clean) - 1)}


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence to show, text to match) pairs. A FAQ answer is matched together with its question,
    since students ask in the question's words; the question line itself is never shown."""
    out: list[tuple[str, str]] = []
    question = ""
    for line in text.splitlines():
        label = _LABEL_RE.match(line)
        if label and line.lstrip().startswith("问"):
            question = line[label.end():]
            continue
        if not (label and line.lstrip().startswith("答")):
            question = ""
        for raw in _SENTENCE_RE.findall(_LABEL_RE.sub("", line)):
            sentence = raw.strip()
            if len(normalize(sentence)) >= 4 and not sentence.endswith(("？", "?", "：", ":")):
                out.append((sentence, question + sentence))
    return out


def _rarity(count: float, pool: int) -> float:
    return math.log(1 + pool / count)


def compose_answer(question: str, references: tuple[tuple[int, str], ...],
                   keywords: Sequence[Term] = (), *, cutoff: float = RELATIVE_CUTOFF) -> str:
    """Pick up to MAX_SENTENCES reference sentences that best match the question.

    A sentence scores the question bigrams it holds and, with `keywords` (the decision's terms),
    each keyword's weight × specificity times how much of it the sentence holds (`core.terms.credit`, graded: a glossary
    form counts, 可退 is a third of 可退金额). Both are weighted by how few of the offered sentences
    hold them, so the school's name (in every sentence) counts for little and a distinctive word
    for much; long sentences are damped. Sentences under `cutoff` times the best are left out.
    """
    wanted = _bigrams(question)
    pool = [(number, position, sentence, _bigrams(matched), normalize(matched))
            for number, text in references for position, (sentence, matched) in enumerate(_sentences(text))]
    held = [[credit(k, [clean], graded=True) for k in keywords] for *_, clean in pool]
    df: dict[str, int] = {}
    for _, _, _, grams, _ in pool:
        for gram in grams & wanted:
            df[gram] = df.get(gram, 0) + 1
    kdf = [sum(h[i] for h in held) for i in range(len(keywords))]
    scored: list[tuple[float, int, int, str]] = []
    for (number, position, sentence, grams, _), found in zip(pool, held):
        weight = sum(_rarity(df[g], len(pool)) for g in grams & wanted)
        weight += sum(k.weight * k.specificity * c * _rarity(kdf[i], len(pool))
                      for i, (k, c) in enumerate(zip(keywords, found)) if c)
        if weight:
            scored.append((weight / (1 + len(sentence) / 80), number, position, sentence))
    if not scored:
        return REFUSAL_TEXT
    best = max(s[0] for s in scored)
    chosen, seen = [], set()
    for score, number, position, sentence in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        key = normalize(sentence)
        if score >= cutoff * best and key not in seen:
            chosen.append((number, position, sentence))
            seen.add(key)
        if len(chosen) == MAX_SENTENCES:
            break
    chosen.sort()
    return "".join(f"{sentence.rstrip('。！；;，,')}[{number}]。" for number, _, sentence in chosen)


class OfflineAnswerer(BaseChatModel):
    """Deterministic extractive answerer: the default when no model provider is configured."""

    @property
    def _llm_type(self) -> str:
        return "xiaoe-offline"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        parsed = parse_human_message(str(messages[-1].content))
        text = compose_answer(parsed.question, parsed.references, kwargs.get("keywords", ()))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        text = str(self._generate(messages, stop, run_manager, **kwargs).generations[0].message.content)
        yield from _chunks(text)


class ScriptedChatModel(BaseChatModel):
    """Returns scripted replies in order (the last one repeats) and counts how often it was called."""

    responses: list[str]
    calls: int = 0
    seen: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "xiaoe-scripted"

    def _next(self, messages: list[BaseMessage]) -> str:
        self.seen.append(list(messages))
        reply = self.responses[min(self.calls, len(self.responses) - 1)]
        self.calls += 1
        return reply

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self._next(messages)))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        yield from _chunks(self._next(messages))


def _chunks(text: str) -> Iterator[ChatGenerationChunk]:
    for i in range(0, len(text), STREAM_PIECE):
        yield ChatGenerationChunk(message=AIMessageChunk(content=text[i:i + STREAM_PIECE]))
