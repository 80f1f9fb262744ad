"""Corpus administration: admin-only saves, versions with sha256 and author, diffs, conflicts, re-queue."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest

from core.errors import AuthError, ConflictError, CorpusError
from core.retrieval.store import corpus_fingerprint
from core.settings import Settings
from core.stores import audit
from core.stores.corpus_admin import BASELINE_ACTOR, NEW_FILE, CorpusAdmin, diff_text
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.stores.roles import User
from core.stores.stale import cited_sources, requeue_stale
from core.values import Hit, RAGAnswer
from tests.auth_helpers import Clock
from tests.paths import ROOT

ADMIN = User("boss", "王校长", "admin")
CONSULTANT = User("amy", "顾问 Amy", "consultant")
REFUND = "02-退费与转班制度.md"


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(os.path.join(ROOT, "corpus"), folder)
    return folder


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def admin(db, corpus):
    return CorpusAdmin(db, corpus, now=Clock())


def test_corpus_admin_upload_creates_file_and_first_version(admin, corpus):
    result = admin.save(ADMIN, "常见问题.md", "# 常见问题\n\n上课时间：周六上午。\n".encode(), expected_sha256=NEW_FILE,
                        action="upload")
    assert (result.created, result.changed, result.version) == (True, True, 1)
    assert (corpus / "常见问题.md").read_text(encoding="utf-8") == "# 常见问题\n\n上课时间：周六上午。\n"
    (version,) = admin.history("常见问题.md")
    assert (version.actor, version.action, version.sha256) == ("boss", "upload", result.sha256)
    assert version.sha256 == hashlib.sha256((corpus / "常见问题.md").read_bytes()).hexdigest()


def test_corpus_admin_edit_keeps_the_previous_version(admin, corpus):
    before = (corpus / REFUND).read_text(encoding="utf-8")
    _, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, before + "\n补充：节假日顺延。\n", expected_sha256=sha)
    newest, previous = admin.history(REFUND)
    assert (previous.version, previous.action, previous.actor, previous.content) == (1, "baseline", BASELINE_ACTOR,
                                                                                     before)
    assert (newest.version, newest.action, newest.actor) == (2, "edit", "boss")
    assert newest.content.endswith("补充：节假日顺延。\n")


def test_corpus_admin_second_edit_adds_one_version(admin):
    text, sha = admin.read(REFUND)
    first = admin.save(ADMIN, REFUND, text + "\nA\n", expected_sha256=sha)
    second = admin.save(ADMIN, REFUND, text + "\nB\n", expected_sha256=first.sha256)
    assert [v.version for v in admin.history(REFUND)] == [3, 2, 1]
    assert second.previous_sha256 == first.sha256


def test_corpus_admin_change_outside_the_console_is_kept_as_a_baseline(admin, corpus):
    text, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, text + "\nA\n", expected_sha256=sha)
    (corpus / REFUND).write_text(text + "\n服务器上直接改的\n", encoding="utf-8")
    admin.save(ADMIN, REFUND, text + "\nC\n")
    actions = [(v.version, v.action) for v in admin.history(REFUND)]
    assert actions == [(4, "edit"), (3, "baseline"), (2, "edit"), (1, "baseline")]


def test_corpus_admin_same_content_is_not_a_new_version(admin):
    text, sha = admin.read(REFUND)
    result = admin.save(ADMIN, REFUND, text, expected_sha256=sha)
    assert not result.changed and admin.history(REFUND) == ()


@pytest.mark.parametrize("action", [
    lambda a: a.save(CONSULTANT, "新资料.md", "# 新\n内容"),
    lambda a: a.save(CONSULTANT, REFUND, "# 改\n内容"),
    lambda a: a.restore(CONSULTANT, a.save(ADMIN, "新资料.md", "# 新\n内容").version),
])
def test_corpus_admin_consultant_cannot_change_files(admin, corpus, action):
    before = {p.name: p.read_bytes() for p in corpus.iterdir()}
    with pytest.raises(AuthError, match="顾问"):
        action(admin)
    after = {p.name: p.read_bytes() for p in corpus.iterdir()}
    assert {k: v for k, v in after.items() if k != "新资料.md"} == {k: v for k, v in before.items() if k != "新资料.md"}
    assert all(e.actor != "amy" for e in audit.recent(admin.db))


def test_corpus_admin_anonymous_cannot_change_files(admin):
    with pytest.raises(AuthError, match="请先登录"):
        admin.save(None, "x.md", "# x\n内容")


def test_corpus_admin_upload_over_existing_file_needs_confirmation(admin):
    with pytest.raises(ConflictError, match="已经存在"):
        admin.save(ADMIN, REFUND, "# 覆盖\n", expected_sha256=NEW_FILE, action="upload")


def test_corpus_admin_stale_editor_is_refused(admin):
    text, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, text + "\n别人先改了\n", expected_sha256=sha)
    with pytest.raises(ConflictError, match="已被修改"):
        admin.save(ADMIN, REFUND, text + "\n我的修改\n", expected_sha256=sha)


@pytest.mark.parametrize(("name", "content"), [("../escape.md", "# x\n内容"), ("x.txt", "内容"),
                                               ("gbk.md", "退费".encode("gbk")), ("empty.md", "  ")])
def test_corpus_admin_bad_names_and_contents_write_nothing(admin, corpus, name, content):
    before = sorted(p.name for p in corpus.parent.rglob("*"))
    with pytest.raises(CorpusError):
        admin.save(ADMIN, name, content)
    assert sorted(p.name for p in corpus.parent.rglob("*")) == before


def test_corpus_admin_failed_write_records_no_version(admin, corpus, monkeypatch):
    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(CorpusError, match="无法写入"):
        admin.save(ADMIN, "新资料.md", "# 新\n内容")
    assert admin.history("新资料.md") == () and not (corpus / "新资料.md").exists()
    assert not [p for p in corpus.iterdir() if p.name.startswith(".")]  # no temp file left behind


def test_corpus_admin_failed_rename_keeps_the_recorded_version(admin, corpus, monkeypatch):
    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(CorpusError, match="已保存为新版本"):
        admin.save(ADMIN, "新资料.md", "# 新\n内容")
    assert [v.version for v in admin.history("新资料.md")] == [1]  # the database is ahead; sync writes the file
    assert not [p for p in corpus.iterdir() if p.name.startswith(".")]


def test_corpus_admin_symlink_is_not_followed(admin, corpus, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("# 外面\n", encoding="utf-8")
    (corpus / "link.md").symlink_to(outside)
    with pytest.raises(CorpusError, match="普通文件"):
        admin.save(ADMIN, "link.md", "# 改写\n内容")
    assert outside.read_text(encoding="utf-8") == "# 外面\n"


def test_corpus_admin_save_is_audited_with_who(admin):
    admin.save(ADMIN, "新资料.md", "# 新\n内容", action="upload")
    (entry,) = audit.recent(admin.db, action="corpus_upload")
    assert (entry.actor, entry.target) == ("boss", "新资料.md") and "第 1 版" in entry.detail


def test_corpus_admin_restore_brings_back_old_content(admin):
    text, sha = admin.read(REFUND)
    admin.save(ADMIN, REFUND, text + "\n错误的修改\n", expected_sha256=sha)
    baseline = admin.history(REFUND)[-1]
    result = admin.restore(ADMIN, baseline.id)
    assert admin.read(REFUND) == (text, result.sha256)
    assert admin.history(REFUND)[0].action == "restore"


def test_corpus_admin_fingerprint_changes_after_save(admin, corpus, tmp_path):
    settings = Settings(corpus_dir=corpus, data_dir=tmp_path / "data")
    before = corpus_fingerprint(settings)
    admin.save(ADMIN, "新资料.md", "# 新\n内容")
    assert corpus_fingerprint(settings) != before


def test_corpus_admin_versions_are_append_only(admin):
    admin.save(ADMIN, "新资料.md", "# 新\n内容")
    with pytest.raises(Exception, match="append-only"), admin.db.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE corpus_versions SET content = 'x'")


def test_corpus_admin_diff_shows_changed_lines():
    diff = diff_text("a\nb\nc\n", "a\nB\nc\n", old_label="第 1 版", new_label="第 2 版")
    assert diff.splitlines() == ["--- 第 1 版", "+++ 第 2 版", "@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]


def test_corpus_admin_diff_of_equal_texts_is_empty():
    assert diff_text("a\n", "a\n") == ""


def test_corpus_admin_diff_without_final_newline_stays_line_based():
    assert diff_text("a", "b").splitlines()[-2:] == ["-a", "+b"]


# --- re-queue approved answers whose sources changed ---------------------------------------------

def hit(rank: int, source: str, passed: bool = True) -> Hit:
    return Hit(rank=rank, source=source, heading="", chunk=rank, start=0, end=5, text="片段", score=0.5,
               passed=passed)


def approved_item(store: ReviewStore, text: str, sources: list[str]) -> int:
    candidates = tuple(hit(i, s) for i, s in enumerate(sources, start=1))
    answer = RAGAnswer(question="退费怎么算？", text=text, hits=candidates, candidates=candidates, threshold=0.2,
                       k=len(candidates), refused=False, model_called=True)
    item_id = store.enqueue(answer, origin="manual", flagged_by="amy", fingerprint="f1")
    store.decide(item_id, action="approve", reviewer="amy", expected_version=1)
    return item_id


def test_corpus_admin_cited_sources_follow_citation_numbers():
    candidates = (hit(1, "a.md"), hit(2, "x.md", passed=False), hit(3, "b.md"))
    assert cited_sources("见 [2]", candidates) == {"b.md"}  # [2] is the second *passed* hit
    assert cited_sources("没有编号", candidates) == {"a.md", "b.md"}


def test_corpus_admin_requeue_reopens_only_items_citing_changed_files(db):
    store = ReviewStore(db)
    citing = approved_item(store, "全额退费 [1]", [REFUND])
    other = approved_item(store, "分 4 级 [1]", ["01-口语课分级说明.md"])
    reopened = requeue_stale(db, {REFUND: "内容改了"}, "王校长（boss）")
    assert reopened == [citing]
    item = store.get(citing)
    assert (item.status, item.reviewer, item.note) == ("pending", "amy", None)  # the decision's own fields stay
    assert item.reasons[-1].code == "stale_corpus" and REFUND in item.reasons[-1].message
    assert item.system_notes == (item.reasons[-1].message,)
    assert store.events(citing)[-1].actor == "王校长（boss）"
    assert store.get(other).status == "approved"
    assert store.events(citing)[-1].action == "reopen"


def test_corpus_admin_requeue_leaves_pending_and_rejected_alone(db):
    store = ReviewStore(db)
    answer = RAGAnswer(question="退费？", text="[1]", hits=(hit(1, REFUND),), candidates=(hit(1, REFUND),),
                       threshold=0.2, k=1, refused=False, model_called=True)
    pending = store.enqueue(answer, origin="manual", flagged_by="amy")
    assert requeue_stale(db, {REFUND: "改了"}, "boss") == []
    assert store.get(pending).version == 1


def test_corpus_admin_requeue_of_nothing_does_nothing(db):
    assert requeue_stale(db, {}, "boss") == []
    assert ReviewStore(db).counts().total == 0


def test_corpus_admin_requeued_items_show_in_the_stale_lane(db):
    store = ReviewStore(db)
    item_id = approved_item(store, "全额退费 [1]", [REFUND])
    requeue_stale(db, {REFUND: "改了"}, "boss")
    assert [i.id for i in store.list(Filters(status="pending", lane="stale")).items] == [item_id]
