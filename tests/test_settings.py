"""Settings: defaults, environment overrides, validation with both values named."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import ConfigError
from core.settings import DEFAULT_MIN_SCORE, DEFAULT_TOP_K, Settings


def test_settings_defaults_come_from_one_place():
    settings = Settings.from_env({})
    assert (settings.min_score, settings.top_k) == (DEFAULT_MIN_SCORE, DEFAULT_TOP_K)
    assert settings.db_url.endswith("data/xiaoe.sqlite3")


def test_settings_env_overrides(tmp_path):
    env = {"XIAOE_MIN_SCORE": "0.33", "XIAOE_TOP_K": "5", "XIAOE_DATA_DIR": str(tmp_path),
           "XIAOE_CORPUS_DIR": str(tmp_path / "c")}
    settings = Settings.from_env(env)
    assert (settings.min_score, settings.top_k) == (0.33, 5)
    assert settings.data_dir == Path(tmp_path) and settings.db_url == f"sqlite:///{tmp_path}/xiaoe.sqlite3"


@pytest.mark.parametrize("env,fragment", [
    ({"XIAOE_MIN_SCORE": "abc"}, "XIAOE_MIN_SCORE"),
    ({"XIAOE_MIN_SCORE": "1.5"}, "0 到 1"),
    ({"XIAOE_TOP_K": "0"}, "XIAOE_TOP_K"),
    ({"XIAOE_CHUNK_SIZE": "40", "XIAOE_CHUNK_OVERLAP": "40"}, "chunk_overlap（40）必须小于片段长度 chunk_size（40）"),
    ({"XIAOE_RETRIEVER": "magic"}, "magic"),
    ({"XIAOE_SERVICE_THREADS": "201"}, "XIAOE_SERVICE_THREADS（201）必须在 0 到 200 之间"),
])
def test_settings_bad_values_get_chinese_messages(env, fragment):
    with pytest.raises(ConfigError, match=fragment):
        Settings.from_env(env)


def test_settings_repr_hides_api_keys():
    settings = Settings.from_env({"XIAOE_LLM_API_KEY": "sk-secret-123"})
    assert "sk-secret-123" not in repr(settings)


def test_threshold_only_gate_gets_its_own_default_threshold():
    from core.settings import DEFAULT_MIN_SCORE, THRESHOLD_ONLY_MIN_SCORE
    assert Settings.from_env({}).min_score == DEFAULT_MIN_SCORE
    assert Settings.from_env({"XIAOE_ANSWERABILITY": "off"}).min_score == THRESHOLD_ONLY_MIN_SCORE
    assert Settings.from_env({"XIAOE_ANSWERABILITY": "off", "XIAOE_MIN_SCORE": "0.3"}).min_score == 0.3
    assert Settings.from_env({}, answerability="off").min_score == THRESHOLD_ONLY_MIN_SCORE


def test_tests_do_not_inherit_the_console_settings_of_the_shell():
    from tests.env import console_settings, without_console_settings

    shell = {"XIAOE_LLM_MODEL": "gpt", "XIAOE_DATABASE_URL": "postgresql://x", "XIAOE_TEST_DATABASE_URL": "pg",
             "XIAOE_SCREENSHOTS": "docs/screenshots", "PATH": "/usr/bin"}
    assert console_settings(shell) == ["XIAOE_DATABASE_URL", "XIAOE_LLM_MODEL"]
    assert without_console_settings(shell) == {"XIAOE_TEST_DATABASE_URL": "pg", "XIAOE_SCREENSHOTS": "docs/screenshots",
                                               "PATH": "/usr/bin"}
    assert console_settings() == []  # the autouse fixture in tests/conftest.py cleared this test's environment


def test_the_service_threads_follow_the_answerer_unless_set():
    assert Settings.load({}).answering_threads == 4  # the offline answerer: CPU under one GIL
    model = {"XIAOE_LLM_BASE_URL": "http://127.0.0.1:9/v1", "XIAOE_LLM_MODEL": "m"}
    assert Settings.load(model).answering_threads == 40  # a chat model: waiting on the network
    assert Settings.load({**model, "XIAOE_SERVICE_THREADS": "8"}).answering_threads == 8
