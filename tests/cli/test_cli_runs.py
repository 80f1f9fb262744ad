"""`python -m core eval --save-run` and `python -m core runs list|compare|baseline`: stored runs compared question by
question against fresh evaluations of the same two corpus states."""

from __future__ import annotations

import json
import shutil

import pytest

from core.cli import main
from tests.paths import CORPUS

EDITED_FILE = "01-口语课分级说明.md"
EDITED_SECTION = "二、课时安排与班型"
PLANTED = "每周上 2 课时，八周结课。"
REPLACEMENT = "上课的周数和每周课时请咨询班主任。"


@pytest.fixture
def corpus_copy(tmp_path, monkeypatch):
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    monkeypatch.setenv("XIAOE_CORPUS_DIR", str(folder))
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path / "data"))
    return folder


def cli_json(capsys, *args: str):
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def outcomes(report: dict) -> dict[str, str]:
    return {q["question"]: q["outcome"] for q in report["questions"]}


def test_runs_compare_lists_exactly_the_flips_of_two_fresh_evaluations(capsys, corpus_copy):
    fresh_a = outcomes(cli_json(capsys, "eval"))
    assert cli_json(capsys, "eval", "--save-run", "A")["saved_run"] == "A"
    path = corpus_copy / EDITED_FILE
    text = path.read_text(encoding="utf-8")
    assert text.count(PLANTED) == 1
    path.write_text(text.replace(PLANTED, REPLACEMENT), encoding="utf-8")
    fresh_b = outcomes(cli_json(capsys, "eval"))
    cli_json(capsys, "eval", "--save-run", "B")
    expected = {q: (fresh_a[q], fresh_b[q]) for q in fresh_a if fresh_a[q] != fresh_b[q]}
    assert expected, "the planted sentence should change at least one outcome"

    report = cli_json(capsys, "runs", "compare", "A", "B")
    assert {f["question"]: (f["before"], f["after"]) for f in report["flips"]} == expected
    assert len(report["flips"]) == len(expected)
    assert report["changed"]["knobs"] == {}
    files = report["changed"]["files"]
    assert [f["file"] for f in files] == [EDITED_FILE]
    sections = files[0]["sections"]
    assert [(s["heading"], s["change"]) for s in sections] == [(EDITED_SECTION, "修改")]
    diff = sections[0]["diff"]
    assert any(PLANTED in row["old"] and REPLACEMENT in row["new"] for row in diff)


def test_runs_compare_of_a_run_with_itself_has_no_flips(capsys, corpus_copy):
    cli_json(capsys, "eval", "--save-run", "A")
    report = cli_json(capsys, "runs", "compare", "A", "A")
    assert report["flips"] == [] and report["changed"] == {
        "knobs": {}, "files": [], "glossary_added": [], "glossary_removed": []}


def test_runs_compare_names_the_knobs_that_differ_and_prints_both_reasons(capsys, corpus_copy):
    cli_json(capsys, "eval", "--save-run", "low")
    cli_json(capsys, "eval", "--save-run", "high", "--min-score", "0.3")
    report = cli_json(capsys, "runs", "compare", "low", "high")
    assert report["changed"]["knobs"]["threshold"]["after"] == 0.3
    assert report["flips"] and all(f["before_reason"] != f["after_reason"] for f in report["flips"])
    assert main(["runs", "compare", "low", "high"]) == 0
    out = capsys.readouterr().out
    assert "【由答变拒】" in out and "threshold" in out and "之前：" in out and "之后：" in out


def test_runs_list_and_baseline(capsys, corpus_copy):
    cli_json(capsys, "eval", "--save-run", "第一次")
    assert main(["runs", "baseline", "第一次"]) == 0
    assert "已把「第一次」设为基准运行" in capsys.readouterr().out
    listed = cli_json(capsys, "runs", "list")
    assert [(r["name"], r["baseline"], r["questions"]) for r in listed] == [("第一次", True, 66)]
    assert listed[0]["stored_bytes"] > 0


@pytest.mark.parametrize("argv, message", [
    (["runs", "compare", "没有", "这次"], "没有名为「没有」的运行"),
    (["runs", "baseline", "没有"], "没有名为「没有」的运行"),
])
def test_runs_unknown_name_is_a_clear_error(capsys, corpus_copy, argv, message):
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_eval_save_run_refuses_a_taken_name(capsys, corpus_copy):
    cli_json(capsys, "eval", "--save-run", "A")
    assert main(["eval", "--save-run", "A"]) == 1
    assert "已经有名为「A」的运行" in capsys.readouterr().err


def test_calibrate_save_run_keeps_every_calibration_question(capsys, corpus_copy):
    from core.evaluation.calibration import calibration_questions

    assert main(["calibrate", "--save-run", "校准"]) == 0
    assert "已保存为运行「校准」" in capsys.readouterr().out
    (run,) = cli_json(capsys, "runs", "list")
    assert (run["name"], run["kind"], run["questions"]) == ("校准", "calibrate", len(calibration_questions()))
