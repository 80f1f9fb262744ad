"""eval --reuse FILE: each row approves an answer in its own folder, applies the row's edit through the corpus
admin (what the Sources page does after a save) and asks the new question; the JSON keys the issue names."""

from __future__ import annotations

import json

from core.cli import main

HEADER = "id,approved_question,approved_answer,new_question,expect,kind,edit\n"
ROWS = ("p1,三级学费多少,流利级（三级）学费 4800 元。,流利级三级的学费是多少啊,reuse,paraphrase,\n"
        "s1,三级学费多少,流利级（三级）学费 4800 元。,流利级三级的学费是多少啊,no_reuse,stale,"
        "01-口语课分级说明.md|4800 元|4900 元\n")


def test_eval_reuse_serves_the_paraphrase_and_stops_at_stale_after_the_cited_sentence_is_edited(
        tmp_path, isolated_env, capsys):
    path = tmp_path / "reuse.csv"
    path.write_text(HEADER + ROWS, encoding="utf-8")
    assert main(["eval", "--reuse", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kinds"]["paraphrase"] == {"total": 1, "reused": 1} | {
        k: v for k, v in result["kinds"]["paraphrase"].items() if k not in ("total", "reused")}
    rows = {row["id"]: row for row in result["rows"]}
    assert rows["p1"]["reused"] is True
    assert rows["s1"]["reused"] is False and rows["s1"]["guard"] == "stale"
