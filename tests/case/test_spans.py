"""Where the student's own figures stand: every kind the case reader reads with a number, in text order."""

from __future__ import annotations

import pytest

from core.case.spans import AGE, MOVED, SPAN, figure_spans


@pytest.mark.parametrize(("text", "expected"), [
    ("我交了4800，上了4节课", [("money", "4800"), ("lessons", "4节")]),
    ("第二次转班", [("ordinal", "第二次")]),
    ("我已经转过两次班了", [(MOVED, "转过两次")]),
    ("要是已经转了两回了呢", [(MOVED, "转了两回")]),
    ("我请了3个月病假", [(SPAN, "3个月")]),
    ("要是半年呢", [(SPAN, "半年")]),
    ("我孩子12岁", [(AGE, "12岁")]),
    ("二级学费多少", [("level", "二级")]),
])
def test_figure_spans_reads_each_kind_where_it_stands(text, expected):
    found = figure_spans(text, {1, 2, 3, 4})
    assert [(f.kind, f.text) for f in found] == expected
    assert all(text[f.start:f.end] == f.text for f in found)


def test_figure_spans_a_pattern_never_overlaps_a_figure_read_first():
    found = figure_spans("我孩子12岁，交了4800，休学6个月")
    assert [(f.kind, f.text) for f in found] == [(AGE, "12岁"), ("money", "4800"), (SPAN, "6个月")]
