"""Helpers shared by the account, session and corpus-admin tests: a fast hasher and a hand-moved clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher

from core.stores.accounts import AccountStore
from core.stores.db import Database

T0 = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)
PASSWORD = "correct horse 42"

# Real argon2id with the smallest cost it allows: the same code path, milliseconds per hash.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


def make_accounts(url: str, clock: Clock | None = None) -> AccountStore:
    return AccountStore(Database(url), hasher=FAST_HASHER, now=clock or Clock())


def add_staff(store: AccountStore) -> None:
    """One admin and one consultant, both with PASSWORD."""
    store.add("boss", PASSWORD, actor="test", role="admin", display_name="王校长", email="boss@qiming.example")
    store.add("amy", PASSWORD, actor="test", role="consultant", display_name="顾问 Amy")
