"""`python -m core eval`: metrics table, JSON, the saved default, malformed sets, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.db import Database
from core.defaults_store import DefaultsStore
from core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path / "data"))
    for name in ("XIAOE_MIN_SCORE", "XIAOE_TOP_K", "XIAOE_DATABASE_URL", "XIAOE_CORPUS_DIR", "XIAOE_RETRIEVER"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "data"


def run_json(capsys, *args: str) -> dict:
    assert main(["eval", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_default_set_prints_table_and_suggestion(capsys):
    assert main(["eval"]) == 0
    out = capsys.readouterr().out
    assert "默认题集（66 题：应答 46，应拒 20）" in out
    for label in ("回答率", "拒答精确率", "拒答 F1", "hit@3", "平衡准确率", "命中错误资料"):
        assert label in out
    assert "建议阈值（k=3）" in out


def test_eval_json_respects_threshold_and_k(capsys):
    report = run_json(capsys, "--threshold", "0.3", "--k", "5")
    metrics = report["metrics"]
    assert (metrics["threshold"], metrics["k"]) == (0.3, 5)
    assert sum(metrics["counts"].values()) == 66
    assert 0.0 <= report["suggested"]["threshold"] <= 1.0


def test_eval_uses_the_saved_default(capsys, data_dir):
    settings = Settings.from_env()
    db = Database(settings.db_url)
    DefaultsStore(db).save(0.27, 4, actor="王老师", settings=settings)
    db.dispose()
    metrics = run_json(capsys)["metrics"]
    assert (metrics["threshold"], metrics["k"]) == (0.27, 4)


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
