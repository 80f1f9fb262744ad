"""The plain-value helpers behind the 资料缺口 page and 去补充资料 (no Streamlit runs here)."""

from __future__ import annotations

from datetime import UTC, datetime

from core.gaps.board import BoardQuestion, BoardTopic, ItemRef, Section
from core.stores.gaps import GapCheck, GapTopic, QuestionCheck
from ui.gap_editor import section_span, splice
from ui.gap_fix import request_for_topic
from ui.gaps_view import check_frame, topic_facts, topic_title

T0 = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)
FILE = "# 标题\n\n开头一句。\n\n## 三、学费标准\n\n入门级 3600 元。\n\n## 四、分级测试\n\n免费。\n"


def topic(label: str = "分期、学费", check: GapCheck | None = None) -> BoardTopic:
    stored = GapTopic(id=3, label=label, terms=tuple(label.split("、")), owner=None, status="open", created_at=T0,
                      closed_at=None, fixed_by=None, keys=("k",), questions=("学费能分期吗",), check=check)
    question = BoardQuestion(key="k", question="学费能分期吗", items=(ItemRef(1, 1, "refusal", "pending", False),),
                             askings=4, first_asked=T0, last_asked=T0, kinds=("拒答",), notes=("资料确实没写",))
    return BoardTopic(topic=stored, questions=(question,), near_miss=Section("01-口语课分级说明.md", "三、学费标准", 4))


def test_section_span_is_the_body_of_the_named_section():
    start, end = section_span(FILE, "三、学费标准")
    assert FILE[start:end] == "入门级 3600 元。"
    assert section_span(FILE, "九、没有这节") is None


def test_splice_replaces_only_that_body():
    span = section_span(FILE, "三、学费标准")
    changed = splice(FILE, span, "入门级 3600 元。\n学费可以分两期缴纳。\n")
    assert changed == FILE.replace("入门级 3600 元。", "入门级 3600 元。\n学费可以分两期缴纳。")


def test_topic_title_counts_and_escapes():
    assert topic().label == "分期、学费"
    title = topic_title(topic("[点我](http://x)"))
    assert title.startswith("#3 \\[点我\\]") and "](" not in title and title.endswith("· 1 个问题 · 问了 4 次 · 待补充")


def test_topic_title_and_table_show_the_recheck():
    check = GapCheck(at=T0, fingerprint="f", version_note="「01.md」第 2 版",
                     results=(QuestionCheck("学费能分期吗", True, "覆盖 100%"), QuestionCheck("能刷花呗吗", False, "花呗")))
    assert topic_title(topic(check=check)).endswith("待补充 · 1/2 题现在可答")
    assert check_frame(check)["现在"].tolist() == ["可答 ✓", "仍拒答 ✗"]


def test_topic_facts_name_the_near_miss_and_the_notes():
    facts = topic_facts(topic())
    assert any("三、学费标准" in line and "片段 #4" in line for line in facts)
    assert any(line == "**复核备注**：资料确实没写" for line in facts)


def test_a_fix_request_for_a_topic_opens_its_near_miss_with_its_questions():
    request = request_for_topic(topic())
    assert (request.source, request.heading, request.chunk, request.questions, request.topic_id) == (
        "01-口语课分级说明.md", "三、学费标准", 4, ("学费能分期吗",), 3)
