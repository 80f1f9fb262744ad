"""Several instances, one truth: two holders on one database, each with its own corpus folder."""

from __future__ import annotations

import shutil
import threading

import pytest

from core.retrieval.index import search_with_score
from core.serving.holder import IndexHolder
from core.settings import Settings
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import open_database
from core.stores.roles import User
from tests.paths import CORPUS

ADMIN = User("boss", "王校长", "admin")
REFUND = "02-退费与转班制度.md"
NEW_FACT = "周日晚上的试听课取消后可以改约到下周三。"


def instance(tmp_path, name: str, db_url: str, *, seed: bool) -> Settings:
    folder = tmp_path / name / "corpus"
    if seed:
        shutil.copytree(CORPUS, folder)
    else:
        folder.mkdir(parents=True)
    return Settings(corpus_dir=folder, data_dir=tmp_path / name / "data", database_url=db_url)


@pytest.fixture
def two(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    a = IndexHolder.start(instance(tmp_path, "a", url, seed=True), poll_s=3600)
    b = IndexHolder.start(instance(tmp_path, "b", url, seed=False), poll_s=3600)
    yield a, b
    a.stop()
    b.stop()


def test_index_holder_new_instance_materialises_the_corpus_from_the_database(two):
    a, b = two
    assert b.bundle().files == a.bundle().files and len(b.bundle().index) == len(a.bundle().index)
    assert (b.settings.corpus_dir / REFUND).read_bytes() == (a.settings.corpus_dir / REFUND).read_bytes()


def test_index_holder_sees_another_instances_save(two):
    a, b = two
    admin = CorpusAdmin(open_database(a.settings.db_url), a.settings.corpus_dir)
    text, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, text + f"\n## 改约\n\n{NEW_FACT}\n", expected_sha256=sha)
    old = b.bundle()
    assert b.check() is True
    assert b.bundle() is not old and b.bundle().fingerprint != old.fingerprint
    assert NEW_FACT in (b.settings.corpus_dir / REFUND).read_text(encoding="utf-8")
    best, _ = search_with_score(b.bundle().index, "试听课取消后可以改约到哪天", 1)[0]
    assert NEW_FACT in best.page_content
    assert b.check() is False  # nothing new since


def test_index_holder_serves_the_old_index_while_rebuilding(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    entered, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow_prepare(bundle):
        calls.append(1)
        if len(calls) > 1:  # the rebuild, not the first build
            entered.set()
            release.wait(10)

    holder = IndexHolder.start(instance(tmp_path, "a", url, seed=True), poll_s=3600, prepare=slow_prepare)
    old = holder.bundle()
    admin = CorpusAdmin(open_database(url), holder.settings.corpus_dir)
    text, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, text + f"\n{NEW_FACT}\n", expected_sha256=sha)
    worker = threading.Thread(target=holder.check)
    worker.start()
    assert entered.wait(30)
    assert holder.bundle() is old  # still served while the new one is prepared
    release.set()
    worker.join(30)
    assert holder.bundle() is not old
    holder.stop()


def test_index_holder_watch_thread_picks_up_a_change_by_itself(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    a = IndexHolder.start(instance(tmp_path, "a", url, seed=True), poll_s=3600)
    b = IndexHolder.start(instance(tmp_path, "b", url, seed=False), poll_s=0.05)
    first = b.bundle()
    admin = CorpusAdmin(open_database(url), a.settings.corpus_dir)
    admin.save(ADMIN, "新通知.md", f"# 通知\n\n{NEW_FACT}\n", action="upload")
    swapped = threading.Event()
    for _ in range(600):  # up to 30 s on a loaded machine; the poll itself is every 0.05 s
        if b.bundle() is not first:
            swapped.set()
            break
        threading.Event().wait(0.05)
    a.stop()
    b.stop(wait=True)
    assert swapped.is_set() and "新通知.md" in b.bundle().files


def test_index_holder_rebuild_on_request_is_for_admins_only(tmp_path):
    from core.errors import AuthError

    holder = IndexHolder(instance(tmp_path, "a", f"sqlite:///{tmp_path / 'x.sqlite3'}", seed=True), poll_s=3600)
    with pytest.raises(AuthError, match="不能重建资料索引"):
        holder.rebuild(User("amy", "顾问 Amy", "consultant"))
    assert holder.status.fingerprint == ""  # nothing was built
    holder.rebuild(ADMIN)
    assert holder.bundle().files
