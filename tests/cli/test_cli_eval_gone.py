"""`eval` after a section was deleted (#40): the set is evaluated, not refused; the rows expecting the deleted
section are misses with the reason 「期望的小节已不在资料里」, and `runs compare` shows what the deletion broke. Runs
are stored, so on both engines."""

from __future__ import annotations

import json
import shutil

import pytest

from core.cli import main
from core.sets.format import GONE_REASON
from tests.paths import CORPUS

REFUND = "02-退费与转班制度.md"
DELETED = "## 四、不予退费的情形\n\n已上课时超过总课时的一半（即超过 8 课时）后，不再受理退费申请。\n\n教材费不在退费范围内。\n\n"
SET = ("question,expected,section,key_phrase\n"
       "上课超过一半了还能退吗,02-退费与转班制度.md,四、不予退费的情形,\n"
       "保留学籍最长多久,02-退费与转班制度.md,六、保留学籍,最长保留 6 个月\n")


@pytest.fixture
def env(tmp_path, database_url, monkeypatch):
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    for name, value in {"XIAOE_CORPUS_DIR": str(folder), "XIAOE_DATA_DIR": str(tmp_path / "data"),
                        "XIAOE_DATABASE_URL": database_url}.items():
        monkeypatch.setenv(name, value)
    labelled = tmp_path / "题集.csv"
    labelled.write_text(SET, encoding="utf-8")
    return folder, str(labelled)


def cli_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_after_a_section_is_deleted_marks_its_rows_and_compare_shows_them(env, capsys):
    folder, labelled = env
    before = cli_json(capsys, "eval", labelled, "--save-run", "删之前")
    assert [q["outcome"] for q in before["questions"]] == ["正确回答", "正确回答"]
    assert [q["gone"] for q in before["questions"]] == ["", ""]
    path = folder / REFUND
    text = path.read_text(encoding="utf-8")
    assert text.count(DELETED) == 1
    path.write_text(text.replace(DELETED, ""), encoding="utf-8")

    after = cli_json(capsys, "eval", labelled, "--save-run", "删之后")  # the set was refused before #40
    gone, kept = after["questions"]
    assert gone["outcome"] in ("误拒", "命中错误资料") and gone["reason"].startswith(GONE_REASON)
    assert "四、不予退费的情形" in gone["gone"]
    assert (kept["outcome"], kept["gone"]) == ("正确回答", "")
    assert after["metrics"]["counts"]["正确回答"] == 1

    compare = cli_json(capsys, "runs", "compare", "删之前", "删之后")
    (flip,) = compare["flips"]
    assert flip["question"] == "上课超过一半了还能退吗" and flip["after_reason"].startswith(GONE_REASON)
    assert [f["file"] for f in compare["changed"]["files"]] == [REFUND]

    assert main(["eval", labelled]) == 0  # the table says which rows, and why they count as misses
    out = capsys.readouterr().out
    assert f"其中 1 题{GONE_REASON}" in out and "第 2 行" in out
