"""#16 item 14: an 80-Chinese-character upload name saves (the temporary name stays short); a name longer
than the file system allows is refused with a Chinese message, never an OSError traceback."""

from __future__ import annotations

import pytest

from core.corpus.write import name_max
from core.errors import CorpusError
from core.stores.corpus_admin import NEW_FILE, CorpusAdmin
from core.stores.db import Database
from core.stores.roles import User

ADMIN = User("boss", "王校长", "admin")


@pytest.fixture
def admin(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    return CorpusAdmin(Database(f"sqlite:///{tmp_path / 'x.sqlite3'}"), folder)


def test_corpus_long_name_of_80_chinese_characters_saves(admin):
    name = "退" * 80 + ".md"  # 243 bytes: fits ext4's 255, a temp name built from it would not
    assert len(name.encode("utf-8")) <= name_max(admin.corpus_dir)
    result = admin.save(ADMIN, name, "# 长文件名\n\n内容。\n", expected_sha256=NEW_FILE, action="upload")
    assert result.created and (admin.corpus_dir / name).read_text(encoding="utf-8") == "# 长文件名\n\n内容。\n"
    assert [p.name for p in admin.corpus_dir.iterdir()] == [name]  # no temporary file left behind


def test_corpus_long_name_over_the_file_system_limit_gets_a_chinese_message(admin, monkeypatch):
    monkeypatch.setattr("core.corpus.write.name_max", lambda folder: 100)  # e.g. a share with a short limit
    with pytest.raises(CorpusError, match="超过了服务器文件系统允许的 100 字节"):
        admin.save(ADMIN, "退" * 40 + ".md", "# 长\n内容", expected_sha256=NEW_FILE, action="upload")
    assert list(admin.corpus_dir.iterdir()) == []
