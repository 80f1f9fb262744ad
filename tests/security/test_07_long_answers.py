"""#16 failure 7: flagged answers over 20,000 characters were not queued (the queue write raised).

The queue now stores any answer whole, and the review page shows a preview of a long one.
"""

from __future__ import annotations

from core.settings import Settings
from core.stores.db import Database, open_database
from core.stores.review import ReviewStore
from tests.outcomes import outcome_of
from tests.security.helpers import flagged_answer

RUNAWAY = "口语课一共四级[1]。" * 12_000  # 132,000 characters


def test_long_answers_are_queued_whole(db_url):
    store = ReviewStore(Database(db_url))
    item = store.record(outcome_of(flagged_answer(text=RUNAWAY), "fp"))
    assert item is not None and store.get(item).answer == RUNAWAY
    store.db.dispose()


def test_long_answers_page_shows_a_preview(open_app):
    store = ReviewStore(open_database(Settings.from_env().db_url))
    item = store.record(outcome_of(flagged_answer(text=RUNAWAY), "fp"))
    at = open_app(page="app_pages/review.py", params={"item": str(item)})
    assert not at.exception
    assert any("回答共 132,000 字，这里只显示前 5,000 字" in c.value for c in at.caption)
