"""`python -m core ask/demo`: reports, JSON, and clean failures with a non-zero exit."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC

from core.cli import main
from tests.paths import ROOT


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
    assert "3000 − 150 = 2850 元，可退 2850 元" in out  # the student's case computed step by step (#34)
    assert "已记入" not in out and "复核队列：未写入" in out  # the demo never writes to the queue


def queue_items() -> list:
    from core.settings import Settings
    from core.stores.db import open_database
    from core.stores.review import ReviewStore

    return list(ReviewStore(open_database(Settings.from_env().db_url)).list().items)


def test_cli_ask_queues_a_refusal_as_the_page_does(isolated_env, capsys):
    assert main(["ask", "你们的雅思保过班多少钱？", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (item,) = queue_items()
    assert data["queued"] == item.id and item.origin == "refusal"


def test_cli_ask_does_not_queue_a_clean_answer_or_with_no_queue(isolated_env, capsys):
    assert main(["ask", "启明英语的口语课一共有几级？"]) == 0
    assert "复核队列：无需复核，未写入" in capsys.readouterr().out
    assert main(["ask", "你们的雅思保过班多少钱？", "--no-queue"]) == 0
    assert "复核队列：未写入" in capsys.readouterr().out
    assert queue_items() == []


def test_cli_ask_enforces_the_configured_question_limit(isolated_env, capsys, monkeypatch):
    monkeypatch.setenv("XIAOE_MAX_QUESTION_CHARS", "10")
    assert main(["ask", "启明英语的口语课一共有几级"]) == 1
    assert "超过了 10 字的上限" in capsys.readouterr().err


def test_cli_ask_calls_the_configured_model(isolated_env, capsys, monkeypatch, fake_openai):
    fake_openai.reply = "启明英语的口语课一共分为四级[1]。"
    for name, value in (("XIAOE_LLM_BASE_URL", fake_openai.base_url), ("XIAOE_LLM_MODEL", "fake-chat"),
                        ("XIAOE_LLM_API_KEY", "sk-test"), ("XIAOE_LLM_MAX_RETRIES", "0")):
        monkeypatch.setenv(name, value)
    assert main(["ask", "启明英语的口语课一共有几级？", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert fake_openai.count("/v1/chat/completions") == 1
    assert data["model"] == "fake-chat" and data["answer"] == "启明英语的口语课一共分为四级[1]。"


def test_cli_ask_numbers_the_candidates_as_the_answer_cites_them(isolated_env, capsys):
    """The candidate list was numbered by retrieval rank ([1] [3] [1] [2] for the refund question, with a rule
    chunk added): now [n] there is the [n] of the answer and of the citation table."""
    assert main(["ask", "我报的二级 交了4200 上了6节课 现在退能退多少", "--no-queue"]) == 0
    out = capsys.readouterr().out
    listed = {line.split("]")[0].strip(" ["): line.rsplit("  ", 1)[1] for line in out.splitlines()
              if line.startswith("  [") and "排序分" in line}
    assert list(listed) == [str(n) for n in range(1, len(listed) + 1)]
    table = [line for line in out.splitlines() if line.startswith("[") and ".md" in line]
    assert table
    for row in table:
        number, source, heading = row.split("  ")[:3]
        assert listed[number.strip("[]")] == f"{source} · {heading}"


def test_cli_ask_json_says_why_the_gate_refused_what_is_not_written(isolated_env, capsys):
    # #40: 「小E 是启明英语的助教[1]。」 was the answer; no document states a year
    assert main(["ask", "启明英语是哪一年成立的？", "--json", "--no-queue"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] and not data["model_called"]
    assert (data["reason"], data["reason_code"], data["asked"]) == ("资料里没有写“成立年份”", "not_asked_attribute", ["year"])


def test_cli_ask_queues_the_refusal_under_its_code(isolated_env, capsys):
    from core.settings import Settings
    from core.stores.db import open_database
    from core.stores.review import ReviewStore

    assert main(["ask", "小班多少钱一节", "--json"]) == 0
    queued = json.loads(capsys.readouterr().out)["queued"]
    item = ReviewStore(open_database(Settings.from_env().db_url)).get(queued)
    assert item.origin == "refusal" and [(r.code, r.message) for r in item.reasons] == [
        ("not_asked_attribute", "资料里没有写“小班价格”")]


def test_cli_ask_conversation_reads_the_question_as_the_threads_next(isolated_env, capsys):
    from datetime import datetime

    from core.settings import Settings
    from core.stores.db import open_database
    from core.stores.exchange_schema import conversations, exchanges
    from core.stores.turns import TurnStore
    from core.values.conversations import Standalone

    db = open_database(Settings.from_env().db_url)
    turns = TurnStore(db)
    at = datetime(2025, 1, 1, tzinfo=UTC)  # long idle: a consultant testing a thread still reads it
    with db.transaction() as conn:
        conv = conn.execute(conversations.insert().values(public_id="conv_t", key_id=1, user="u", created_at=at,
                                                          last_at=at, handed_off_by="")).inserted_primary_key[0]
        exchange = conn.execute(exchanges.insert().values(
            message_id="msg_t1", key_id=1, user="u", conversation_id=conv, client_msg_id="c1", query="二级学费多少？",
            query_hash="x", state="done", created_at=at)).inserted_primary_key[0]
        turns.record_in(conn, conversation_row=conv, exchange_id=exchange,
                        standalone=Standalone("二级学费多少？", "二级学费多少？"), decision="answered", refused=False)
    assert main(["ask", "那三级呢？", "--conversation", "conv_t", "--no-queue", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["standalone"] == {"message": "那三级呢？", "question": "三级学费多少？", "kind": "follow_up",
                                  "rules": ["level"], "derived_from": "msg_t1"}
    assert data["question"] == "三级学费多少？" and "4800" in data["answer"]
    assert main(["ask", "那三级呢？", "--conversation", "conv_nope", "--no-queue"]) == 1
    assert "没有找到会话" in capsys.readouterr().err
