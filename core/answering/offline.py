"""Answerers behind langchain's BaseChatModel: the deterministic offline one and a scripted one.

`OfflineAnswerer` needs no network: it reads the numbered references out of the prompt and
answers with the reference sentences that best match the question, each followed by its [n]
(core.answering.extractive.compose_answer). It writes no word that is not in the references, except one
fixed sentence asking a student who gave figures to apply the quoted formula to them. When the
caller passes the answerability decision's terms (`keywords=` on invoke/stream, as
core.answering.rag.stream_text does), a sentence holding them, or their glossary forms, counts too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from core.answering.extractive import MAX_SENTENCES, RELATIVE_CUTOFF, compose_answer
from core.answering.prompts import parse_human_message

__all__ = ["MAX_SENTENCES", "RELATIVE_CUTOFF", "OfflineAnswerer", "ScriptedChatModel", "compose_answer"]

STREAM_PIECE = 24  # characters per streamed piece: the page shows each as it comes; fewer pieces cost the chain less


class OfflineAnswerer(BaseChatModel):
    """Deterministic extractive answerer: the default when no model provider is configured."""

    @property
    def _llm_type(self) -> str:
        return "xiaoe-offline"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        parsed = parse_human_message(str(messages[-1].content))
        text = compose_answer(parsed.question, parsed.references, kwargs.get("keywords", ()), asked=kwargs.get("asked"))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        text = str(self._generate(messages, stop, run_manager, **kwargs).generations[0].message.content)
        yield from _chunks(text)

    def pieces(self, messages: list[BaseMessage], **kwargs: Any) -> Iterator[str]:
        """The answer's text in the pieces `stream` yields, without LangChain's run machinery (callbacks, message
        chunks, their merging): what core.answering.rag.stream_text reads from this answerer, which calls nothing
        outside this process and reports no usage."""
        yield from _pieces(str(self._generate(messages, **kwargs).generations[0].message.content))


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


def _pieces(text: str) -> Iterator[str]:
    for i in range(0, len(text), STREAM_PIECE):
        yield text[i:i + STREAM_PIECE]


def _chunks(text: str) -> Iterator[ChatGenerationChunk]:
    for piece in _pieces(text):
        yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
