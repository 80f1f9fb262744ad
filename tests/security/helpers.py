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
