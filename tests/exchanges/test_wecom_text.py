"""What a WeChat student reads of an answer: sources written out, cut into parts WeCom takes (2,048 UTF-8 bytes)
after a sentence where one fits, and a msgid per part that is the same on every attempt."""

from __future__ import annotations

import re

import pytest

from core.exchanges.wecom_text import byte_length, msgid_for, split_text, with_sources
from core.values.exchanges import Citation


def test_split_keeps_a_text_that_fits_whole():
    text = "中" * 682 + "ab"  # 2,046 + 2 = 2,048 bytes: exactly the limit
    assert byte_length(text) == 2048 and split_text(text) == (text,)


def test_split_cuts_after_sentences_within_the_byte_limit():
    sentence = "每课时 45 分钟，请按时到校上课。"  # 14 characters × 3 bytes + "45" + 2 spaces = 46 bytes
    assert byte_length(sentence) == 46
    text = sentence * 100  # 4,600 bytes; 44 sentences (2,024 bytes) fit in a part: 44 + 44 + 12
    parts = split_text(text)
    assert [len(p) // len(sentence) for p in parts] == [44, 44, 12]
    assert all(byte_length(p) <= 2048 and p.endswith("上课。") for p in parts)
    assert "".join(parts) == text


def test_split_cuts_a_sentence_longer_than_the_limit_inside_it():
    parts = split_text("长" * 1000)  # 3,000 bytes and no sentence end
    assert [byte_length(p) for p in parts] == [2046, 954]


def test_split_prefers_a_paragraph_end():
    first, second = "第一段。" * 150, "第二段。" * 150  # 1,800 bytes each
    assert split_text(first + "\n\n" + second) == (first, second)


def test_with_sources_writes_each_citation_out():
    text = with_sources("一共四级[1]。 ", (Citation(1, "01-口语课分级说明.md", "一、级别总数与定位"),))
    assert text == "一共四级[1]。\n\n出处：\n[1] 01-口语课分级说明.md · 一、级别总数与定位"
    assert with_sources("这件事资料里没写。", ()) == "这件事资料里没写。"


@pytest.mark.parametrize("kind, source, part", [("reply", "msg_" + "a" * 24, 1), ("release", "msg_x", 20),
                                                ("ack", "m", 3)])
def test_msgid_is_what_wecom_accepts_and_the_same_every_time(kind, source, part):
    msgid = msgid_for(kind, source, part)
    assert re.fullmatch(r"[0-9a-zA-Z_-]{1,32}", msgid)
    assert msgid == msgid_for(kind, source, part)


def test_msgids_differ_by_kind_source_and_part():
    made = {msgid_for(k, s, p) for k in ("reply", "release", "ack") for s in ("msg_1", "msg_2") for p in (1, 2)}
    assert len(made) == 12
