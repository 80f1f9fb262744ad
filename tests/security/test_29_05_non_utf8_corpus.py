"""#29 item 5: a file one instance could not read as UTF-8 spread to the others: that instance still recorded a
`baseline` version of its U+FFFD mojibake, which every other instance then wrote out and indexed.

Such a file is now never recorded (not by the sync, not as the "before" state of a save), so it never spreads;
the instance logs it, and every instance's Sources page can say which file on which instance.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from core.errors import CorpusError
from core.stores.corpus_admin import CorpusAdmin
from core.stores.corpus_sync import sync_corpus
from core.stores.corpus_versions import corpus_versions
from core.stores.db import Database
from core.stores.roles import User

GOOD = "# 退费\n\n开课前可全额退费。\n"
BAD = "# 转班\n\n转班需要提前一周申请。\n".encode("gbk")
ADMIN = User("boss", "王校长", "admin")


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def folders(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "01-退费.md").write_text(GOOD, encoding="utf-8")
    (a / "02-转班.md").write_bytes(BAD)
    return a, b


def recorded(db) -> list[str]:
    with db.read() as conn:
        return sorted(conn.execute(select(corpus_versions.c.source)).scalars())


def test_29_05_a_non_utf8_file_is_not_recorded_and_does_not_spread(db, folders):
    a, b = folders
    report_a = sync_corpus(db, a)
    assert recorded(db) == ["01-退费.md"]
    assert any("02-转班.md" in p and "UTF-8" in p for p in report_a.problems)
    sync_corpus(db, b)
    assert sorted(p.name for p in b.glob("*.md")) == ["01-退费.md"]  # nothing garbled was written out
    assert (a / "02-转班.md").read_bytes() == BAD  # and the file itself is left alone


def test_29_05_every_instance_can_say_which_file_on_which_instance(db, folders):
    from core.stores.corpus_sync import instance_name, refusals  # new in this fix

    a, b = folders
    sync_corpus(db, a)
    sync_corpus(db, b)
    (seen,) = refusals(db, other_than=instance_name(b))
    assert seen.instance == instance_name(a) and seen.source == "02-转班.md"
    assert "02-转班.md" in seen.sentence and instance_name(a) in seen.sentence and "UTF-8" in seen.sentence
    assert refusals(db, other_than=instance_name(a)) == ()


def test_29_05_the_refusal_is_logged_once_and_cleared_when_fixed(db, folders, caplog):
    from core.stores.corpus_sync import refusals  # new in this fix

    a, _ = folders
    with caplog.at_level(logging.WARNING, logger="core.stores.corpus_sync"):
        sync_corpus(db, a)
        sync_corpus(db, a)
    assert len([r for r in caplog.records if "02-转班.md" in r.getMessage()]) == 1
    (a / "02-转班.md").write_text("# 转班\n\n转班需要提前一周申请。\n", encoding="utf-8")
    report = sync_corpus(db, a)
    assert recorded(db) == ["01-退费.md", "02-转班.md"]
    assert not report.problems and refusals(db) == ()


def test_29_05_the_editor_does_not_open_a_non_utf8_file_as_mojibake(db, folders):
    a, _ = folders
    with pytest.raises(CorpusError, match="UTF-8"):
        CorpusAdmin(db, a).read("02-转班.md")


def test_29_05_saving_over_a_non_utf8_file_records_no_garbled_version(db, folders):
    a, _ = folders
    result = CorpusAdmin(db, a).save(ADMIN, "02-转班.md", "# 转班\n\n新的规定。\n")
    history = CorpusAdmin(db, a).history("02-转班.md")
    assert [v.action for v in history] == ["edit"] and result.version == 1
    assert all("\ufffd" not in v.content for v in history)
