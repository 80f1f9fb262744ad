"""`python -m core gaps [FILE.csv] [--json]` through core.cli.main: a CSV's questions, or the queue's refusals."""

from __future__ import annotations

import json

import pytest

from core.assistant import open_assistant
from core.cli import main
from core.gaps.board import build_board
from core.settings import Settings
from core.stores.db import open_database
from core.stores.gaps import GapStore
from core.stores.review import ReviewStore
from tests.gaps.conftest import GREETINGS, INSTALMENTS, INVOICES

ROWS = [*INSTALMENTS, *INVOICES, *GREETINGS]


def csv_file(tmp_path, with_ids: bool):
    lines = ["id,question,topic" if with_ids else "question,topic"]
    lines += [f"q{n},{q},x" if with_ids else f"{q},x" for n, q in enumerate(ROWS, start=1)]
    path = tmp_path / "questions.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_json(capsys, *args: str) -> dict:
    assert main(["gaps", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_gaps_json_names_the_csv_ids(isolated_env, tmp_path, capsys):
    found = run_json(capsys, str(csv_file(tmp_path, with_ids=True)))
    assert set(found) == {"topics", "noise"}
    assert [sorted(t["ids"]) for t in found["topics"]] == [["q4", "q5", "q6", "q7"], ["q1", "q2", "q3"]]
    assert all(isinstance(t["label"], str) and t["terms"] for t in found["topics"])
    assert "开发票" in found["topics"][0]["terms"]
    assert found["noise"] == ["q8", "q9"]


def test_gaps_json_uses_row_numbers_from_one_without_an_id_column(isolated_env, tmp_path, capsys):
    found = run_json(capsys, str(csv_file(tmp_path, with_ids=False)))
    assert [sorted(t["ids"]) for t in found["topics"]] == [[4, 5, 6, 7], [1, 2, 3]]
    assert found["noise"] == [8, 9]


def test_gaps_groups_the_queue_by_item_id_and_writes_nothing(isolated_env, capsys):
    settings = Settings.from_env()
    assistant = open_assistant(settings, with_model=False)
    review = ReviewStore(open_database(settings.db_url))
    ids = {q: review.record(assistant.respond(q)) for q in ROWS}
    found = run_json(capsys)
    assert sorted(sorted(t["ids"]) for t in found["topics"]) == sorted(
        [sorted(ids[q] for q in INSTALMENTS), sorted(ids[q] for q in INVOICES)])
    assert sorted(found["noise"]) == sorted(ids[q] for q in GREETINGS)
    assert GapStore(open_database(settings.db_url)).topics() == ()


def test_gaps_on_the_queue_keeps_what_staff_sorted_as_the_board_does(isolated_env, capsys):
    """A topic consultants named with 预期拒答 is one topic under that name, however its words differ; a question
    an admin moved into a topic stays there (GapStore.move)."""
    settings = Settings.from_env()
    assistant = open_assistant(settings, with_model=False)
    db = open_database(settings.db_url)
    review, gaps = ReviewStore(db), GapStore(db)
    ids = {q: review.record(assistant.respond(q)) for q in ROWS}
    for q in ("周末有课吗", "晚上几点上课"):  # the words share nothing: by words alone they fit no topic
        ids[q] = review.record(assistant.respond(q))
        review.decide(ids[q], action="expect", reviewer="王老师", expected_version=1, topic="上课时间")
    (named,) = [t for t in run_json(capsys)["topics"] if t["label"] == "上课时间"]
    assert sorted(named["ids"]) == sorted([ids["周末有课吗"], ids["晚上几点上课"]])
    (invoices,) = [t for t in run_json(capsys)["topics"] if ids[INVOICES[0]] in t["ids"]]
    assert GapStore(db).topics() == ()  # the command wrote nothing; the board makes the topics
    board = build_board(assistant, review, gaps)
    target = next(t for t in board.topics if ids[INVOICES[0]] in {ref.id for q in t.questions for ref in q.items})
    gaps.move(GREETINGS[0], target.id, actor="王校长")
    (moved,) = [t for t in run_json(capsys)["topics"] if ids[INVOICES[0]] in t["ids"]]
    assert ids[GREETINGS[0]] in moved["ids"] and ids[GREETINGS[0]] not in invoices["ids"]


def test_gaps_text_lists_topics_with_counts(isolated_env, tmp_path, capsys):
    assert main(["gaps", str(csv_file(tmp_path, with_ids=True))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1. ") and "4 个问题，问了 4 次" in out[0]
    assert out[-1] == "共 9 个不同的问题，分成 2 个话题。"


@pytest.mark.parametrize("content, message", [(None, "读不了文件"), ("q\n学费能分期吗\n", "没有 question")])
def test_gaps_bad_file_is_a_chinese_error(isolated_env, tmp_path, capsys, content, message):
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["gaps", str(path)]) == 1
    assert message in capsys.readouterr().err
