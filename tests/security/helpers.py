"""Helpers of the security regression tests (imported as tests.security.helpers)."""

from __future__ import annotations

import threading

from argon2 import PasswordHasher


class CountingHasher(PasswordHasher):
    """Real argon2id at the smallest cost, counting every password it checks."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.checked = 0
        self.checked_event: dict[int, threading.Event] = {}
        self._lock = threading.Lock()

    def reached(self, n: int) -> threading.Event:
        with self._lock:
            return self.checked_event.setdefault(n, threading.Event())

    def verify(self, hash, password) -> bool:  # noqa: A002 - argon2's parameter name
        try:
            return super().verify(hash, password)
        finally:
            with self._lock:
                self.checked += 1
                self.checked_event.setdefault(self.checked, threading.Event()).set()


def flagged_answer(*, question: str = "口语课几级？", text: str = "一共六级[1]。", candidate_text: str = "口语课共四级。"):
    """An answer a check flagged (so ReviewStore.record queues it), with one passing candidate."""
    from core.values import Hit, Problem, RAGAnswer

    hit = Hit(rank=1, source="01-口语课分级说明.md", heading="课程级别", chunk=1, start=0, end=len(candidate_text),
              text=candidate_text, score=0.5, passed=True)
    return RAGAnswer(question=question, text=text, hits=(hit,), candidates=(hit,), threshold=0.2, k=2,
                     refused=False, model_called=True, problems=(Problem("unsupported_number", "数字“六”在资料里找不到"),))
