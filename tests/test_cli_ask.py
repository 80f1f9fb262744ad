"""`python -m core ask/demo`: reports, JSON, and clean failures with a non-zero exit."""

from __future__ import annotations

import json
import subprocess
import sys

from core.cli import main
from tests.conftest import ROOT


def test_cli_ask_prints_seed_style_report(isolated_env, capsys):
    assert main(["ask", "启明英语的口语课一共有几级？"]) == 0
    out = capsys.readouterr().out
    assert "命中" in out and "引用来源" in out and "出处校验：通过" in out


def test_cli_ask_json_has_documented_fields(isolated_env, capsys):
    assert main(["ask", "你们的雅思保过班多少钱？", "--json", "--k", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] is True and data["k"] == 4 and len(data["hits"]) == 4
    assert data["model_called"] is False and "雅思" in data["reason"]


def test_cli_ask_min_score_one_refuses_everything(isolated_env, capsys):
    assert main(["ask", "启明英语的口语课一共有几级？", "--json", "--min-score", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["threshold"] == 1.0 and data["refused"] is True


def test_cli_ask_empty_question_exits_non_zero(isolated_env, capsys):
    assert main(["ask", "  "]) == 1
    assert "问题是空的" in capsys.readouterr().err


def test_cli_ask_too_long_question_exits_non_zero(isolated_env, capsys):
    assert main(["ask", "问" * 2001]) == 1
    assert "2000" in capsys.readouterr().err


def test_cli_ask_missing_corpus_exits_without_traceback(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "XIAOE_CORPUS_DIR": str(tmp_path / "none"), "XIAOE_DATA_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "core", "ask", "口语课几级"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "不存在" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_demo_shows_refusal_and_fabricated_citation(isolated_env, capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "模型有没有被调用：没有" in out
    assert "引用了不存在的编号 [7]" in out
    assert "可退 3420 元" in out
