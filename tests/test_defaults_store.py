"""core.defaults_store: saving a default is audited, and effective_settings then applies it everywhere."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.db import Database
from core.defaults_store import DefaultsStore, effective_settings
from core.errors import ConfigError
from core.index_store import load_or_build
from core.rag import answer, retrieve
from core.settings import Settings

WHEN = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
QUESTION = "保留学籍最长多久？"


@pytest.fixture
def settings(tmp_path, database_url):
    return Settings.from_env({"XIAOE_DATA_DIR": str(tmp_path), "XIAOE_DATABASE_URL": database_url})


@pytest.fixture
def db(settings):
    database = Database(settings.db_url)
    yield database
    database.dispose()


def test_save_records_who_when_old_new_and_metrics(db, settings):
    store = DefaultsStore(db, clock=lambda: WHEN)
    settings = settings.with_defaults(min_score=0.2, top_k=3)  # as if XIAOE_MIN_SCORE=0.2 were configured
    saved = store.save(0.3, 5, actor="王老师", settings=settings, metrics={"balanced_accuracy": 0.81, "k": 5},
                       note="按题集第 2 版调")
    assert (saved.old_threshold, saved.new_threshold, saved.old_k, saved.new_k) == (0.2, 0.3, 3, 5)
    (record,) = store.history()
    assert (record.actor, record.at, record.note) == ("王老师", WHEN, "按题集第 2 版调")
    assert record.metrics == {"balanced_accuracy": 0.81, "k": 5}
    assert record.summary == "王老师 把默认阈值从 0.20 改为 0.30，k 从 3 改为 5"


def test_save_takes_the_old_value_from_the_previous_save(db, settings):
    store = DefaultsStore(db)
    store.save(0.3, 5, actor="王老师", settings=settings)
    second = store.save(0.25, 4, actor="李老师", settings=settings)
    assert (second.old_threshold, second.old_k) == (0.3, 5)
    assert [c.actor for c in store.history()] == ["李老师", "王老师"]
    assert store.current().new_threshold == 0.25


@pytest.mark.parametrize(("threshold", "k", "actor", "message"), [
    (1.2, 3, "王老师", "阈值（1.2）必须在 0 到 1 之间"),
    (0.2, 11, "王老师", "k（11）必须在 1 到 10 之间"),
    (0.2, 3, "  ", "请先填写操作人姓名"),
])
def test_save_rejects_bad_values_and_stores_nothing(db, settings, threshold, k, actor, message):
    store = DefaultsStore(db)
    with pytest.raises(ConfigError, match=message):
        store.save(threshold, k, actor=actor, settings=settings)
    assert store.history() == ()


def test_effective_settings_without_a_saved_default_is_unchanged(db, settings):
    assert effective_settings(settings, db) == settings


def test_effective_settings_applies_the_saved_default(db, settings):
    DefaultsStore(db).save(0.3, 5, actor="王老师", settings=settings)
    effective = effective_settings(settings, db)
    assert (effective.min_score, effective.top_k) == (0.3, 5)
    assert effective_settings(effective, db) == effective  # idempotent


def test_effective_settings_opens_the_settings_database(settings):
    DefaultsStore(Database(settings.db_url)).save(0.35, 2, actor="王老师", settings=settings)
    assert effective_settings(settings).min_score == 0.35


def test_answer_with_effective_settings_uses_the_saved_threshold(db, settings):
    index = load_or_build(settings).index
    top = retrieve(QUESTION, index, 1)[0].score  # thresholds just below / above it, whatever the retriever
    below, above = round(top - 0.01, 4), round(top + 0.01, 4)
    store = DefaultsStore(db)
    store.save(below, 3, actor="王老师", settings=settings)
    before = effective_settings(settings, db)
    assert not answer(QUESTION, index, k=before.top_k, min_score=before.min_score).refused
    store.save(above, 3, actor="王老师", settings=settings)
    after = effective_settings(settings, db)
    result = answer(QUESTION, index, k=after.top_k, min_score=after.min_score)
    assert result.refused and not result.model_called
    assert result.threshold == above
