"""#29 item 6: `xiaoe queue export x.xlsx` crashed with a traceback (printing raw ESC) once a queued question held
a C0 control character such as ESC or Word's vertical tab; a glossary CSV cell over 131,072 characters raised a
raw `_csv.Error` on the page; `CorpusAdmin.save` raised UnicodeEncodeError on a lone surrogate.

Control characters are now shown as their visible pictures (␛, ␋) in xlsx cells and escaped on the terminal; an
oversized CSV cell gets a Chinese message with its row number; a corpus save replaces a lone surrogate with a
visible U+FFFD, as the queue does, and says so.
"""

from __future__ import annotations

import openpyxl
import pytest

from core.answerability.glossary import InvalidGlossary
from core.cli import main
from core.stores import audit
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.glossary_admin import GlossaryAdmin
from core.stores.review import ReviewStore
from core.stores.roles import User
from tests.outcomes import outcome_of
from tests.security.helpers import flagged_answer

ADMIN = User("boss", "王校长", "admin")
CONTROLS = "退费\x1b[31m怎么算\v第二段\x07？"


@pytest.fixture
def db(database_url):
    db = Database(database_url)
    yield db
    db.dispose()


def test_29_06_xlsx_export_of_control_characters_shows_them_and_does_not_crash(db, tmp_path):
    store = ReviewStore(db)
    store.record(outcome_of(flagged_answer(question=CONTROLS, text="开课前全额退费\x0c[1]。"), "fp"))
    target = tmp_path / "队列.xlsx"
    assert store.export(target) == 1
    row = [c.value for c in next(openpyxl.load_workbook(target).active.iter_rows(min_row=2, max_row=2))]
    assert "退费\u241b[31m怎么算\u240b第二段\u2407？" in row and "开课前全额退费\u240c[1]。" in row


def test_29_06_cli_export_and_list_never_print_raw_control_characters(db, database_url, tmp_path, monkeypatch, capsys):
    ReviewStore(db).record(outcome_of(flagged_answer(question=CONTROLS), "fp"))
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    assert main(["queue", "export", str(tmp_path / "队列.xlsx")]) == 0
    assert main(["queue", "list"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "\x1b" not in out + err and "\x07" not in out + err
    assert "已导出 1 条" in out and "\\u001b" in out


def test_29_06_oversized_glossary_csv_cell_gets_a_chinese_message_with_its_row(db):
    data = "标准词,同义词\n退费,退钱钱呀\n转班,\"" + "长" * 140_000 + "\"\n"
    with pytest.raises(InvalidGlossary, match="第 3 行.*太长"):
        GlossaryAdmin(db).import_csv(ADMIN, data.encode("utf-8"))
    assert "退钱钱呀" not in [e.synonym for e in GlossaryAdmin(db).load().entries]


def test_29_06_corpus_save_replaces_a_lone_surrogate_visibly(db, tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    admin = CorpusAdmin(db, folder)
    result = admin.save(ADMIN, "x.md", "# a\n\n\ud800b\n")
    assert result.repaired == 1
    assert (folder / "x.md").read_text(encoding="utf-8") == "# a\n\n\ufffdb\n"
    assert admin.history("x.md")[0].content == "# a\n\n\ufffdb\n"
    (line,) = audit.recent(db, action="corpus_edit")
    assert "1 个无法保存的字符" in line.detail
