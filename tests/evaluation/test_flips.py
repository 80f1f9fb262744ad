"""Impact before a change: which questions flip answered ↔ refused under new knobs or a new glossary entry."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from core import assistant as composition
from core.answerability.glossary import GlossaryEntry, load_starter
from core.assistant import build_assistant
from core.evaluation.flips import glossary_flips, knob_flips, touched_by, with_entry
from core.knobs import Knobs
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.db import Database
from core.stores.review import ReviewStore
from core.values import Problem, RAGAnswer

REFUND = "我报的二级 交了4200 上了6节课 现在退能退多少"  # answered at these knobs: coverage 81%
IELTS = "你们的雅思保过班能退费吗？"                  # refused: 「雅思」 weighs 1.00 > 0.51
LEVELS = "启明英语的口语课一共有几级？"                  # answered with full coverage
KNOBS = Knobs(threshold=0.0, k=3, min_coverage=0.67, max_unknown_weight=0.51)


@pytest.fixture(scope="module")
def assistant():
    return build_assistant(Settings(), load_or_build(Settings.from_env({})), load_starter(), knobs=KNOBS)


def test_flips_new_knobs_list_both_directions_without_a_model_call(assistant, monkeypatch):
    monkeypatch.setattr(composition, "stream_text", lambda *a, **k: pytest.fail("a model was called"))
    stricter = knob_flips(assistant, [REFUND, IELTS, LEVELS, REFUND], KNOBS, replace(KNOBS, min_coverage=0.9))
    assert (stricter.to_refused, stricter.to_answered, stricter.checked) == ((REFUND,), (), 3)
    looser = knob_flips(assistant, [REFUND, IELTS, LEVELS], KNOBS, replace(KNOBS, max_unknown_weight=1.0))
    assert (looser.to_refused, looser.to_answered) == ((), (IELTS,))
    assert knob_flips(assistant, [REFUND, IELTS], KNOBS, KNOBS).count == 0


def test_flips_a_glossary_entry_is_checked_on_the_questions_it_can_touch(assistant):
    entry = GlossaryEntry("口语课", "雅思")  # too wide: the school teaches no IELTS
    questions = [IELTS, LEVELS, "雅思课一共有几级？", "周末能停车吗？"]
    assert touched_by(entry, questions) == [IELTS, LEVELS, "雅思课一共有几级？"]  # the term counts too
    after = build_assistant(Settings(), load_or_build(Settings.from_env({})), with_entry(load_starter(), entry),
                            knobs=KNOBS)
    flips = glossary_flips(assistant, after, touched_by(entry, questions))
    assert (flips.to_answered, flips.to_refused, flips.checked) == ((IELTS, "雅思课一共有几级？"), (), 3)


def test_flips_asked_since_lists_recent_questions_newest_first(tmp_path):
    class Clock:
        now = datetime(2026, 3, 1, tzinfo=UTC)

        def __call__(self):
            return self.now

    clock = Clock()
    store = ReviewStore(Database(f"sqlite:///{tmp_path / 'q.sqlite3'}"), clock=clock)

    def queue(question: str) -> None:
        store.enqueue(RAGAnswer(question=question, text="这件事资料里没写", hits=(), candidates=(), threshold=0.2,
                                k=3, refused=True, model_called=False, problems=(Problem("refused", "无"),)),
                      origin="refusal", merge=True)

    queue("很久以前的问题")
    clock.now += timedelta(days=40)
    queue(REFUND)
    clock.now += timedelta(days=1)
    queue(IELTS)
    clock.now += timedelta(days=1)
    queue("很久以前的问题")  # asked again lately: counts as recent
    since = clock.now - timedelta(days=30)
    assert store.asked_since(since) == ("很久以前的问题", IELTS, REFUND)
    assert store.asked_since(since, limit=1) == ("很久以前的问题",)
