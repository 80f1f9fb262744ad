"""A total deadline for one model answer: connecting, the first token and the whole stream together.

The HTTP client's timeout bounds each read, so a server that sends one token every 2 s never
trips a 3 s timeout and can keep a caller busy for minutes. `DeadlineChatModel` wraps the chat
model built from the settings (core.answering.providers.make_chat_model), so the page, the API and the CLI
all get the same bound: the stream is read on a worker thread, the caller waits for each piece
only until the deadline, and past it gets a ModelError(kind="timeout"); what arrived so far is
thrown away by the callers (core.assistant.answer joins nothing; the page clears its draft). The worker
stops at its next piece and closes the HTTP response; a read already under way ends within the
client's own per-read timeout.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from core.errors import ModelError

T = TypeVar("T")
_END = object()


def timeout_error(seconds: float) -> ModelError:
    return ModelError(f"回答模型在 {seconds:g} 秒内没有答完（XIAOE_LLM_TIMEOUT 限定整次回答的时间，含连接、首字和全部输出），"
                      "本次没有生成回答，问题已转人工复核。请稍后重试；如果经常超时，可以调大 XIAOE_LLM_TIMEOUT，"
                      "或换用响应更快的模型。", kind="timeout")


def within(seconds: float, start: Callable[[], Iterator[T]]) -> Iterator[T]:
    """The items of `start()`, as long as all of them arrive within `seconds`; else ModelError(kind="timeout")."""
    pieces: queue.Queue = queue.Queue()
    stop = threading.Event()

    def pump() -> None:
        stream = None
        try:
            stream = start()
            for item in stream:
                if stop.is_set():
                    break
                pieces.put((True, item))
            pieces.put((True, _END))
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread, raised there
            pieces.put((False, error))
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # closes the HTTP response under a generator that was left early

    threading.Thread(target=pump, name="xiaoe-model-stream", daemon=True).start()
    end = time.monotonic() + seconds
    try:
        while True:
            try:
                ok, item = pieces.get(timeout=max(end - time.monotonic(), 0))
            except queue.Empty:
                raise timeout_error(seconds) from None
            if not ok:
                raise item
            if item is _END:
                return
            yield item
    finally:
        stop.set()


class DeadlineChatModel(BaseChatModel):
    """A chat model whose every answer, streamed or not, must be complete within `seconds`."""

    inner: BaseChatModel
    seconds: float

    @property
    def _llm_type(self) -> str:
        return f"deadline-{self.inner._llm_type}"

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        for chunk in within(self.seconds, lambda: self.inner.stream(messages, stop=stop, **kwargs)):
            yield ChatGenerationChunk(message=chunk)

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        """The inner model's structured output (the grader's short JSON verdict, core/answering/grader.py).
        Not under the whole-answer deadline: it is one small non-streamed reply, bounded by the
        client's own timeout and retries."""
        return self.inner.with_structured_output(schema, **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        text = "".join(str(c.message.content) for c in self._stream(messages, stop, run_manager, **kwargs))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])
