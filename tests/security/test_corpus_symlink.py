"""#16 item 13: a symlink in the corpus folder (corpus/passwd.md -> /etc/passwd) is never read, indexed or quoted.

Refused at load (the index and the loader leave it out and say so in Chinese), by the start-up
sync (not imported into the database), and at upload (saving over it is refused in Chinese).
"""

from __future__ import annotations

import shutil

import pytest

from core.corpus.loader import load_corpus
from core.errors import CorpusError
from core.retrieval.index import search_with_score
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.roles import User
from tests.paths import ROOT

SECRET = "root:x:0:0:机密口令行"


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", folder)
    outside = tmp_path / "passwd"
    outside.write_text(f"# 系统\n\n{SECRET}\n", encoding="utf-8")
    (folder / "passwd.md").symlink_to(outside)
    return folder


def test_corpus_symlink_is_not_indexed(tmp_path, corpus):
    settings = Settings.from_env({"XIAOE_DATA_DIR": str(tmp_path / "data"), "XIAOE_CORPUS_DIR": str(corpus)})
    bundle = load_or_build(settings)
    assert "passwd.md" not in bundle.files
    assert all(SECRET not in doc.page_content for doc, _ in search_with_score(bundle.index, "root 机密口令行", 10))
    assert any("passwd.md" in note and "符号链接" in note for note in bundle.skipped)


def test_corpus_symlink_is_refused_by_the_loader(corpus):
    report = load_corpus(corpus)
    assert "passwd.md" not in report.files
    assert all(SECRET not in chunk.page_content for chunk in report.chunks)
    assert any("符号链接" in note for note in report.skipped)


def test_corpus_symlink_upload_over_it_is_refused(tmp_path, corpus):
    admin = CorpusAdmin(Database(f"sqlite:///{tmp_path / 'x.sqlite3'}"), corpus)
    with pytest.raises(CorpusError, match="符号链接"):
        admin.save(User("boss", "王校长", "admin"), "passwd.md", "# 改写\n内容", action="upload")
    assert (tmp_path / "passwd").read_text(encoding="utf-8").endswith(f"{SECRET}\n")
    assert "passwd.md" not in admin.files()


def test_corpus_symlink_is_not_imported_by_the_sync(tmp_path, corpus):
    from core.stores.corpus_sync import sync_corpus

    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    report = sync_corpus(db, corpus)
    assert "passwd.md" not in report.imported and any("符号链接" in p for p in report.problems)
    assert CorpusAdmin(db, corpus).history("passwd.md") == ()
