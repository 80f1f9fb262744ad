"""The diff table: integer line numbers, the changed characters highlighted, staff text escaped, lines wrapped."""

from __future__ import annotations

import re

from core.corpus.diff import side_by_side
from ui.diff_view import diff_frame, diff_html

OLD = "一、适用范围\n\n手续费为 5%，单笔最低 50 元。\n"
NEW = "一、适用范围\n\n手续费为 5%，单笔最低 60 元。<script>alert(1)</script>\n"


def test_diff_view_line_numbers_are_integers_never_floats_or_none():
    frame = diff_frame(side_by_side(OLD, NEW + "新增一行\n"))
    numbers = [*frame["旧行号"], *frame["新行号"]]
    assert all(isinstance(n, int) or n == "" for n in numbers)
    html = diff_html(side_by_side(OLD, NEW + "新增一行\n"))
    assert "None" not in html and not re.search(r">\d+\.0+<", html)
    assert ">3<" in html and ">4<" in html


def test_diff_view_highlights_the_changed_characters_inside_the_line():
    html = diff_html(side_by_side(OLD, NEW))
    assert re.search(r"单笔最低 <span style=\"background:#f5a3a3[^\"]*\">5</span>0 元", html)
    assert re.search(r"单笔最低 <span style=\"background:#8fd6a2[^\"]*\">6</span>0 元", html)


def test_diff_view_escapes_staff_text_and_wraps_long_lines():
    html = diff_html(side_by_side(OLD, NEW))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "white-space:pre-wrap" in html and "overflow-wrap:anywhere" in html
