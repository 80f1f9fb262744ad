"""`python -m core eval SET --with-model` against a scripted model on 127.0.0.1: an estimate before any
call, one grader request per band question, and the table."""

from __future__ import annotations

import json
import re

from core.cli import main
from tests.paths import SETS

SET = SETS / "student_questions.csv"



def test_eval_with_model_prints_the_estimate_and_the_table(isolated_env, fake_openai, monkeypatch, capsys):
    def script(body):
        if "response_format" not in body:
            return "见资料[1]。"
        said_no = "食堂" in body["messages"][-1]["content"] or "周末" in body["messages"][-1]["content"]
        return json.dumps({"quote": "片段原句", "answerable": not said_no, "chunks": [] if said_no else [1], "reason": "脚本"})

    fake_openai.script = script
    monkeypatch.setenv("XIAOE_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("XIAOE_LLM_MODEL", "scripted")
    monkeypatch.setenv("XIAOE_LLM_MAX_RETRIES", "0")
    assert main(["eval", str(SET)]) == 0
    plain = re.search(r"应拒答题已拒答\s+(\d+)/36", capsys.readouterr().out)
    assert plain and fake_openai.requests == []  # plain `eval` never calls the model
    assert main(["eval", str(SET), "--with-model"]) == 0
    out, err = capsys.readouterr()
    estimate = re.search(r"预计：102 题中 (\d+) 题在不确定区间，各发一次模型判定请求，约 (\d+) tokens", err)
    assert estimate, err
    band = int(estimate.group(1))
    graded = [r for r in fake_openai.requests if "response_format" in r.body]
    assert band > 0 and len(graded) == band  # exactly one grader request per band question
    assert "102/102" in err  # the progress bar ends on stderr
    said_no = sum(1 for r in graded if "周末" in r.body["messages"][-1]["content"]
                  or "食堂" in r.body["messages"][-1]["content"])
    assert f"{band} 题：判可答 {band - said_no}，判不可答 {said_no}，判定失败 0" in out
    for row in ("只用闸门", "闸门+模型判定+回答", "可答题答出且命中事实", "应拒答题已拒答", "判定与标注一致",
                "判定与标注不一致", "模型判定用量", f"输入 {120 * band} tokens，输出 {30 * band} tokens", "模型判定用时"):
        assert row in out, row
    gate_only = re.search(r"应拒答题已拒答\s+(\d+)/36", out)
    assert gate_only and gate_only.group(1) == plain.group(1)  # the gate-alone column is plain `eval`'s number


def test_eval_with_model_needs_a_model(isolated_env, capsys):
    assert main(["eval", str(SET), "--with-model"]) == 1
    err = capsys.readouterr().err
    assert "XIAOE_LLM_BASE_URL" in err and "--with-model" in err and "Traceback" not in err
