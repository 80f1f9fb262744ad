"""core.stores.runs: a run round-trips, section texts are kept once, file versions are found, baselines and rights."""

from __future__ import annotations

import pytest

from core.corpus.snapshot import CorpusSnapshot, FileState, file_sections
from core.errors import AuthError, ConflictError, StoreError
from core.stores.accounts import AccountStore
from core.stores.corpus_versions import insert_version, sha256_hex
from core.stores.db import Database
from core.stores.runs import NewRun, RunQuestion, RunStore
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff

TEXT = "# 甲\n第一段。\n\n## 乙\n第二段。\n\n## 乙\n又一个乙。\n"


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


def corpus(text: str = TEXT) -> CorpusSnapshot:
    return CorpusSnapshot((FileState("a.md", sha256_hex(text.encode()), file_sections(text)),))


def new_run(name: str, text: str = TEXT, outcome: str = "正确回答") -> NewRun:
    return NewRun(name=name, origin="eval", set_name="默认题集", set_version=2, set_hash="h" * 64,
                  fingerprint="f" * 64, knobs={"threshold": 0.1, "k": 3}, glossary=(("学费", "费用"),),
                  glossary_fingerprint="g" * 64, answerer="offline", grader="off", reuse="on", actor="王老师",
                  questions=(RunQuestion("学费多少？", "a.md · 甲", outcome, "覆盖 100%", "a.md · 甲", ("bad_ref",)),
                             RunQuestion("雅思呢？", "应拒答", "正确拒答", "没有命中")),
                  corpus=corpus(text))


def test_file_sections_tell_repeated_headings_apart():
    assert [s.heading for s in file_sections(TEXT)] == ["甲", "乙", "乙（第 2 处）"]


def test_run_round_trips(db):
    store = RunStore(db, clock=Clock())
    info = store.save(new_run("A"))
    assert (info.name, info.question_count, info.counts, info.correct) == ("A", 2, {"正确回答": 1, "正确拒答": 1}, 2)
    run = store.load("A")
    assert run.questions == new_run("A").questions
    assert run.glossary == (("学费", "费用"),)
    assert [(f.name, f.version, [h for h, _ in f.sections]) for f in run.files] == [
        ("a.md", None, ["甲", "乙", "乙（第 2 处）"])]
    texts = store.section_texts(s for _, s in run.files[0].sections)
    assert sorted(texts.values()) == ["又一个乙。", "第一段。", "第二段。"]


def test_the_recorded_version_of_a_file_is_kept(db):
    store = RunStore(db, clock=Clock())
    with db.transaction() as conn:
        for version, text in ((1, "# 旧\n旧的。\n"), (2, TEXT)):
            insert_version(conn, source="a.md", version=version, action="edit", content=text, data=text.encode(),
                           actor="t", at=Clock()())
    store.save(new_run("A"))
    assert store.load("A").files[0].version == 2


def test_unchanged_sections_are_stored_once(db):
    store = RunStore(db, clock=Clock())
    store.save(new_run("A"))
    store.save(new_run("B", TEXT.replace("第二段", "第三段")))
    with db.read() as conn:
        from sqlalchemy import func, select

        from core.stores.runs import run_sections
        assert conn.execute(select(func.count()).select_from(run_sections)).scalar() == 4


def test_a_taken_name_and_a_missing_run_are_chinese_errors(db):
    store = RunStore(db, clock=Clock())
    store.save(new_run("A"))
    with pytest.raises(ConflictError, match="已经有名为「A」的运行"):
        store.save(new_run("A"))
    with pytest.raises(StoreError, match="没有名为「B」的运行"):
        store.load("B")


def test_the_newest_baseline_wins_and_only_an_admin_marks_one(db):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    add_staff(accounts)
    signer = SessionStore(accounts)
    store = RunStore(db, clock=Clock())
    store.save(new_run("A"))
    store.save(new_run("B"))
    assert store.baseline() is None
    consultant = signer.sign_in("amy", PASSWORD)
    with pytest.raises(AuthError, match="顾问"):
        store.mark_baseline("A", actor="amy", authorize=signer.guard(consultant.token))
    admin = signer.sign_in("boss", PASSWORD)
    store.mark_baseline("A", actor="boss", authorize=signer.guard(admin.token))
    store.mark_baseline("B", actor="boss")
    assert store.baseline() == "B"


def test_the_payload_is_compressed(db):
    store = RunStore(db, clock=Clock())
    store.save(new_run("A"))
    stored, raw = store.payload_bytes("A")
    assert 0 < stored == store.info("A").stored_bytes and raw > 0
