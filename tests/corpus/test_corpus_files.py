"""Corpus file names and contents from a browser: a table of hostile names, and content checks."""

from __future__ import annotations

import unicodedata

import pytest

from core.corpus.files import decode_markdown, sanitize_filename
from core.corpus.loader import MAX_FILE_BYTES
from core.errors import CorpusError

HOSTILE = [
    ("../x.md", "不能包含"),
    ("..\\x.md", "不能包含"),
    ("a/b.md", "不能包含"),
    ("/etc/passwd.md", "不能包含"),
    ("C:x.md", "不能包含"),
    (".hidden.md", "以点开头"),
    ("..md", "以点开头"),
    ("a..b.md", "连续的两个点"),
    ("x.txt", "不是 Markdown"),
    ("x.md.exe", "不是 Markdown"),
    ("x", "不是 Markdown"),
    (".md", "以点开头"),
    ("CON.md", "保留设备名"),
    ("con.md", "保留设备名"),
    ("lpt1.notes.md", "保留设备名"),
    ("nul\x00.md", "控制字符"),
    ("bad\x07bell.md", "控制字符"),
    ("line\nbreak.md", "控制字符"),
    ("rtl\u202egnp.md", "不可见字符"),
    ("zero\u200bwidth.md", "不可见字符"),
    ("trailing .md", "不能以空格或点结尾"),
    ("a" * 98 + ".md", "太长"),
    ("常" * 90 + ".md", "太长"),  # 93 characters but 273 bytes
    ("", "是空的"),
    ("   ", "是空的"),
]


@pytest.mark.parametrize(("name", "message"), HOSTILE)
def test_corpus_files_hostile_names_refused(name, message):
    with pytest.raises(CorpusError, match=message):
        sanitize_filename(name)


@pytest.mark.parametrize(("name", "expected"), [
    ("常见问题.md", "常见问题.md"),
    ("04-寒假班 安排.md", "04-寒假班 安排.md"),
    ("  notes.md  ", "notes.md"),
    ("README.MD", "README.md"),
    ("v1.2-notes.md", "v1.2-notes.md"),
    ("a" * 97 + ".md", "a" * 97 + ".md"),
    ("console.md", "console.md"),
])
def test_corpus_files_good_names_kept(name, expected):
    assert sanitize_filename(name) == expected


def test_corpus_files_names_are_nfc_normalised():
    decomposed = unicodedata.normalize("NFD", "café.md")
    assert sanitize_filename(decomposed) == unicodedata.normalize("NFC", "café.md")


def test_corpus_files_utf8_with_bom_is_decoded_without_bom():
    assert decode_markdown("\ufeff# 标题\n内容".encode(), name="a.md") == "# 标题\n内容"


def test_corpus_files_gbk_is_refused_with_advice():
    with pytest.raises(CorpusError, match="不是 UTF-8"):
        decode_markdown("# 退费规则".encode("gbk"), name="a.md")


def test_corpus_files_over_two_megabytes_refused():
    with pytest.raises(CorpusError, match="超过 2 MB"):
        decode_markdown(b"a" * (MAX_FILE_BYTES + 1), name="a.md")


def test_corpus_files_exactly_two_megabytes_accepted():
    assert len(decode_markdown(b"a" * MAX_FILE_BYTES, name="a.md")) == MAX_FILE_BYTES


@pytest.mark.parametrize(("data", "message"), [(b"", "是空的"), (b" \n\t", "是空的"), (b"abc\x00def", "空字符")])
def test_corpus_files_empty_or_binary_refused(data, message):
    with pytest.raises(CorpusError, match=message):
        decode_markdown(data, name="a.md")
