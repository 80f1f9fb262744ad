"""The 同义词表 page through AppTest: search, add (fields kept on error), edit, delete, proposals by role."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from core.stores.glossary_admin import GlossaryAdmin
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

PAGE = "app_pages/glossary.py"


@pytest.fixture
def page(open_app):
    def open_() -> AppTest:
        at = open_app(page=PAGE)
        assert not at.exception
        return at
    return open_


def admin_store() -> GlossaryAdmin:
    return GlossaryAdmin(open_database(Settings.from_env().db_url))


def test_glossary_page_lists_searches_and_shows_impact(page):
    at = page()
    at.text_input(key="g_search").set_value("入学测试").run()
    frame = at.dataframe[0].value  # the entries table comes first
    assert list(frame["学员说法（同义词）"]) == ["入学测试"]
    assert list(frame["影响题数"]) == [1]  # 「报名前有入学测试吗？」 in the default set


def test_glossary_page_add_keeps_the_fields_after_an_error(page):
    at = page()
    at.text_input(key="g_add_synonym").set_value("学费几何")
    at.text_input(key="g_add_term").set_value("学费几何")
    at.button(key="g_add").click().run()
    assert "标准词和同义词相同" in at.error[0].value
    assert at.text_input(key="g_add_synonym").value == "学费几何"  # nothing to type again
    at.text_input(key="g_add_term").set_value("学费")
    at.button(key="g_add").click().run()
    assert not at.exception
    assert any("已加入同义词" in s.value for s in at.success), [e.value for e in at.error]
    assert ("学费", "学费几何") in {(e.term, e.synonym) for e in admin_store().load().entries}


def test_glossary_page_deletes_the_chosen_entry(page):
    at = page()
    at.text_input(key="g_search").set_value("入学测试").run()
    at.button(key="g_delete").click().run()
    assert not at.exception
    assert ("分级测试", "入学测试") in {(e.term, e.synonym) for e in admin_store().load().entries}  # asks first
    assert any("确定删除" in w.value for w in at.warning)
    at.button(key="g_delete_ok").click().run()
    assert not at.exception
    assert ("分级测试", "入学测试") not in {(e.term, e.synonym) for e in admin_store().load().entries}
    assert any("已删除" in s.value for s in at.success)


def test_glossary_page_consultant_proposes_and_cannot_edit(app_env, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    add_staff(AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER))
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    at.text_input(key="login_username").set_value("amy")
    at.text_input(key="login_password").set_value(PASSWORD)
    at.button(key="login_submit").click().run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert not [b for b in at.button if b.key in ("g_add", "g_delete")]
    at.text_input(key="g_prop_synonym").set_value("扣")
    at.text_input(key="g_prop_term").set_value("火星文")
    at.button(key="g_propose").click().run()
    assert any("已提交同义词提议" in s.value for s in at.success)
    store = admin_store()
    assert ("火星文", "扣") not in {(e.term, e.synonym) for e in store.load().entries}
    assert [(p.term, p.synonym) for p in store.proposals()] == [("火星文", "扣")]


def test_glossary_page_approval_lists_the_real_questions_it_flips_before_confirming(page):
    from core.stores.review import ReviewStore
    from core.stores.roles import User
    from core.values import Problem, RAGAnswer

    # refused today: the school teaches no IELTS (a 保过班 price stays refused even with the synonym: asked_sides)
    asked = "你们的雅思课多少钱？"
    ReviewStore(open_database(Settings.from_env().db_url)).enqueue(
        RAGAnswer(question=asked, text="这件事资料里没写", hits=(), candidates=(), threshold=0.0, k=3, refused=True,
                  model_called=False, problems=(Problem("refused", "资料外的词"),)), origin="refusal")
    store = admin_store()
    proposal = store.propose(User("amy", "顾问 Amy", "consultant"), "口语课", "雅思").proposal_id
    at = page()
    at.button(key=f"g_approve_{proposal}").click().run()
    assert not at.exception
    assert [(p.term, p.synonym) for p in store.proposals()] == [("口语课", "雅思")]  # not yet approved
    lines = "\n".join(m.value for m in at.markdown)
    assert "最近 30 天真实问过的问题" in lines and "拒答 → 回答（1）" in lines and "雅思课多少钱" in lines
    at.button(key=f"g_approve_ok_{proposal}").click().run()
    assert not at.exception and store.proposals() == ()
    assert ("口语课", "雅思") in {(e.term, e.synonym) for e in store.load().entries}


def test_glossary_page_pages_through_every_entry(page):
    at = page()
    total = len(admin_store().load())
    assert total > 30
    assert len(at.dataframe[0].value) == 30
    pages = -(-total // 30)
    at.number_input(key="g_page").set_value(pages).run()
    assert not at.exception
    assert len(at.dataframe[0].value) == total - 30 * (pages - 1)

