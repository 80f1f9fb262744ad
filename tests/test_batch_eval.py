"""core.batch_eval: one question through the answerer, judged, and queued in lane 批量评测 when wrong."""

from __future__ import annotations

import pytest

from core.batch_eval import answer_outcome, rows_to_csv, run_one
from core.db import Database
from core.index_store import load_or_build
from core.question_sets import LabelledQuestion
from core.rag import answer
from core.review import Filters, ReviewStore
from core.settings import Settings

REFUND = "保留学籍最长多久？"


@pytest.fixture(scope="module")
def index():
    return load_or_build(Settings.from_env({})).index


@pytest.fixture
def queue(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'queue.sqlite3'}")
    yield ReviewStore(db)
    db.dispose()


def test_answer_outcome_matches_the_expected_file(index):
    result = answer(REFUND, index, k=3, min_score=0.0)
    right = LabelledQuestion(REFUND, "02-退费与转班制度.md")
    wrong = LabelledQuestion(REFUND, "01-口语课分级说明.md")
    assert (answer_outcome(right, result), answer_outcome(wrong, result)) == ("正确回答", "命中错误资料")


def test_run_one_correct_refusal_is_not_queued(index, queue):
    row = run_one(LabelledQuestion("雅思保过班多少钱？"), index, threshold=1.0, k=3, queue=queue)
    assert (row.outcome, row.refused, row.queued_id, row.problems) == ("正确拒答", True, None, ())
    assert queue.counts().total == 0


def test_run_one_wrong_source_goes_to_the_batch_lane(index, queue):
    row = run_one(LabelledQuestion(REFUND, "01-口语课分级说明.md", line=7), index, threshold=0.0, k=3,
                  queue=queue, fingerprint="fp", flagged_by="王老师")
    assert row.outcome == "命中错误资料" and row.queued_id is not None
    item = queue.get(row.queued_id)
    assert item.origin == "batch" and item.lane_labels[0] == "批量评测"
    assert "eval_wrong_source" in [p.code for p in item.reasons]
    assert queue.list(Filters(lane="batch")).total == 1


def test_run_one_answering_a_should_refuse_question_is_flagged(index, queue):
    row = run_one(LabelledQuestion(REFUND), index, threshold=0.0, k=3, queue=queue)
    assert row.outcome == "误答"
    assert [p.code for p in queue.get(row.queued_id).reasons][-1] == "eval_wrong_answer"


def test_rows_to_csv_has_a_bom_and_chinese_header(index):
    row = run_one(LabelledQuestion("雅思保过班多少钱？"), index, threshold=1.0, k=3)
    data = rows_to_csv([row.to_dict()])
    assert data.startswith("\ufeff行号,问题,预期,结果".encode())
    assert "雅思保过班多少钱？" in data.decode("utf-8-sig")
