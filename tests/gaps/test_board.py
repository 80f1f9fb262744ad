"""core.gaps.board: the queue's gap items as distinct questions, topics matched to the store, 不补充 kept out."""

from __future__ import annotations

from core.gaps.board import build_board, cited_section, collect
from core.stores.db import Database
from core.stores.gaps import DECLINED
from core.stores.review import Filters, ReviewStore
from core.values import Hit, Problem, RAGAnswer
from tests.gaps.conftest import INSTALMENTS, INVOICES, ask
from tests.outcomes import outcome_of


def test_collect_counts_every_asking_of_one_question_once_per_spelling(assistant, review):
    for question in ("学费能分期吗", "学费能分期吗？", "老师好，请问学费能分期吗", "有外教吗"):
        ask(assistant, review, question)
    questions = collect(review)
    assert [(q.question, q.askings, q.kinds) for q in questions] == [("学费能分期吗", 3, ("拒答",)),
                                                                     ("有外教吗", 1, ("拒答",))]


def test_build_board_groups_the_queue_into_topics_with_the_greetings_as_noise(assistant, review, gaps, queued):
    board = build_board(assistant, review, gaps)
    assert [sorted(q.question for q in t.questions) for t in board.topics] == [sorted(INVOICES), sorted(INSTALMENTS)]
    invoices = board.topics[0]
    assert "开发票" in invoices.topic.terms and invoices.askings == 4 and len(invoices.examples) == 3
    assert invoices.near_miss is not None and invoices.near_miss.source.endswith(".md")
    assert sorted(q.question for q in board.noise) == ["你好", "谢谢"]


def test_a_declined_topic_keeps_its_questions_out_of_the_queue(assistant, review, gaps, queued):
    board = build_board(assistant, review, gaps)
    instalments = next(t for t in board.topics if "分期" in t.topic.terms)
    gaps.set_status(instalments.id, DECLINED, actor="王校长")
    build_board(assistant, review, gaps)  # the board marks the topic's refusals 预期拒答
    item = review.get(queued[INSTALMENTS[0]])
    assert (item.status, item.expected.detail) == ("approved", instalments.label)
    assert ask(assistant, review, "学费能分期吗？？") == item.id  # a repeat joins it: no new item
    pending = {i.question for i in review.list(Filters(status="pending")).items}
    assert not pending & set(INSTALMENTS) and set(INVOICES) <= pending


def test_cited_section_is_the_section_of_the_first_citation():
    hits = tuple(Hit(rank=n, source="01-口语课分级说明.md", heading=h, chunk=n, start=0, end=5, text="…", score=0.5,
                     passed=True) for n, h in ((1, "三、学费标准"), (2, "五、常见问题")))
    answer = RAGAnswer(question="一级多少钱", text="3600 元 [2]", hits=hits, candidates=hits, threshold=0.0, k=3,
                       refused=False, model_called=True, problems=(Problem("bad_ref", "…"),))
    store = ReviewStore(Database("sqlite://"))
    item = store.get(store.record(outcome_of(answer, "f")))
    assert cited_section(item).heading == "五、常见问题"


def test_a_merge_holds_across_regroupings_and_tomorrows_like_question_joins_it(assistant, review, gaps, queued):
    board = build_board(assistant, review, gaps)
    invoices, instalments = (next(t for t in board.topics if word in t.topic.terms) for word in ("开发票", "分期"))
    gaps.merge(instalments.id, invoices.id, actor="王校长")
    board = build_board(assistant, review, gaps)
    assert [(t.id, sorted(q.question for q in t.questions)) for t in board.topics] == [
        (invoices.id, sorted((*INVOICES, *INSTALMENTS)))]
    assert {q.hint for q in collect(review, gaps) if q.question in INVOICES + INSTALMENTS} == {f"#{invoices.id}"}
    ask(assistant, review, "学费可以分期交吗")  # tomorrow: refused, like the merged-in questions
    board = build_board(assistant, review, gaps)
    assert "学费可以分期交吗" in {q.question for q in board.topics[0].questions}
    assert sorted(q.question for q in board.noise) == ["你好", "谢谢"]


def test_a_question_moved_out_of_noise_stays_in_its_topic(assistant, review, gaps, queued):
    ask(assistant, review, "周末有课吗")
    board = build_board(assistant, review, gaps)
    assert "周末有课吗" in {q.question for q in board.noise}
    invoices = next(t for t in board.topics if "开发票" in t.topic.terms)
    gaps.move("周末有课吗", invoices.id, actor="王校长")
    board = build_board(assistant, review, gaps)
    assert "周末有课吗" in {q.question for q in next(t for t in board.topics if t.id == invoices.id).questions}
    assert "周末有课吗" not in {q.question for q in board.noise}
