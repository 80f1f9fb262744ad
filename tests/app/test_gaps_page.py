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
from ui.gap_editor import NEW, section_span
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


def test_an_admin_makes_a_topic_from_a_question_that_fits_none_and_one_of_another_topic(open_app, queued):
    _, gaps, _ = queued
    at = open_app(page=PAGE)
    at.text_input(key="gap_new_name").set_value("付款方式")
    at.multiselect(key="gap_new_questions").set_value([GREETINGS[0], INSTALMENTS[0]])
    at.button(key="gap_new").click().run()
    assert not at.exception
    assert any("已新建话题" in s.value and "付款方式" in s.value for s in at.success)
    made = next(t for t in gaps.topics() if t.label == "付款方式")
    assert {GREETINGS[0], INSTALMENTS[0]} <= set(made.questions) and made.named_by
    assert any(e.label.startswith(f"#{made.id} 付款方式") for e in topic_expanders(at))
    at.run()  # the board regrouped on the next run: the topic and its name hold
    assert any(e.label.startswith(f"#{made.id} 付款方式") for e in topic_expanders(at))


def test_a_new_topic_without_a_name_is_refused_on_the_page(open_app, queued):
    at = open_app(page=PAGE)
    at.multiselect(key="gap_new_questions").set_value([GREETINGS[0]])
    at.button(key="gap_new").click().run()
    assert not at.exception
    assert any("请填写新话题的名称" in e.value for e in at.error)


def test_the_fix_goes_into_a_new_section_of_the_file_the_admin_picks_and_the_recheck_follows_it(open_app, app_env,
                                                                                                 queued):
    review, gaps, ids = queued
    at = open_app(page=PAGE)
    topic = next(t for t in gaps.topics() if "分期" in t.terms)
    at.button(key=f"gap_fix_{topic.id}").click().run()
    at.switch_page("app_pages/sources.py").run()  # AppTest does not stay on the page st.switch_page went to
    tag = f"{topic.id}_None"
    proposed = at.selectbox(key=f"gap_fix_file_{tag}").value
    target = next(name for name in ("01-口语课分级说明.md", "02-退费与转班制度.md") if name != proposed)
    at.selectbox(key=f"gap_fix_file_{tag}").set_value(target).run()
    section = next(s for s in at.selectbox if s.key.startswith(f"gap_fix_section_{tag}_"))
    assert section.value == section.options[0]  # another file: its first section
    section.set_value(NEW).run()
    at.text_input(key=f"gap_fix_title_{tag}").set_value("付款方式")
    next(t for t in at.text_area if t.label == "新小节内容").set_value(
        "学费可以分期付款：分两期缴纳，每期交一半学费。").run()
    at.button(key="gap_fix_save").click().run()
    assert not at.exception
    saved = (app_env.corpus / target).read_text(encoding="utf-8")
    assert saved.rstrip().endswith("## 付款方式\n\n学费可以分期付款：分两期缴纳，每期交一半学费。")
    checked = gaps.get(topic.id)
    assert checked.check is not None and target in checked.check.version_note
    assert checked.closed and checked.check.line == "3/3 题现在可答"
    assert all(review.get(ids[q]).status == "approved" for q in INSTALMENTS)
