"""The Ask page remembers: `/?q=` follows the question, a reload answers it again without recording it twice,
「我最近问过」 comes from the store (another session sees it), and 「对比两组参数」 decides at both knob sets."""

from __future__ import annotations

from core.settings import Settings
from core.stores.asked import AskedStore
from core.stores.db import open_database
from core.stores.review import ReviewStore

PAGE = "app_pages/ask.py"
QUESTION = "雅思班一期多少钱？"  # refused: a refusal is always queued, so a second recording would show


def ask(at, question: str):
    at.text_input(key="question").set_value(question)
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    return at


def queued_asks() -> int:
    page = ReviewStore(open_database(Settings.from_env().db_url)).list()
    return sum(item.ask_count for item in page.items)


def test_ask_puts_the_question_in_the_address_and_a_reload_keeps_it(open_app):
    at = ask(open_app(page=PAGE), QUESTION)
    assert at.query_params["q"] == [QUESTION] or at.query_params["q"] == QUESTION
    before = queued_asks()
    assert before >= 1
    again = open_app(page=PAGE, params={"q": QUESTION})
    assert not again.exception
    assert again.session_state["ask_run"]["retrieval"].question == QUESTION
    assert again.session_state["ask_result"]["answer"].refused
    assert queued_asks() == before  # the reload was not recorded again
    history = AskedStore(open_database(Settings.from_env().db_url)).recent("local")
    assert [h.question for h in history] == [QUESTION]


def test_recent_questions_come_from_the_store_in_another_session(open_app):
    ask(open_app(page=PAGE), "口语课一共有几级？")
    ask(open_app(page=PAGE), "寒假班几号开始？")
    fresh = open_app(page=PAGE)
    labels = [b.label for b in fresh.button if (b.key or "").startswith("recent_")]
    assert labels == ["寒假班几号开始？", "口语课一共有几级？"]
    assert any("作答" in c.value or "拒答" in c.value for c in fresh.caption)
    fresh.button(key="recent_1").click().run()
    assert fresh.session_state["ask_run"]["retrieval"].question == "口语课一共有几级？"


def test_compare_two_knob_sets_decides_at_both_without_a_model_call(open_app):
    at = ask(open_app(page=PAGE), "口语课一共有几级？")
    at.slider(key="threshold").set_value(0.9).run()
    assert not at.exception
    shown = "\n".join(m.value for m in at.markdown)
    assert "**当前滑块**" in shown and "**已保存的默认值**" in shown
    assert "**✗ 拒答**" in shown and "**✓ 作答**" in shown
