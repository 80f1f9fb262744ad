"""The plain helpers behind the Ask and Sources pages (ui/answer_view.py, ui/source_view.py)."""

from __future__ import annotations

import re
from datetime import UTC

import pytest
from langchain_core.documents import Document

from core.corpus.loader import Section, split_sections
from core.values import Hit
from ui.answer_view import linked_answer, md_escape
from ui.source_view import overview, page_html, page_of, paginate, source_url


def hit(rank: int, source: str = "01-口语课分级说明.md", chunk: int = 5) -> Hit:
    return Hit(rank=rank, source=source, heading="五、常见问题", chunk=chunk, start=0, end=4, text="一共四级",
               score=0.3, passed=True)


@pytest.mark.parametrize("text, literal", [
    ("<script>alert(1)</script>", r"\<script\>alert\(1\)\<\/script\>"),
    ("[点我](javascript:alert(1))", r"\[点我\]\(javascript\:alert\(1\)\)"),
    ("**加粗** _斜体_ `代码`", r"\*\*加粗\*\* \_斜体\_ \`代码\`"),
    ("# 不是标题", r"\# 不是标题"),
    ("1. 不是列表", r"1\. 不是列表"),
    ("&lt;b&gt;", r"\&lt\;b\&gt\;"),
])
def test_md_escape_leaves_no_markdown(text, literal):
    assert md_escape(text) == literal


def test_md_escape_keeps_line_breaks():
    assert md_escape("第一行\n第二行") == "第一行  \n第二行"


def test_linked_answer_links_only_numbers_that_name_a_hit():
    rendered = linked_answer("一共四级[1]，另见[3]。", [hit(1)])
    assert rendered == ("一共四级[\\[1\\]](" + source_url("01-口语课分级说明.md", 5, cite="一共四级") + ")，另见\\[3\\]。")
    assert "&cite=%E4%B8%80%E5%85%B1%E5%9B%9B%E7%BA%A7)" in rendered  # the claim, for the cited-sentence highlight


def test_linked_answer_marks_problem_spans():
    text = "一共六级[1]。"
    assert linked_answer(text, [hit(1)], mark=[(0, 4)]).startswith(":red-background[一共六级]")


def test_source_url_encodes_the_file_name():
    assert source_url("02-退费 与(转班).md", 3) == (
        "sources?source=02-%E9%80%80%E8%B4%B9%20%E4%B8%8E%28%E8%BD%AC%E7%8F%AD%29.md&chunk=3")


def test_paginate_covers_every_section_character_once_within_the_page_size():
    text = "".join(f"## 节{n}\n\n" + "句子。\n" * (n * 40) + "\n" for n in range(1, 12))
    sections = split_sections(text)
    pages = paginate(text, sections, page_chars=500)
    shown = [(s.start, s.end) for page in pages for s in page]
    assert shown == sorted(shown)
    assert sum(e - s for s, e in shown) == sum(s.end - s.start for s in sections)
    assert all(sum(s.end - s.start for s in page) <= 500 for page in pages)
    assert len(pages) > 5


def test_page_of_finds_the_page_holding_an_offset():
    text = "a\n" * 600
    pages = paginate(text, [Section("", 0, len(text))], page_chars=100)
    assert page_of(pages, 0) == 0 and page_of(pages, 1150) == 11


def test_page_html_escapes_text_and_marks_the_span():
    text = "<b>开头</b> 一共四级 结尾"
    start = text.index("一共四级")
    html = page_html(text, paginate(text, [Section("标题<i>", 0, len(text))])[0], span=(start, start + 4))
    assert "&lt;b&gt;开头&lt;/b&gt;" in html and "标题&lt;i&gt;" in html
    assert re.search(r'<mark id="xiaoe-hit"[^>]*>一共四级</mark>', html)


def test_overview_counts_chunks_and_sections_per_file():
    docs = [Document(page_content="x" * n, metadata={"source": s, "heading": h})
            for s, h, n in [("a.md", "", 10), ("a.md", "一", 20), ("a.md", "一", 30), ("b.md", "二", 40)]]
    facts = overview(docs)
    assert [(f.name, f.first, f.chunks, f.sections) for f in facts.files] == [("a.md", 0, 3, 2), ("b.md", 3, 1, 1)]
    assert (facts.chunks, facts.average_chars) == (4, 25.0)  # (10 + 20 + 30 + 40) / 4


