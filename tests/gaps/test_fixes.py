"""core.gaps.fixes: after the missing sentence is written, the topic's questions pass the one gate again."""

from __future__ import annotations

import shutil

import pytest

from core.answerability.glossary import load_starter
from core.assistant import build_assistant
from core.corpus.loader import load_documents
from core.gaps.board import build_board
from core.gaps.fixes import recheck, verify_item, verify_topic, version_note
from core.retrieval.index import build_index
from core.settings import Settings
from tests.gaps.conftest import INSTALMENTS, ask
from tests.paths import CORPUS

LEVELS = "01-口语课分级说明.md"
SENTENCE = "学费可以分期付款：分两期缴纳，每期交一半学费。"


def assistant_on(folder):
    return build_assistant(Settings(), build_index(load_documents(folder)), load_starter())


@pytest.fixture
def fixed(tmp_path):
    """The shipped corpus with the instalment sentence added to 三、学费标准, and its assistant."""
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    path = folder / LEVELS
    path.write_text(path.read_text(encoding="utf-8").replace("## 四、", f"{SENTENCE}\n\n## 四、", 1), encoding="utf-8")
    return assistant_on(folder)


def test_recheck_refuses_before_the_fix_and_answers_after_it(assistant, fixed):
    before, after = recheck(assistant, INSTALMENTS), recheck(fixed, INSTALMENTS)
    assert [c.answerable for c in before] == [False, False, False]
    assert [c.answerable for c in after] == [True, True, True]
    assert all(c.reason for c in after)


def test_verify_topic_closes_the_topic_and_writes_the_version_into_each_fixed_item(assistant, fixed, review, gaps,
                                                                                   queued):
    topic = next(t for t in build_board(assistant, review, gaps).topics if "分期" in t.topic.terms)
    note = version_note(LEVELS, 2, fixed.fingerprint)
    result = verify_topic(fixed, review, gaps, topic.id, note=note, actor="王校长")
    assert (result.line, result.topic.closed, result.topic.fixed_by) == ("3/3 题现在可答", True, note)
    assert sorted(result.fixed_items) == sorted(queued[q] for q in INSTALMENTS)
    item = review.get(queued[INSTALMENTS[0]])
    assert item.status == "approved" and item.fixed.detail == f"{note}补充后，闸门判定可答"
    last = review.events(item.id)[-1]
    assert (last.action, last.note) == ("fix", f"{note}补充后，闸门判定可答")
    board = build_board(fixed, review, gaps)
    assert [t.id for t in board.closed] == [topic.id]
    assert all("分期" not in t.topic.terms for t in board.topics)


def test_a_topic_stays_open_while_one_question_still_fails(assistant, fixed, review, gaps, queued):
    ask(assistant, review, "学费能分期吗 支持花呗吗")  # 花呗: the added sentence does not say it
    topic = next(t for t in build_board(assistant, review, gaps).topics if "分期" in t.topic.terms)
    result = verify_topic(fixed, review, gaps, topic.id, note=version_note(LEVELS, 2, fixed.fingerprint),
                          actor="王校长")
    assert (result.line, result.topic.closed, result.fixed_items) == ("3/4 题现在可答", False, ())
    assert review.get(queued[INSTALMENTS[0]]).fixed is None  # recorded when the topic closes
    again = build_board(fixed, review, gaps)  # on the changed corpus the half-fixed topic keeps its four questions
    assert [len(t.questions) for t in again.topics if t.id == topic.id] == [4]


def test_verify_item_records_the_fix_on_one_question(assistant, fixed, review):
    item_id = ask(assistant, review, INSTALMENTS[0])
    result = verify_item(fixed, review, item_id, note=version_note(LEVELS, 2, fixed.fingerprint), actor="王校长")
    assert (result.line, result.fixed_items) == ("1/1 题现在可答", (item_id,))
