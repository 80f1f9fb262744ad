"""A repeat of a pending question asked after the documents changed joins that item, and the change is in its history."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace

import pytest
from sqlalchemy import delete, update

from core.language.text import question_key
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database, schema_migrations
from core.stores.review import ReviewStore
from core.stores.review_schema import review_keys
from core.stores.roles import User
from tests.auth_helpers import Clock
from tests.outcomes import outcome_of
from tests.paths import CORPUS
from tests.stores.test_review import answer

ADMIN = User("boss", "王校长", "admin")
REFUND = "02-退费与转班制度.md"
OLD, NEW = "a1" * 16, "b2" * 16  # two corpus fingerprints


def refused(question: str = "寒假班几号开始？", fingerprint: str = OLD):
    reply = replace(answer(question=question, text="这件事资料里没写", problems=(), refused=True, reason="没有片段达到阈值"),
                    threshold=0.2)
    return outcome_of(reply, fingerprint)


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


def test_a_repeat_after_a_document_save_joins_the_item_and_names_the_save(db, tmp_path):
    clock = Clock()
    review = ReviewStore(db, clock=clock)
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    admin = CorpusAdmin(db, corpus, now=clock)
    first = review.record(refused(), asker="Amy")
    clock.advance(minutes=5)
    text, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, text + "\n寒假班 1 月 20 日开课。\n", expected_sha256=sha)
    clock.advance(minutes=5)
    assert review.record(refused(fingerprint=NEW), asker="Bob") == first
    (note,) = [e for e in review.events(first) if e.action == "corpus"]
    assert f"「{REFUND}」第 2 版（boss，在线编辑）" in note.note and "资料指纹 a1a1a1a1 → b2b2b2b2" in note.note
    assert [e.action for e in review.events(first)] == ["enqueue", "corpus"]
    assert review.get(first).ask_count == 2


def test_a_decided_item_is_not_joined_by_a_repeat_on_another_corpus(db):
    review = ReviewStore(db, clock=Clock())
    first = review.record(refused())
    review.decide(first, action="approve", reviewer="王老师", expected_version=1)
    second = review.record(refused(fingerprint=NEW))
    assert second != first and [e.action for e in review.events(second)] == ["enqueue"]


def test_items_keyed_with_their_corpus_before_are_keyed_again_so_a_repeat_joins_them(database_url):
    old = Database(database_url)
    first = ReviewStore(old, clock=Clock()).record(refused())
    raw = "\x1f".join((question_key("寒假班几号开始？"), "refusal", OLD))  # the key as the older code wrote it
    with old.transaction() as conn:
        conn.execute(update(review_keys).values(key=hashlib.sha256(raw.encode()).hexdigest()))
        conn.execute(delete(schema_migrations).where(schema_migrations.c.component == "review_repeats"))
        conn.exec_driver_sql("DROP TABLE review_corpora")
    old.dispose()
    db = Database(database_url)
    assert ReviewStore(db, clock=Clock()).record(refused(fingerprint=NEW)) == first
    db.dispose()
