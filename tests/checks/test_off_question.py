"""off_question (答非所问): a model's answer that states none of what the question asks is flagged and queued in its
lane; the offline answer and an answer stating it are not."""

from __future__ import annotations

import pytest

from core.answerability.glossary import load_starter
from core.answering.offline import ScriptedChatModel
from core.assistant import build_assistant
from core.checks.asked import OFF_QUESTION, off_question
from core.labels import reason_label
from core.settings import REFUSAL_TEXT, Settings
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.stores.review_schema import LANE_OF_CODE, lane_label

QUESTION = "对话记录会保存多久？"  # the documents say: 对话记录保存 90 天


@pytest.mark.parametrize("text, kinds, flagged", [
    ("小E 是启明英语的助教[1]。", ("duration",), True),        # the answer: every citation right, no duration
    ("对话记录保存 90 天[1]。", ("duration",), False),
    ("保存九十天[1]。", ("duration",), False),                   # Chinese numerals are figures
    ("小E 是启明英语的助教[1]。", (), False),                    # nothing a sentence's form shows was asked
    (REFUSAL_TEXT, ("duration",), False),                        # a refusal answers nothing and says so
])
def test_off_question_reads_what_the_answer_states(text, kinds, flagged):
    problem = off_question(text, kinds)
    assert (problem is not None) is flagged
    if flagged:
        assert problem.code == OFF_QUESTION and "时长" in problem.message


def test_off_question_has_its_lane_and_label():
    assert LANE_OF_CODE[OFF_QUESTION] == "off_question" and lane_label("off_question") == "答非所问"
    assert reason_label(OFF_QUESTION) == "答非所问"


def chain(corpus_index, reply: str | None):
    model = ScriptedChatModel(responses=[reply]) if reply is not None else None
    return build_assistant(Settings(), corpus_index, load_starter(), chat_model=model)


def test_a_models_answer_beside_the_question_is_queued_in_its_lane(corpus_index, database_url):
    outcome = chain(corpus_index, "小E 是启明英语的助教[1]。").respond(QUESTION)
    assert [p.code for p in outcome.problems] == [OFF_QUESTION]
    store = ReviewStore(Database(database_url))
    item = store.get(store.record(outcome, asker="王老师"))
    assert [r.code for r in item.reasons] == [OFF_QUESTION]
    assert [i.id for i in store.iter_items(Filters(lane="off_question"))] == [item.id]


def test_a_models_answer_stating_it_and_the_offline_answer_are_not_flagged(corpus_index):
    assert not chain(corpus_index, "对话记录保存 90 天[1]。").respond(QUESTION).problems
    offline = chain(corpus_index, None).respond(QUESTION)
    assert "90 天" in offline.answer.text and not offline.problems
