"""core.stores.defaults: saving the four knobs is audited, and effective_settings then applies them everywhere."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.assistant import build_assistant, open_assistant
from core.errors import ConfigError
from core.knobs import Knobs
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.db import Database
from core.stores.defaults import DefaultsStore, effective_settings

WHEN = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
QUESTION = "保留学籍最长多久？"


@pytest.fixture
def settings(tmp_path, database_url):
    return Settings.from_env({"XIAOE_DATA_DIR": str(tmp_path), "XIAOE_DATABASE_URL": database_url})


def knobs(threshold: float, k: int, coverage: float = 0.59, unknown: float = 0.42) -> Knobs:
    return Knobs(threshold=threshold, k=k, min_coverage=coverage, max_unknown_weight=unknown)


@pytest.fixture
def db(settings):
    database = Database(settings.db_url)
    yield database
    database.dispose()


def test_save_records_who_when_old_new_and_metrics(db, settings):
    store = DefaultsStore(db, clock=lambda: WHEN)
    # as if XIAOE_MIN_SCORE=0.2 and so on, so the summary below does not depend on the shipped calibration
    settings = settings.with_knobs(settings.knobs.with_(threshold=0.2, k=3, min_coverage=0.59, max_unknown_weight=0.42))
    saved = store.save(knobs(0.3, 5, 0.5, 0.6), actor="王老师", settings=settings,
                       metrics={"balanced_accuracy": 0.81, "k": 5}, note="按题集第 2 版调")
    assert (saved.old_threshold, saved.new_threshold, saved.old_k, saved.new_k) == (0.2, 0.3, 3, 5)
    assert (saved.old_min_coverage, saved.new_min_coverage) == (settings.min_coverage, 0.5)
    assert (saved.old_max_unknown_weight, saved.new_max_unknown_weight) == (settings.max_unknown_weight, 0.6)
    (record,) = store.history()
    assert (record.actor, record.at, record.note) == ("王老师", WHEN, "按题集第 2 版调")
    assert record.metrics == {"balanced_accuracy": 0.81, "k": 5}
    assert record.summary == ("王老师 修改了默认值：阈值 0.20 → 0.30，k 3 → 5，关键词覆盖下限 59% → 50%，"
                              "资料外词权重上限 0.42 → 0.60")


def test_save_takes_the_old_value_from_the_previous_save(db, settings):
    store = DefaultsStore(db)
    store.save(knobs(0.3, 5, 0.7), actor="王老师", settings=settings)
    second = store.save(knobs(0.25, 4), actor="李老师", settings=settings)
    assert (second.old_threshold, second.old_k, second.old_min_coverage) == (0.3, 5, 0.7)
    assert [c.actor for c in store.history()] == ["李老师", "王老师"]
    assert store.current().new_threshold == 0.25


@pytest.mark.parametrize(("values", "actor", "message"), [
    ((1.2, 3), "王老师", "阈值（1.2）必须是 0 到 1 之间的数"),
    ((0.2, 11), "王老师", "k（11）必须是 1 到 10 之间的整数"),
    ((0.2, 3, 1.5), "王老师", "关键词覆盖下限（1.5）必须是 0 到 1 之间的数"),
    ((0.2, 3), "  ", "请先填写操作人姓名"),
])
def test_save_rejects_bad_values_and_stores_nothing(db, settings, values, actor, message):
    store = DefaultsStore(db)
    with pytest.raises(ConfigError, match=message):
        store.save(knobs(*values), actor=actor, settings=settings)
    assert store.history() == ()


def test_save_takes_only_a_whole_set_of_knobs(db, settings):
    with pytest.raises(ConfigError, match="一组完整的闸门参数"):
        DefaultsStore(db).save(0.3, actor="王老师", settings=settings)


def test_effective_settings_without_a_saved_default_is_unchanged(db, settings):
    assert effective_settings(settings, db) == settings


def test_effective_settings_applies_the_saved_default(db, settings):
    DefaultsStore(db).save(knobs(0.3, 5, 0.5, 0.6), actor="王老师", settings=settings)
    effective = effective_settings(settings, db)
    assert effective.knobs == knobs(0.3, 5, 0.5, 0.6)
    assert effective_settings(effective, db) == effective  # idempotent


def test_effective_settings_opens_the_settings_database(settings):
    DefaultsStore(Database(settings.db_url)).save(knobs(0.35, 2), actor="王老师", settings=settings)
    assert effective_settings(settings).min_score == 0.35


def test_the_assistant_uses_the_saved_knobs(db, settings):
    probe = build_assistant(settings, load_or_build(settings), None)
    top = probe.retrieve(QUESTION).candidates[0].value  # thresholds just below / above it, whatever the retriever
    below, above = round(top - 0.01, 4), round(top + 0.01, 4)
    store = DefaultsStore(db)
    store.save(knobs(below, 3), actor="王老师", settings=settings)
    assert not open_assistant(settings, with_model=False).ask(QUESTION).refused
    store.save(knobs(above, 3), actor="王老师", settings=settings)
    result = open_assistant(settings, with_model=False).ask(QUESTION)
    assert result.refused and not result.model_called
    assert result.threshold == above


def test_rows_saved_before_the_decision_knobs_keep_the_configured_ones(db, settings):
    from core.stores.defaults import default_changes

    DefaultsStore(db)  # brings the schema up to date
    with db.transaction("test") as conn:  # a row as migration 1 wrote it
        conn.execute(default_changes.insert().values(at=WHEN, actor="王老师", old_threshold=0.01, new_threshold=0.2,
                                                     old_k=3, new_k=4, metrics="{}", note=""))
    effective = effective_settings(settings.with_knobs(knobs(0.01, 3, 0.5, 0.7)), db)
    assert effective.knobs == knobs(0.2, 4, 0.5, 0.7)
