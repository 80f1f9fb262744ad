"""Ask page extras: recent questions re-ask in one click, the checked answer has a copy box, 标记复核 confirms with a link."""

from __future__ import annotations

PAGE = "app_pages/ask.py"


def ask(at, question: str):
    at.text_input(key="question").set_value(question)
    at.button(key="ask").click().run()
    assert not at.exception
    return at


def test_ask_recent_questions_re_ask_in_one_click(open_app):
    at = open_app(page=PAGE)
    ask(at, "口语课一共有几级？")
    ask(at, "寒假班几号开始？")
    assert [b.label for b in at.button if (b.key or "").startswith("recent_")] == ["寒假班几号开始？", "口语课一共有几级？"]
    at.button(key="recent_1").click().run()
    assert not at.exception
    assert at.session_state["ask_run"]["retrieval"].question == "口语课一共有几级？"


def test_ask_checked_answer_has_a_copy_box(open_app):
    at = ask(open_app(page=PAGE), "口语课一共有几级？")
    answer = at.session_state["ask_result"]["answer"]
    if answer.refused or answer.flagged:  # the offline answerer is deterministic; this guards the premise
        raise AssertionError(f"expected a checked answer, got refused={answer.refused} flagged={answer.flagged}")
    assert [c.value for c in at.code] == [answer.text]


def test_ask_flag_confirms_with_a_toast_and_a_link(open_app):
    at = ask(open_app(page=PAGE), "口语课一共有几级？")
    at.text_input(key="flag_name").set_value("王老师")
    at.button(key="flag").click().run()
    assert not at.exception
    line = next(s.value for s in at.success if "已记入复核队列" in s.value)
    assert "[在复核队列打开](review?item=" in line
    assert any("已记入复核队列" in t.value for t in at.toast)
