"""「加入评测集」 on the review page through AppTest: one decided item, and every item of the filter in bulk."""

from __future__ import annotations

import pytest

from core.settings import Settings
from core.stores.db import open_database
from core.stores.question_sets import QuestionSetStore
from core.stores.review import ReviewStore
from core.values import Hit, RAGAnswer

PAGE = "app_pages/review.py"
CHUNK = "开课 7 天内可全额退费。"


def answer(question: str, text: str, refused: bool = False) -> RAGAnswer:
    hit = Hit(rank=1, source="02-退费与转班制度.md", heading="三、退费计算口径", chunk=4, start=0, end=30,
              text=CHUNK, score=0.52, passed=not refused)
    return RAGAnswer(question=question, text=text, hits=(hit,) if not refused else (), candidates=(hit,),
                     threshold=0.2, k=2, refused=refused, model_called=not refused)


@pytest.fixture
def store(app_env) -> ReviewStore:
    store = ReviewStore(open_database(Settings.from_env().db_url))
    first = store.enqueue(answer("退费怎么算？", "开课 7 天内可全额退费 [1]。"), origin="manual", flagged_by="测试")
    second = store.enqueue(answer("能打折吗？", "", refused=True), origin="refusal")
    store.enqueue(answer("还在等的问题？", "开课 7 天内可全额退费 [1]。"), origin="manual", flagged_by="测试")
    for item_id in (first, second):
        store.decide(item_id, action="approve", reviewer="王老师", expected_version=store.get(item_id).version)
    return store


def test_one_decided_item_is_added_with_its_edited_key_phrase(store, open_page):
    at = open_page(PAGE, f_status="已通过")
    at.session_state["review_item"] = 1
    at.run()
    opened = [b for b in at.button if b.key == "to_set_1"]
    assert opened, "the decided item offers 加入评测集"
    assert at.text_input(key="to_set_phrase_1").value == "开课 7 天内可全额退费"
    at.text_input(key="to_set_phrase_1").set_value("全额退费")
    at.button(key="to_set_1").click().run()
    assert not at.exception, at.exception
    assert any("已加入「复核题集」第 1 版：新增 1 题" in s.value for s in at.success)
    (q,) = QuestionSetStore(open_database(Settings.from_env().db_url)).load("复核题集").questions.questions
    assert (q.question, q.expected, q.section, q.key_phrase, q.item_id) == (
        "退费怎么算？", "02-退费与转班制度.md", "三、退费计算口径", "全额退费", 1)


def test_bulk_adds_the_decided_items_of_the_filter_once(store, open_page):
    at = open_page(PAGE, f_status="全部")
    at.toggle(key="to_set_bulk_open").set_value(True).run()
    assert not at.exception, at.exception
    at.button(key="to_set_bulk").click().run()
    assert any("新增 2 题" in s.value for s in at.success)
    sets = QuestionSetStore(open_database(Settings.from_env().db_url))
    questions = sets.load("复核题集").questions.questions
    assert {(q.question, q.should_refuse, q.item_id) for q in questions} == {("退费怎么算？", False, 1),
                                                                           ("能打折吗？", True, 2)}
    at.toggle(key="to_set_bulk_open").set_value(True).run()
    at.button(key="to_set_bulk").click().run()
    assert any("没有新题加入" in w.value for w in at.warning)
    assert [v.version for v in sets.versions("复核题集")] == [1]
