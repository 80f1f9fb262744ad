"""Fixtures for the gap board: the shipped corpus's assistant, a queue and a topic store on one database."""

from __future__ import annotations

import pytest

from core.answerability.glossary import load_starter
from core.assistant import build_assistant
from core.settings import Settings
from core.stores.db import Database
from core.stores.gaps import GapStore
from core.stores.review import ReviewStore

INSTALMENTS = ("学费能分期吗", "学费可以分期付款吗", "学费能分期付吗？一下子拿不出那么多")
INVOICES = ("交了学费能开发票吗", "可以开发票吗 公司报销", "能开发票吗", "单位要报销，你们能开发票吗？")
GREETINGS = ("你好", "谢谢")


@pytest.fixture(scope="session")
def assistant(corpus_index):
    return build_assistant(Settings(), corpus_index, load_starter())


@pytest.fixture
def db(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'gaps.sqlite3'}")
    yield db
    db.dispose()


@pytest.fixture
def review(db):
    return ReviewStore(db)


@pytest.fixture
def gaps(db):
    return GapStore(db)


def ask(assistant, review: ReviewStore, question: str, asker: str = "Amy") -> int | None:
    """Ask through the one chain and record the outcome as the Ask page does; the item id (None: not queued)."""
    return review.record(assistant.respond(question), asker=asker)


@pytest.fixture
def queued(assistant, review):
    """The refusals of two topics and two greetings, as the Ask page would have queued them."""
    ids = {q: ask(assistant, review, q) for q in (*INSTALMENTS, *INVOICES, *GREETINGS)}
    assert all(ids.values()), "every one of these is refused by the shipped gate"
    return ids
