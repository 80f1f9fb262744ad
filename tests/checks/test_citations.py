"""core.language.citations: one grammar for [n] markers, shared by the citation check, the grounding check and the renderer."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from core.checks.grounding import check_grounding
from core.checks.references import check_refs
from core.language.citations import cited, numbers, renumber, reorder

DOCS = [Document(page_content="口语课一共分为四级。", metadata={"source": "a.md", "heading": "一", "chunk": 0}),
        Document(page_content="每一级都是 16 课时。", metadata={"source": "a.md", "heading": "二", "chunk": 1})]


@pytest.mark.parametrize(("text", "expected"), [
    ("四级[1]。", [1]), ("四级[1][2]。", [1, 2]), ("四级[1,2]。", [1, 2]), ("四级[1，2]。", [1, 2]),
    ("四级[1、2]。", [1, 2]), ("四级【2】。", [2]), ("四级［1］。", [1]), ("四级[２]。", [2]), ("四级[2][1][2]。", [2, 1]),
])
def test_every_accepted_form_is_read_the_same_way(text, expected):
    assert cited(text) == expected


@pytest.mark.parametrize("text", ["四级[1,2]。每级 16 课时[1、2]。", "四级【1】。每级 16 课时［2］。"])
def test_the_citation_and_grounding_checks_agree_on_every_form(text):
    assert check_refs(text, DOCS).ok  # no `no_refs`, no `bad_ref`
    assert not [p for p in check_grounding(text, DOCS, "几级").problems if p.code == "uncited_claim"]


def test_a_number_outside_the_references_is_a_bad_ref_in_any_form():
    assert [p.code for p in check_refs("四级[1、7]。", DOCS).problems] == ["bad_ref"]


def test_renumber_numbers_citations_in_order_of_first_use():
    text, order = renumber("每级 16 课时[2]。一共四级[1,2]。", 3)
    assert text == "每级 16 课时[1]。一共四级[2][1]。"
    assert order == (2, 1, 3)  # new [1] is old [2]; the uncited old [3] goes last
    assert reorder(("a", "b", "c"), order) == ("b", "a", "c")


def test_renumber_leaves_numbers_outside_the_references_for_the_check():
    text, order = renumber("四级[9][2]。", 2)
    assert text == "四级[9][1]。" and order == (2, 1)


def test_numbers_of_one_marker():
    assert numbers("【1、３】") == (1, 3)
