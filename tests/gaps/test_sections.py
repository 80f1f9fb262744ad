"""Where a gap fix goes: a file's sections, one section's body replaced, a new section at the file's heading level."""

from __future__ import annotations

import pytest

from core.errors import CorpusError
from core.gaps.sections import Placement, add_section, headings, section_level, section_span, splice

TEXT = "# 退费制度\n\n开头一段。\n\n## 一、适用范围\n\n全部学员。\n\n## 二、申请方式\n\n在 App 内申请。\n"


def test_headings_are_the_loaders_sections_in_order_with_the_text_before_the_first_heading():
    assert headings(TEXT) == ("退费制度", "一、适用范围", "二、申请方式")
    assert headings("前言\n\n# 标题\n\n正文") == ("", "标题")


def test_splice_replaces_only_the_chosen_sections_body():
    span = section_span(TEXT, "一、适用范围")
    assert splice(TEXT, span, "  全部口语课学员。\n\n") == TEXT.replace("全部学员。", "全部口语课学员。")


@pytest.mark.parametrize(("text", "level"), [
    (TEXT, 2),  # one top-level title does not count
    ("# 甲\n\n一\n\n# 乙\n\n二\n", 1),
    ("## 甲\n\n### 子\n\n### 子二\n", 3),
    ("没有标题的文件", 2),
    ("```\n# 代码里的不算\n```\n### 甲\n", 3),
])
def test_a_new_section_takes_the_level_most_sections_use(text, level):
    assert section_level(text) == level


def test_a_new_section_goes_at_the_end_at_that_level():
    added = add_section(TEXT, " 付款方式 ", "学费可以分期付款。\n")
    assert added == TEXT.rstrip() + "\n\n## 付款方式\n\n学费可以分期付款。\n"
    assert headings(added)[-1] == "付款方式" and added[slice(*section_span(added, "付款方式"))] == "学费可以分期付款。"


@pytest.mark.parametrize(("title", "body", "message"), [
    ("", "内容", "请填写新小节的标题"),
    ("一、适用范围", "内容", "已经有小节「一、适用范围」"),
    ("付款方式", "   ", "还没有内容"),
    ("长" * 101, "内容", "超过了 100 字"),
])
def test_a_new_section_refuses_what_would_not_make_one(title, body, message):
    with pytest.raises(CorpusError, match=message):
        add_section(TEXT, title, body)


def test_a_placement_names_the_file_and_the_section():
    assert Placement("02.md", "付款方式", new=True).label == "「02.md」· 新小节「付款方式」"
    assert Placement("02.md", "").label == "「02.md」· 小节「文首」"
