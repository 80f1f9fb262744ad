"""Queue de-duplication: one item per question, decision and corpus, with a count and the askings."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.language.text import question_key
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.stores.review_dedup import dedup_key
from tests.outcomes import outcome_of
from tests.stores.test_review import Clock, answer


@pytest.fixture
def store(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'queue.sqlite3'}")
    yield ReviewStore(db, clock=Clock())
    db.dispose()


def refused(question: str = "寒假班几号开始？", threshold: float = 0.2):
    return replace(answer(question=question, text="这件事资料里没写", problems=(), refused=True, reason="没有片段达到阈值"),
                   threshold=threshold)


@pytest.mark.parametrize("a, b", [
    ("寒假班几号开始？", "寒假班 几号开始?"),
    ("寒假班几号开始？", "  寒假班几号开始。 "),
    ("ＡＢＣ班怎么退费", "abc班怎么退费！"),
])
def test_question_key_ignores_width_case_space_and_punctuation(a, b):
    assert question_key(a) == question_key(b)


def test_dedup_key_differs_by_decision_not_by_corpus_and_skips_manual():
    base = dedup_key("退费？", "refusal")
    assert base == dedup_key("退费", "refusal")
    assert base != dedup_key("退费", "auto")
    assert dedup_key("退费", "manual") is None


def test_record_answer_same_question_three_times_and_a_slider_rerun_is_one_item_with_count_3(store):
    ids = {store.record(outcome_of(refused(q), "f"), asker=who)
           for q, who in [("寒假班几号开始？", "Amy"), ("寒假班几号开始?", "Bob"), ("寒假班 几号开始", "Amy")]}
    ids.add(store.record(outcome_of(refused(threshold=0.35), "f"), asker="Amy"))  # slider re-run
    assert len(ids) == 1
    item = store.get(ids.pop())
    assert item.ask_count == 3
    assert [(a.asker, a.counted) for a in item.asks] == [("Amy", True), ("Bob", True), ("Amy", True), ("Amy", False)]
    assert store.list(Filters(status="pending")).total == 1


def test_record_answer_other_decision_is_a_second_item(store):
    first = store.record(outcome_of(refused(), "f"))
    flagged = answer(question="寒假班几号开始？")  # answered this time, with a citation problem
    second = store.record(outcome_of(flagged, "f"))
    assert first != second
    assert store.get(second).ask_count == 1
    assert store.counts().status("pending") == 2


def test_record_answer_after_a_decision_starts_a_new_item(store):
    first = store.record(outcome_of(refused(), "f"))
    store.decide(first, action="approve", reviewer="王老师", expected_version=1)
    assert store.record(outcome_of(refused(), "f")) != first


def test_a_repeat_after_a_document_edit_joins_the_pending_item_and_the_edit_is_in_its_history(store):
    first = store.record(outcome_of(refused(), "f1" * 8), asker="Amy")
    assert store.record(outcome_of(refused(), "f2" * 8), asker="Bob") == first  # the corpus changed in between
    assert store.record(outcome_of(refused("寒假班几号开始"), "f2" * 8), asker="Amy") == first
    item = store.get(first)
    assert item.ask_count == 3 and store.counts().status("pending") == 1
    notes = [e for e in store.events(first) if e.action == "corpus"]
    assert len(notes) == 1  # once per corpus version, not once per asking
    assert "资料更新后又被问到（资料指纹 f1f1f1f1 → f2f2f2f2）" in notes[0].note and notes[0].actor == "Bob"
    assert item.fingerprint == "f1" * 8  # the answer and candidates are still the first corpus's


def test_enqueue_without_merge_keeps_every_item(store):
    ids = [store.enqueue(refused(), origin="refusal", fingerprint="f") for _ in range(2)]
    assert ids[0] != ids[1]
