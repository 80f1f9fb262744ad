"""core.evaluation.batch: one question through the Assistant, judged, and queued in lane 批量评测 when wrong."""

from __future__ import annotations

import pytest

from core.assistant import build_assistant
from core.evaluation.batch import answer_outcome, rows_to_csv, run_one
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.db import Database
from core.stores.question_sets import LabelledQuestion
from core.stores.review import Filters, ReviewStore

REFUND = "保留学籍最长多久？"


@pytest.fixture(scope="module")
def assistant():
    return build_assistant(Settings(), load_or_build(Settings.from_env({})), None)


def knobs(assistant, threshold: float, *, decide: bool = True):
    """The gate at this threshold; `decide=False` opens the decision knobs so the threshold alone decides."""
    base = assistant.knobs if decide else assistant.knobs.with_(min_coverage=0.0, max_unknown_weight=1.0)
    return base.with_(threshold=threshold, k=3)


@pytest.fixture
def queue(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'queue.sqlite3'}")
    yield ReviewStore(db)
    db.dispose()


def test_answer_outcome_matches_the_expected_file(assistant):
    result = assistant.respond(REFUND, knobs(assistant, 0.0))
    right = LabelledQuestion(REFUND, "02-退费与转班制度.md")
    wrong = LabelledQuestion(REFUND, "01-口语课分级说明.md")
    assert (answer_outcome(right, result), answer_outcome(wrong, result)) == ("正确回答", "命中错误资料")


def test_run_one_correct_refusal_is_not_queued(assistant, queue):
    row = run_one(LabelledQuestion("雅思保过班多少钱？"), assistant, knobs=knobs(assistant, 1.0), queue=queue)
    assert (row.outcome, row.refused, row.queued_id, row.problems) == ("正确拒答", True, None, ())
    assert queue.counts().total == 0


def test_run_one_wrong_source_goes_to_the_batch_lane(assistant, queue):
    row = run_one(LabelledQuestion(REFUND, "01-口语课分级说明.md", line=7), assistant, knobs=knobs(assistant, 0.0),
                  queue=queue, flagged_by="王老师")
    assert row.outcome == "命中错误资料" and row.queued_id is not None
    item = queue.get(row.queued_id)
    assert item.origin == "auto" and "批量评测" in item.lane_labels  # the run's verdict is a reason
    assert "eval_wrong_source" in [p.code for p in item.reasons]
    assert queue.list(Filters(lane="batch")).total == 1


def test_run_one_answering_a_should_refuse_question_is_flagged(assistant, queue):
    row = run_one(LabelledQuestion(REFUND), assistant, knobs=knobs(assistant, 0.0), queue=queue)
    assert row.outcome == "误答"
    assert [p.code for p in queue.get(row.queued_id).reasons][-1] == "eval_wrong_answer"


def test_rows_to_csv_has_a_bom_and_chinese_header(assistant):
    row = run_one(LabelledQuestion("雅思保过班多少钱？"), assistant, knobs=knobs(assistant, 1.0))
    data = rows_to_csv([row.to_dict()])
    assert data.startswith("\ufeff行号,问题,预期,结果".encode())
    assert "雅思保过班多少钱？" in data.decode("utf-8-sig")


def test_run_one_uses_the_assistants_model(assistant, queue):
    from core.answering.offline import ScriptedChatModel

    model = ScriptedChatModel(responses=["保留学籍最长 6 个月[1]。"])
    row = run_one(LabelledQuestion(REFUND, "02-退费与转班制度.md"), assistant.with_model(model),
                  knobs=knobs(assistant, 0.0), queue=queue)
    assert model.calls == 1 and row.text == "保留学籍最长 6 个月[1]。"
