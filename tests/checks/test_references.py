"""Citations: extraction, mapping back to file/section/offsets, and the check."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from core.checks.references import check_refs, excerpt, extract_refs, resolve_refs

HITS = [
    Document(page_content="口语课一共分为四级。" * 6, metadata={"source": "01.md", "heading": "一、级别", "chunk": 0,
                                                      "start": 10, "end": 70}),
    Document(page_content="退费按剩余课时计算。", metadata={"source": "02.md", "heading": "三、退费", "chunk": 4,
                                                   "start": 200, "end": 210}),
]


@pytest.mark.parametrize("text,expected", [
    ("一共四级[1]。每级 16 课时[2]。", [1, 2]),
    ("见[2]和[1]，又见[2]。", [2, 1]),
    ("没有出处。", []),
    ("[10] 与 [3]", [10, 3]),
])
def test_extract_refs_finds_numbers_in_order(text, expected):
    assert extract_refs(text) == expected


def test_resolve_refs_maps_back_to_file_heading_and_offsets():
    (ref,) = resolve_refs("退费规则[2]", HITS)
    assert (ref.number, ref.source, ref.heading, ref.chunk, ref.start, ref.end) == (2, "02.md", "三、退费", 4, 200, 210)


def test_excerpt_is_shortened_with_ellipsis():
    assert excerpt("字" * 100, 40) == "字" * 40 + "…"
    assert excerpt("短句", 40) == "短句"


def test_check_refs_catches_fabricated_number():
    report = check_refs("口语课一共六级，每级 12 课时[7]", HITS)
    assert [p.code for p in report.problems] == ["bad_ref"]
    assert report.problems[0].message == "引用了不存在的编号 [7]，本次只提供了 1~2"
    text = "口语课一共六级，每级 12 课时[7]"
    start, end = report.problems[0].span
    assert text[start:end] == "[7]"


def test_check_refs_flags_answer_without_any_citation():
    report = check_refs("口语课一共四级。", HITS)
    assert [p.code for p in report.problems] == ["no_refs"]


def test_check_refs_refusal_passes_without_refs():
    assert check_refs("这件事资料里没写，我不能替你们编，请转人工。", HITS, require=False).ok


def test_check_refs_zero_is_out_of_range():
    assert [p.code for p in check_refs("一共四级[0]", HITS).problems] == ["bad_ref"]


def test_check_refs_good_answer_passes_and_knows_its_sources():
    report = check_refs("一共四级[1]，退费看剩余课时[2]。", HITS)
    assert report.ok
    assert [r.source for r in report.refs] == ["01.md", "02.md"]
