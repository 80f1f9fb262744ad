"""core.gaps.questions: reading a questions CSV, and grouping through the one chain."""

from __future__ import annotations

import pytest

from core.assistant import build_assistant
from core.errors import QuestionSetError
from core.gaps.questions import group_questions, read_questions
from core.retrieval.index import build_index
from core.settings import Settings


def write(tmp_path, text: str, encoding: str = "utf-8"):
    path = tmp_path / "q.csv"
    path.write_bytes(text.encode(encoding))
    return path


def test_read_questions_takes_ids_keeps_other_columns_and_skips_empty_questions(tmp_path):
    rows = read_questions(write(tmp_path, "\ufeffid,question,topic\na1,学费能分期吗,付款\na2,,付款\na3,有外教吗,师资\n"))
    assert [(r.id, r.question, r.extra) for r in rows] == [("a1", "学费能分期吗", {"topic": "付款"}),
                                                           ("a3", "有外教吗", {"topic": "师资"})]


def test_read_questions_without_an_id_column_numbers_the_records_from_one(tmp_path):
    rows = read_questions(write(tmp_path, "问题,备注\n学费能分期吗,\n,空的\n\n有外教吗,\n"))
    assert [(r.id, r.question) for r in rows] == [(1, "学费能分期吗"), (3, "有外教吗")]


@pytest.mark.parametrize("text, message", [
    ("q,topic\n学费能分期吗,付款\n", "没有 question"),
    ("id,question\n1,学费能分期吗\n1,有外教吗\n", "第 3 行的编号「1」和第 2 行重复"),
])
def test_read_questions_rejects_a_bad_file_naming_what_to_fix(tmp_path, text, message):
    with pytest.raises(QuestionSetError, match=message):
        read_questions(write(tmp_path, text))


def test_read_questions_rejects_a_file_not_in_utf8(tmp_path):
    with pytest.raises(QuestionSetError, match="不是 UTF-8"):
        read_questions(write(tmp_path, "question\n学费能分期吗\n", encoding="gb18030"))


def test_group_questions_needs_the_answerability_analyzer():
    index = build_index([])
    assistant = build_assistant(Settings(answerability="off"), index, None)
    with pytest.raises(QuestionSetError, match="XIAOE_ANSWERABILITY"):
        group_questions(assistant, ["学费能分期吗"])


def test_an_exam_name_jieba_would_split_joins_its_topic(assistant, corpus_index):
    """「雅思考到6.5分要报多久」: jieba alone cuts 雅 / 思考 and the question is noise; the exam_names rule keeps 雅思."""
    from core.answerability.glossary import load_starter

    questions = ["有雅思班吗", "雅思课多少钱", "你们教雅思吗", "雅思考到6.5分要报多久", "能开发票吗", "可以开发票吗 公司报销",
                 "交了学费能开发票吗"]
    grouped = group_questions(assistant, questions)
    assert [g.members for g in grouped.groups] == [(0, 1, 2, 3), (4, 5, 6)] and grouped.groups[0].label == "雅思"
    without = build_assistant(Settings().with_(answerability_rules="-exam_names"), corpus_index, load_starter())
    assert group_questions(without, questions).noise == (3,)
