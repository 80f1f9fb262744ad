"""`python -m core queue list|export` through core.cli.main, on a queue under tmp_path."""

from __future__ import annotations

import csv
import json

import pytest

from core.cli import main
from core.settings import Settings
from core.stores.db import open_database
from core.stores.review import ReviewStore
from core.values import Hit, Problem, RAGAnswer


def answer(question: str, problems: tuple[Problem, ...], refused: bool = False) -> RAGAnswer:
    hit = Hit(rank=1, source="02-退费与转班制度.md", heading="退费", chunk=1, start=0, end=20,
              text="开课 7 天内可全额退费。", score=0.4, passed=True)
    return RAGAnswer(question=question, text="开课 7 天内可退八成 [7]", hits=(hit,), candidates=(hit,),
                     threshold=0.2, k=3, refused=refused, model_called=True, problems=problems)


@pytest.fixture
def store(tmp_path, monkeypatch) -> ReviewStore:
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path))
    store = ReviewStore(open_database(Settings.from_env().db_url))
    first = store.enqueue(answer("退费怎么算？", (Problem("bad_ref", "引用了不存在的编号 [7]"),)), fingerprint="f")
    store.enqueue(answer("口语课几级？", (Problem("unsupported_number", "数字“六”在资料里找不到"),)), fingerprint="f")
    store.enqueue(answer("=能打折吗？", (), refused=True), origin="refusal", fingerprint="f")
    store.decide(first, action="reject", reviewer="王老师", expected_version=1, note="数字编造")
    return store


def test_queue_list_prints_one_line_per_item_and_the_total(store, capsys):
    assert main(["queue", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("#3\t") and "拒答" in out[0]
    assert "已驳回" in out[2] and "bad_ref" in out[2]
    assert out[-1] == "共 3 条符合条件，显示 3 条。"


@pytest.mark.parametrize(("args", "questions"), [
    (["--status", "待复核"], ["=能打折吗？", "口语课几级？"]),
    (["--status", "rejected"], ["退费怎么算？"]),
    (["--lane", "引用问题"], ["退费怎么算？"]),
    (["--lane", "unsupported_number"], ["口语课几级？"]),
    (["--lane", "refusal"], ["=能打折吗？"]),
    (["--search", "口语"], ["口语课几级？"]),
    (["--limit", "1"], ["=能打折吗？"]),
])
def test_queue_list_json_filters(store, capsys, args, questions):
    assert main(["queue", "list", "--json", *args]) == 0
    assert [item["question"] for item in json.loads(capsys.readouterr().out)] == questions


def test_queue_list_json_carries_reasons_and_candidates(store, capsys):
    main(["queue", "list", "--json", "--status", "rejected"])
    [item] = json.loads(capsys.readouterr().out)
    assert item["reasons"] == [{"code": "bad_ref", "message": "引用了不存在的编号 [7]", "span": None}]
    assert item["candidates"][0]["source"] == "02-退费与转班制度.md"
    assert (item["reviewer"], item["note"], item["version"]) == ("王老师", "数字编造", 2)


@pytest.mark.parametrize(("args", "message"), [
    (["--lane", "不存在"], "通道「不存在」不存在"),
    (["--status", "done"], "状态「done」不存在"),
])
def test_queue_list_bad_option_is_a_chinese_error(store, capsys, args, message):
    assert main(["queue", "list", *args]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["0", "99999999999999999999", "abc"])
def test_queue_list_limit_out_of_range_names_the_flag_in_chinese(store, capsys, limit):
    with pytest.raises(SystemExit) as exit_:
        main(["queue", "list", "--limit", limit])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "错误：参数 --limit：" in err and "1–10000" in err
    assert "Traceback" not in err and "usage" not in err


def test_queue_export_writes_excel_ready_csv(store, tmp_path, capsys):
    target = tmp_path / "导出.csv"
    assert main(["queue", "export", str(target), "--status", "pending"]) == 0
    assert "已导出 2 条" in capsys.readouterr().out
    with open(target, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert [row[4] for row in rows[1:]] == ["口语课几级？", "'=能打折吗？"]


def test_queue_without_an_action_prints_help(store, capsys):
    assert main(["queue"]) == 2
    assert "list" in capsys.readouterr().out
