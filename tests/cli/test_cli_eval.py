"""`python -m core eval`: the one gate's metrics, JSON per question, the saved default, malformed sets, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from core.answerability.glossary import load_starter
from core.assistant import build_assistant
from core.cli import main
from core.evaluation.metrics import evaluate_at, evaluate_set
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.db import Database
from core.stores.defaults import DefaultsStore
from core.stores.glossary import GlossaryStore
from core.stores.question_sets import load_default_set
from tests.paths import ROOT


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path / "data"))
    for name in ("XIAOE_MIN_SCORE", "XIAOE_TOP_K", "XIAOE_MIN_COVERAGE", "XIAOE_MAX_UNKNOWN_WEIGHT",
                 "XIAOE_DATABASE_URL", "XIAOE_CORPUS_DIR", "XIAOE_RETRIEVER", "XIAOE_ANSWERABILITY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "data"


def run_json(capsys, *args: str) -> dict:
    assert main(["eval", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_default_set_prints_table_and_suggestion(capsys):
    assert main(["eval"]) == 0
    out = capsys.readouterr().out
    assert "默认题集（66 题：应答 46，应拒 20）" in out
    for label in ("判断正确", "可答题答出且命中事实", "应拒答题已拒答", "回答率", "拒答精确率", "平衡准确率",
                  "代价", "命中错误资料"):
        assert label in out
    assert "建议参数（k=3）" in out


def test_eval_json_respects_every_knob_flag(capsys):
    report = run_json(capsys, "--min-score", "0.3", "--k", "5", "--min-coverage", "0.4",
                      "--max-unknown-weight", "0.9")
    assert report["knobs"] == {"threshold": 0.3, "k": 5, "min_coverage": 0.4, "max_unknown_weight": 0.9}
    metrics = report["metrics"]
    assert (metrics["threshold"], metrics["k"], metrics["min_coverage"]) == (0.3, 5, 0.4)
    assert sum(metrics["counts"].values()) == 66 == len(report["questions"])
    assert set(report["questions"][0]) >= {"question", "refused", "expected", "outcome", "reason", "hits"}
    assert 0.0 <= report["suggested"]["threshold"] <= 1.0


def test_eval_threshold_flag_is_the_same_as_min_score(capsys):
    assert run_json(capsys, "--threshold", "0.3")["knobs"] == run_json(capsys, "--min-score", "0.3")["knobs"]


def test_eval_uses_the_saved_default(capsys, data_dir):
    settings = Settings.from_env()
    db = Database(settings.db_url)
    DefaultsStore(db).save(settings.knobs.with_(threshold=0.27, k=4, min_coverage=0.5), actor="王老师",
                           settings=settings)
    db.dispose()
    knobs = run_json(capsys)["knobs"]
    assert (knobs["threshold"], knobs["k"], knobs["min_coverage"]) == (0.27, 4, 0.5)


def test_eval_reads_a_set_file(capsys, tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("question,expected\n保留学籍最长多久？,02-退费与转班制度.md\n雅思班多少钱？,应拒答\n",
                    encoding="utf-8")
    assert run_json(capsys, str(path))["metrics"]["total"] == 2


def test_eval_malformed_set_exits_non_zero_naming_the_line(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("question,expected\n好题,应拒答\n坏题,04-不存在.md\n", encoding="utf-8")
    assert main(["eval", str(path)]) == 1
    captured = capsys.readouterr()
    assert "第 3 行" in captured.err and "04-不存在.md" in captured.err
    assert captured.out == ""


def test_eval_missing_file_exits_non_zero(capsys, tmp_path):
    assert main(["eval", str(tmp_path / "nope.csv")]) == 1
    assert "无法读取题集文件" in capsys.readouterr().err


def test_eval_output_does_not_depend_on_hash_seed(tmp_path):
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "XIAOE_DATA_DIR": str(tmp_path / f"d{seed}")}
        done = subprocess.run([sys.executable, "-m", "core", "eval", "--json"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]


def _direct(glossary):
    settings = Settings.from_env()
    assistant = build_assistant(settings, load_or_build(settings), glossary)
    return evaluate_at(evaluate_set(assistant, load_default_set()), assistant.knobs).metrics


def test_eval_reports_the_gate_as_the_console_runs_it(capsys):
    assert main(["eval"]) == 0
    out = capsys.readouterr().out
    m = _direct(load_starter())
    assert f"同义词表 {len(load_starter())} 条" in out
    assert f"可答题答出且命中事实  {m.count('正确回答')}/{m.answerable}（" in out
    assert f"应拒答题已拒答        {m.count('正确拒答')}/{m.unanswerable}（" in out


def test_eval_uses_the_glossary_in_the_database(capsys, data_dir):
    store = GlossaryStore.open(Settings.from_env())
    for entry in store.load().entries:
        store.remove(entry.term, entry.synonym, who="王老师")
    report = run_json(capsys)
    assert report["glossary_entries"] == 0
    assert report["metrics"]["counts"] == dict(zip(report["metrics"]["counts"], _direct(None).counts))
    assert tuple(report["metrics"]["counts"].values()) != _direct(load_starter()).counts  # the glossary matters


def test_eval_misses_lists_every_wrong_decision_with_reason_and_hint(capsys, tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("question,expected,section,key_phrase\n"
                    "保留学籍最长多久？,02-退费与转班制度.md,六、保留学籍,最长保留 6 个月\n"
                    "雅思保过班多少钱？,01-口语课分级说明.md,,\n"  # labelled answerable: must come out 误拒
                    "入门级学费多少？,01-口语课分级说明.md,二、课时安排与班型,每周上 2 课时\n"  # wrong key phrase: 命中错误资料
                    "学费能分期付款吗？,应拒答,,\n", encoding="utf-8")
    report = run_json(capsys, str(path))
    assert report["metrics"]["counts"] == {"正确回答": 1, "正确拒答": 1, "误拒": 1, "误答": 0, "命中错误资料": 1}
    by_outcome = {q["outcome"]: q for q in report["questions"]}
    assert by_outcome["误拒"]["question"] == "雅思保过班多少钱？" and "雅思" in by_outcome["误拒"]["reason"]
    assert "每周上 2 课时" in by_outcome["命中错误资料"]["hint"]
    assert main(["eval", str(path), "--misses"]) == 0
    out = capsys.readouterr().out
    assert out.count("      理由：") == 2 and "[误拒] 雅思保过班多少钱？" in out
    assert main(["eval", str(path)]) == 0
    assert "      理由：" not in capsys.readouterr().out  # listed only when asked


def test_eval_without_answerability_gates_on_the_threshold_alone(capsys, monkeypatch):
    monkeypatch.setenv("XIAOE_ANSWERABILITY", "off")
    report = run_json(capsys)
    assert report["knobs"]["threshold"] == pytest.approx(Settings.from_env().min_score)
    assert all("coverage" not in hit for q in report["questions"] for hit in q["hits"])


def test_eval_a_question_over_the_configured_limit_names_its_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XIAOE_MAX_QUESTION_CHARS", "10")
    path = tmp_path / "set.csv"
    path.write_text("question,expected\n保留学籍最长多久？,02-退费与转班制度.md\n雅思保过班到底多少钱呀？,应拒答\n",
                    encoding="utf-8")
    assert main(["eval", str(path)]) == 1
    assert "题集第 3 行" in capsys.readouterr().err


def test_the_question_limit_can_only_be_lowered(monkeypatch):
    from core.errors import ConfigError

    with pytest.raises(ConfigError, match="XIAOE_MAX_QUESTION_CHARS（5000）"):
        Settings.from_env({"XIAOE_MAX_QUESTION_CHARS": "5000"})


def test_eval_reports_how_often_the_answer_itself_states_the_fact(capsys, tmp_path):
    # 「二级学费多少」 is answered with 「进阶级（二级）：4200 元」, holding the key phrase; 「口语课一共几级」 is labelled
    # with a phrase no answer says, so it is answered with the fact's chunk (正确回答) but not in the answer's words
    path = tmp_path / "set.csv"
    path.write_text("question,expected,section,key_phrase\n"
                    "二级学费多少,01-口语课分级说明.md,,4200 元\n"
                    "口语课一共几级,01-口语课分级说明.md,,四级|从低到高\n"
                    "保过班多少钱,应拒答,,\n", encoding="utf-8")
    data = run_json(capsys, str(path))
    rows = {q["question"]: q for q in data["questions"]}
    assert rows["二级学费多少"]["fact_in_answer"] and "4200 元" in rows["二级学费多少"]["answer"]
    assert rows["保过班多少钱"]["reason_code"] == "not_asked_attribute" and rows["保过班多少钱"]["answer"] == ""
    assert data["metrics"]["fact_in_answer"] == sum(q["fact_in_answer"] for q in data["questions"])
    assert main(["eval", str(path)]) == 0
    assert f"可答题回答里写出事实  {data['metrics']['fact_in_answer']}/2" in capsys.readouterr().out
