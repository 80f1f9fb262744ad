"""The 资料缺口 page and the queue item's gap actions through AppTest, started from the router.

Uses `app_env` / `open_app` of tests/app/conftest.py (login gate off: the local user is an admin). The queue is
filled the way the Ask page fills it: every question through the one chain, its outcome recorded.
"""

from __future__ import annotations

import pytest

from core.assistant import open_assistant
from core.settings import Settings
from core.stores.db import open_database
from core.stores.gaps import DECLINED, GapStore
from core.stores.review import ReviewStore
from tests.gaps.conftest import GREETINGS, INSTALMENTS, INVOICES
from ui.gap_editor import section_span
from ui.gap_fix import FIX

PAGE = "app_pages/gaps.py"


@pytest.fixture
def queued(app_env):
    settings = Settings.from_env()
    assistant = open_assistant(settings, with_model=False)
    review = ReviewStore(open_database(settings.db_url))
    ids = {q: review.record(assistant.respond(q), asker="Amy") for q in (*INSTALMENTS, *INVOICES, *GREETINGS)}
    assert all(ids.values())
    return review, GapStore(open_database(settings.db_url)), ids


def topic_expanders(at):
    return [e for e in at.expander if e.label.startswith("#")]


def test_gaps_page_lists_each_topic_with_its_counts(open_app, queued):
    at = open_app(page=PAGE)
    assert not at.exception
    labels = [e.label for e in topic_expanders(at)]
    assert len(labels) == 2
    assert "开发票" in labels[0] and "4 个问题 · 问了 4 次 · 待补充" in labels[0]
    assert "分期" in labels[1] and "3 个问题 · 问了 3 次" in labels[1]
    assert any("不属于任何话题的问题（2 个" in e.label for e in at.expander)
    assert any(c.value.startswith("2 个话题 · 7 个不同的问题 · 共被问 7 次") for c in at.caption)


def test_gaps_page_saves_owner_and_status_and_a_declined_topic_keeps_its_refusals_out(open_app, queued):
    review, gaps, ids = queued
    at = open_app(page=PAGE)
    topic = next(t for t in gaps.topics() if "分期" in t.terms)
    at.text_input(key=f"gap_owner_{topic.id}").set_value("李老师")
    at.selectbox(key=f"gap_status_{topic.id}").set_value(DECLINED)
    at.button(key=f"gap_save_{topic.id}").click().run()
    assert not at.exception
    saved = gaps.get(topic.id)
    assert (saved.owner, saved.status) == ("李老师", DECLINED)
    assert all(review.get(ids[q]).expected is not None for q in INSTALMENTS)
    assert all(review.get(ids[q]).status == "pending" for q in INVOICES)


def request_heading(at) -> str:
    return at.session_state[FIX].heading


def test_gaps_page_fix_opens_the_editor_at_the_section_with_the_questions(open_app, app_env, queued):
    _, gaps, _ = queued
    at = open_app(page=PAGE)
    topic = next(t for t in gaps.topics() if "开发票" in t.terms)
    at.button(key=f"gap_fix_{topic.id}").click().run()
    assert not at.exception
    assert any(m.value.startswith("**去补充资料**") for m in at.markdown)
    beside = next(t.value for t in at.table if "问题" in t.value.columns)
    assert sorted(beside["问题"]) == sorted(INVOICES)
    source = at.query_params["source"][0] if isinstance(at.query_params["source"], list) else at.query_params["source"]
    text = (app_env.corpus / source).read_text(encoding="utf-8")
    start, end = section_span(text, request_heading(at))
    assert at.text_area[0].label == "小节内容" and at.text_area[0].value == text[start:end]


def test_gaps_page_escapes_what_students_typed(open_app, app_env):
    settings = Settings.from_env()
    assistant = open_assistant(settings, with_model=False)
    review = ReviewStore(open_database(settings.db_url))
    for q in ("能开发票吗[点我](http://evil.example)", "交了学费能开发票吗", "可以开发票吗 公司报销"):
        review.record(assistant.respond(q))
    at = open_app(page=PAGE)
    examples = next(m.value for m in at.markdown if m.value.startswith("**例子**"))
    assert "\\[点我\\]" in examples and "](http" not in examples


def test_review_item_expected_refusal_in_one_click_and_missing_mark(open_app, queued):
    review, _, ids = queued
    at = open_app(page="app_pages/review.py")
    at.session_state["review_item"] = ids[INSTALMENTS[0]]
    at.text_input(key="reviewer_name").set_value("王老师").run()
    item_id = ids[INSTALMENTS[0]]
    assert at.selectbox(key=f"expect_topic_{item_id}").options == []  # no topic given yet
    earlier = ids[INSTALMENTS[2]]  # another consultant named the topic on another item
    review.decide(earlier, action="expect", reviewer="李老师", expected_version=1, topic="分期付款")
    at.run()
    at.selectbox(key=f"expect_topic_{item_id}").set_value("分期付款")  # offered: one document, one name
    at.button(key=f"expect_{item_id}").click().run()
    assert not at.exception
    item = review.get(item_id)
    assert (item.status, item.expected.detail) == ("approved", "分期付款")
    # approved, it left the 待复核 list (the pane shows only listed items): list every status and open it again
    at.selectbox(key="f_status").set_value("全部")
    at.session_state["review_item"] = item_id
    at.run()
    at.button(key=f"missing_{item_id}").click().run()
    assert review.get(item_id).missing is not None
    assert any("已标为「资料没写」" in s.value for s in at.success)
