"""core.stores.question_sets: validation that names the row, formats (CSV/GBK/XLSX), size limit, versioning."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.errors import AuthError, ConflictError, QuestionSetError
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.db import Database
from core.stores.question_sets import (
    DEFAULT_SET_NAME,
    DEFAULT_SET_PATH,
    QuestionSetStore,
    corpus_catalog,
    load_default_set,
    parse_question_set,
    read_question_file,
)
from core.stores.roles import User, require
from tests.paths import SETS

FILES = {"01-口语课分级说明.md", "02-退费与转班制度.md"}
SECTIONS = {"01-口语课分级说明.md": ("一、级别总数与定位", "三、学费标准"), "02-退费与转班制度.md": ("三、退费计算口径",)}
HEADER = "question,expected,section,key_phrase\n"
GOOD = HEADER + "口语课一共有几级？,01-口语课分级说明.md,一、级别总数与定位,一共分为四级\n雅思班多少钱？,应拒答,,\n"


def parse(text: str, **options):
    return parse_question_set(text.encode("utf-8"), filename="set.csv", known_files=FILES,
                              known_sections=SECTIONS, **options)




































def test_default_set_is_the_calibration_set():
    assert DEFAULT_SET_PATH.read_bytes() == (SETS / "calibration.csv").read_bytes()


def test_default_set_is_valid_against_the_shipped_corpus():
    files, sections = corpus_catalog(load_or_build(Settings.from_env({})).index)
    qset = read_question_file(DEFAULT_SET_PATH, known_files=files, known_sections=sections)
    assert len(qset) == 66 and qset.answerable == 46


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture
def store(database_url):
    db = Database(database_url)
    yield QuestionSetStore(db, clock=Clock())
    db.dispose()


def test_store_default_set_starts_as_the_packaged_version(store):
    stored = store.load()
    assert stored.info.version == 0 and stored.info.author == "出厂设置"
    assert stored.questions == load_default_set()
    assert store.names() == (DEFAULT_SET_NAME,)


def test_store_every_save_is_a_new_version_and_old_ones_stay(store):
    first = store.save("新生题集", parse(GOOD), author="王老师", note="初版")
    second = store.save("新生题集", parse(GOOD.replace("几级", "多少级")), author="李老师")
    assert (first.version, second.version) == (1, 2)
    assert [(v.version, v.author) for v in store.versions("新生题集")] == [(2, "李老师"), (1, "王老师")]
    assert store.load("新生题集", 1).questions == parse(GOOD)
    assert store.load("新生题集").questions.questions[0].question == "口语课一共有多少级？"
    assert store.versions("新生题集")[1].note == "初版"


def test_store_saved_default_set_keeps_the_packaged_version(store):
    store.save(DEFAULT_SET_NAME, parse(GOOD), author="王老师")
    assert [v.version for v in store.versions(DEFAULT_SET_NAME)] == [1, 0]
    assert len(store.load(DEFAULT_SET_NAME).questions) == 2
    assert len(store.load(DEFAULT_SET_NAME, 0).questions) == 66


def test_store_refuses_a_save_based_on_a_stale_version(store):
    store.save("新生题集", parse(GOOD), author="王老师")
    store.save("新生题集", parse(GOOD.replace("几级", "多少级")), author="李老师", base_version=1)
    with pytest.raises(ConflictError, match="已被「李老师」保存为第 2 版，你编辑的是第 1 版"):
        store.save("新生题集", parse(GOOD), author="王老师", base_version=1)
    assert len(store.versions("新生题集")) == 2


def test_store_requires_an_author(store):
    with pytest.raises(QuestionSetError, match="请先填写操作人"):
        store.save("新生题集", parse(GOOD), author="  ")
    assert store.versions("新生题集") == ()


def test_store_load_of_a_missing_version_says_so(store):
    with pytest.raises(QuestionSetError, match="题集「没有的」没有任何版本"):
        store.load("没有的")


def test_store_a_bad_upload_saves_nothing(store):
    with pytest.raises(QuestionSetError):
        store.save("新生题集", parse(HEADER + "好题,应拒答,,\n坏题,05.md,,\n"), author="王老师")
    assert store.versions("新生题集") == ()




def test_store_an_identical_set_is_not_saved_as_a_new_version(store):
    store.save("新生题集", parse(GOOD), author="王老师")
    again = store.save("新生题集", parse(GOOD), author="李老师", base_version=1)
    assert (again.version, again.unchanged, again.author) == (1, True, "王老师")
    assert [v.version for v in store.versions("新生题集")] == [1]
    packaged = store.save(DEFAULT_SET_NAME, load_default_set(), author="王老师")
    assert (packaged.version, packaged.unchanged) == (0, True)
    assert [v.version for v in store.versions(DEFAULT_SET_NAME)] == [0]


@pytest.mark.parametrize("role", ["consultant"])
def test_store_only_an_admin_saves_a_question_set(store, role):
    with pytest.raises(AuthError, match="不能保存标注题集的新版本"):
        store.save("新生题集", parse(GOOD), author="王老师", actor=User("amy", "王老师", role))
    assert store.versions("新生题集") == ()
    saved = store.save("新生题集", parse(GOOD), author="王校长", actor=User("boss", "王校长", "admin"))
    assert saved.version == 1


def test_store_a_consultant_session_is_refused_inside_the_transaction(store):
    def consultant_session(conn, permission):
        return require(User("amy", "王老师", "consultant"), permission)

    with pytest.raises(AuthError, match="仅限管理员"):
        store.save("新生题集", parse(GOOD), author="王老师", authorize=consultant_session)
    assert store.versions("新生题集") == ()