def test_verdict_frame_marks_each_sentence_and_bolds_the_unsupported_figure():
    from core.checks.grounding import check_grounding
    from ui.answer_view import verdict_frame

    levels = Hit(rank=1, source="01-口语课分级说明.md", heading="一、级别总数与定位", chunk=1, start=0, end=20,
                 text="启明英语的口语课一共分为四级。", score=0.5, passed=True)
    text = "口语课一共分为四级[1]。一共六级[1]。"
    frame = verdict_frame(text, check_grounding(text, [levels.document], "口语课几级"))
    assert list(frame["核对"])[0] == "✓"
    assert "6" in list(frame["核对"])[1] and "**六级**" in list(frame["句子"])[1]
    assert list(frame["引用"]) == ["\\[1\\]", "\\[1\\]"]


def test_verdict_frame_escapes_markdown_in_sentences():
    from core.checks.grounding import check_grounding
    from ui.answer_view import verdict_frame

    text = "<b>粗</b> [点我](javascript:alert(1))。"
    frame = verdict_frame(text, check_grounding(text, [], ""))
    assert "<b>" not in frame["句子"][0].replace("\\<", "")


def test_score_chart_draws_the_ranking_score_and_the_threshold_the_gate_used(corpus_index):
    from core.assistant import build_assistant
    from core.settings import Settings
    from ui.answer_view import VALUE, candidate_frame, score_chart

    assistant = build_assistant(Settings(), corpus_index, None)
    retrieval = assistant.retrieve("商务那个级别要多少钱")
    gate = assistant.gate(retrieval, assistant.knobs.with_(threshold=0.12))
    frame = candidate_frame(gate, retrieval.candidates)
    spec = score_chart(frame, gate.threshold).to_dict()
    bars, rule = spec["layer"][0], spec["layer"][1]
    assert bars["encoding"]["y"]["field"] == VALUE == "排序分"
    assert list(frame[VALUE]) == [round(h.value, 4) for h in retrieval.candidates]
    assert list(frame[VALUE]) == sorted(frame[VALUE], reverse=True)  # bars in the order the gate ranks
    rule_data = spec["datasets"][rule["data"]["name"]]
    assert rule_data[0]["阈值"] == 0.12
    passed = frame[frame["状态"] == "命中"]
    assert (passed[VALUE] >= 0.12 - 1e-4).all() and len(passed) == len(gate.hits)


def test_problem_lines_shows_the_question_and_answer_figures_side_by_side():
    from core.values import Problem
    from ui.answer_view import problem_lines

    problem = Problem("question_mismatch", "问题说 4200 元，回答用的是 4800 元", (0, 4),
                      compare=(("金额", "4200 元", "4800 元"), ("课时", "6 课时", "12 | 课时")))
    lines = problem_lines([problem, Problem("bad_ref", "引用了 [7]")]).splitlines()
    assert lines[:2] == ["- 问题说 4200 元，回答用的是 4800 元", "- 引用了 \\[7\\]"]
    assert lines[3:] == ["| 数字 | 问题里 | 回答用的 |", "| --- | --- | --- |", "| 金额 | 4200 元 | 4800 元 |",
                         "| 课时 | 6 课时 | 12 \\| 课时 |"]


def test_verdict_frame_explains_a_derived_figure():
    from core.checks.grounding import check_grounding
    from ui.answer_view import verdict_frame

    example = Hit(rank=1, source="02-退费与转班制度.md", heading="三、退费计算口径", chunk=4, start=0, end=20,
                  text="示例：学员实付 4800 元报读三级（总课时 16）。", score=0.5, passed=True)
    text = "上了 6 课时还剩 10 课时，按 16 课时算[1]。"
    frame = verdict_frame(text, check_grounding(text, [example.document], "上了6节课"))
    assert list(frame["核对"]) == ["✓（推得 10 \\= 16 − 6）"]  # escaped for st.table


def test_exchange_lines_show_the_students_words_and_the_standalone_question():
    from datetime import datetime

    from core.values.exchanges import Exchange
    from ui.conversation_view import exchange_lines

    exchange = Exchange(id=2, message_id="msg_b", key_name="app", user="u", conversation_id="conv_a",
                        client_msg_id="c2", query="那三级呢？", status="answered", answer="4800 元[1]", draft="",
                        reasons=(), reused_id=None, item_id=None, policy="auto",
                        created_at=datetime(2026, 3, 2, tzinfo=UTC), state="done", gate_runs=1,
                        standalone="三级学费多少？", read_as="follow_up", rules=("level",), derived_from="msg_a")
    lines = exchange_lines(exchange)
    assert lines[0].endswith("学员：那三级呢？")
    assert lines[1] == "  独立问题（由上一句 msg_a 推出，规则 level）：三级学费多少？"
