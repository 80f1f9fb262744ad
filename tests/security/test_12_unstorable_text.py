"""#16 failure 12: a lone surrogate (both engines) or NUL (PostgreSQL) in a question crashed queueing
and the item was lost; an int or bytes question raised AttributeError/TypeError.

The queue now replaces what it cannot store with a visible U+FFFD, says so in a reason, and keeps
the item; a question that is not text gets InvalidQuestion with a Chinese message.
"""

from __future__ import annotations

import pytest

from core import answer
from core.errors import InvalidQuestion
from core.stores.db import Database
from core.stores.review import ReviewStore
from tests.outcomes import failure_outcome, outcome_of
from tests.security.helpers import flagged_answer


@pytest.fixture
def store(db_url):
    store = ReviewStore(Database(db_url))
    yield store
    store.db.dispose()


@pytest.mark.parametrize("bad", ["\ud800", "\udfff", "\x00"])
def test_unstorable_text_is_replaced_visibly_and_the_item_kept(store, bad):
    answer = flagged_answer(question=f"退费{bad}怎么算？", text=f"开课前全额退费{bad}[1]。",
                            candidate_text=f"开课前{bad}可全额退费。")
    item = store.get(store.record(outcome_of(answer, "fp")))
    assert (item.question, item.answer) == ("退费\ufffd怎么算？", "开课前全额退费\ufffd[1]。")
    assert item.candidates[0].text == "开课前\ufffd可全额退费。"
    assert [r.code for r in item.reasons][-1] == "text_repaired" and "3 个" in item.reasons[-1].message


def test_unstorable_text_model_failure_is_kept_too(store):
    item = store.get(store.record(failure_outcome("退费\ud800怎么算？", message="超时\x00", kind="timeout")))
    assert item.question == "退费\ufffd怎么算？" and item.origin == "model_error"


@pytest.mark.parametrize("question", [42, b"\xe9\x80\x80\xe8\xb4\xb9", ["退费"]])
def test_unstorable_text_non_string_question_is_invalid(question, corpus_index):
    with pytest.raises(InvalidQuestion, match="问题必须是文字"):
        answer(question, corpus_index)


@pytest.mark.parametrize("question", [42, b"\xe9\x80\x80\xe8\xb4\xb9"])
def test_unstorable_text_non_string_question_is_not_queued(store, question):
    with pytest.raises(InvalidQuestion, match="问题必须是文字"):
        store.record(failure_outcome(question, message="超时", kind="timeout"))
