"""core.sets.format: validation that names the row, formats (CSV/GBK/XLSX), the size limit, key phrases."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from openpyxl import Workbook

import core.sets.format as fmt
from core.errors import QuestionSetError
from core.sets.format import MAX_SET_BYTES, parse_question_set, questions_from_rows, read_question_file

FILES = {"01-口语课分级说明.md", "02-退费与转班制度.md"}
SECTIONS = {"01-口语课分级说明.md": ("一、级别总数与定位", "三、学费标准"), "02-退费与转班制度.md": ("三、退费计算口径",)}
HEADER = "question,expected,section,key_phrase\n"
GOOD = HEADER + "口语课一共有几级？,01-口语课分级说明.md,一、级别总数与定位,一共分为四级\n雅思班多少钱？,应拒答,,\n"


BAD_INPUTS = [
    ("question,section\n问题,一\n", "第 1 行（表头）缺少必需的列：expected"),
    ("question,expected,key_phrse\n问题,应拒答,\n", "无法识别的列：key_phrse"),
    (HEADER + "问什么,04-不存在.md,,\n", "第 2 行：预期资料「04-不存在.md」不在资料库里"),
    (HEADER + "好问题,应拒答,,\n,应拒答,,\n", "第 3 行：问题是空的"),
    (HEADER + "口语课几级？,应拒答,,\n另一题,应拒答,,\n口语课几级,应拒答,,\n", "第 4 行：问题与第 2 行重复"),
    (HEADER + "问什么,,,\n", "第 2 行：expected（预期）是空的"),
    (HEADER + "问什么,应拒答,,四级\n", "第 2 行：预期是「应拒答」的题不能再填小节或关键短语"),
    (HEADER + "问什么,01-口语课分级说明.md,九、不存在,\n", "第 2 行：小节「九、不存在」不在「01-口语课分级说明.md」里"),
    (HEADER + "问什么,应拒答,,,多出来的一格\n", "第 2 行：这一行有 5 格，比表头的 4 列多"),
    (HEADER + "长" * 2001 + ",应拒答,,\n", "第 2 行：问题有 2001 个字"),
    ("", "文件是空的"),
    (HEADER, "题集里没有任何题目"),
    (HEADER + '"没闭合的引号,应拒答,,\n', "第 2 行"),
]

def xlsx_bytes(rows: list[list[str]]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def parse(text: str, **options):
    return parse_question_set(text.encode("utf-8"), filename="set.csv", known_files=FILES,
                              known_sections=SECTIONS, **options)


def test_parse_reads_a_good_set():
    qset = parse(GOOD)
    assert [q.question for q in qset.questions] == ["口语课一共有几级？", "雅思班多少钱？"]
    assert qset.questions[0].expected == "01-口语课分级说明.md" and qset.questions[0].line == 2
    assert qset.questions[1].should_refuse and qset.questions[1].expectation == "应拒答"


@pytest.mark.parametrize(("text", "message"), BAD_INPUTS)
def test_parse_rejects_bad_input_naming_the_row(text, message):
    with pytest.raises(QuestionSetError) as caught:
        parse(text)
    assert message in str(caught.value)


def test_parse_lists_every_bad_row_at_once():
    with pytest.raises(QuestionSetError) as caught:
        parse(HEADER + "好题,应拒答,,\n,应拒答,,\n问,04.md,,\n")
    assert [line for line, _ in caught.value.problems] == [3, 4]
    assert "第 3 行" in str(caught.value) and "第 4 行" in str(caught.value)


def test_parse_counts_physical_lines_across_blank_lines_and_quoted_newlines():
    text = HEADER + '"两行\n的问题",应拒答,,\n\n,应拒答,,\n'
    with pytest.raises(QuestionSetError) as caught:
        parse(text)
    assert caught.value.line == 5  # header 1, quoted question 2–3, blank 4, empty question 5


def test_parse_rejects_bad_encoding_naming_the_line():
    data = (HEADER + "好题,应拒答,,\n").encode("utf-8") + b"\xff\xfe\xfd,\xe5\xba\x94,,\n"
    with pytest.raises(QuestionSetError) as caught:
        parse_question_set(data, filename="set.csv")
    assert "第 3 行有无法识别的字符" in str(caught.value)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "gbk"])
def test_parse_accepts_excel_encodings(encoding):
    qset = parse_question_set(GOOD.encode(encoding), filename="set.csv", known_files=FILES)
    assert qset.questions[0].question == "口语课一共有几级？"


def test_parse_accepts_chinese_headers():
    qset = parse("问题,预期,小节,关键短语\n口语课一共有几级？,01-口语课分级说明.md,一、级别总数与定位,四级\n")
    assert qset.questions[0].key_phrase == "四级"


def test_parse_reads_xlsx():
    data = xlsx_bytes([["question", "expected", "section", "key_phrase"], ["口语课几级？", "01-口语课分级说明.md", "", ""],
                       ["雅思班多少钱？", "应拒答", "", ""]])
    qset = parse_question_set(data, filename="题集.xlsx", known_files=FILES)
    assert [q.line for q in qset.questions] == [2, 3]


def test_parse_names_the_excel_row():
    data = xlsx_bytes([["question", "expected"], ["好题", "应拒答"], ["坏题", "05.md"]])
    with pytest.raises(QuestionSetError, match="第 3 行：预期资料「05.md」"):
        parse_question_set(data, filename="题集.xlsx", known_files=FILES)


def test_parse_rejects_a_broken_xlsx():
    with pytest.raises(QuestionSetError, match="无法读取这个 Excel 文件"):
        parse_question_set(b"not a zip file", filename="题集.xlsx")


def test_parse_rejects_fifty_megabytes_before_decoding(monkeypatch):
    monkeypatch.setattr(fmt, "_decode", lambda data: pytest.fail("a too-big file must not be decoded"))
    data = b"x" * (50 * 1024 * 1024)
    with pytest.raises(QuestionSetError, match="50.0 MB，超过了 5 MB"):
        parse_question_set(data, filename="big.csv")


def test_read_question_file_checks_size_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: instant to create
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("a too-big file must not be read"))
    with pytest.raises(QuestionSetError, match="超过了 5 MB"):
        read_question_file(big)


def test_size_limit_is_five_megabytes():
    assert MAX_SET_BYTES == 5 * 1024 * 1024


def test_questions_from_rows_names_table_rows():
    rows = [{"question": "好题", "expected": "应拒答"}, {"question": "", "expected": "应拒答", "section": None}]
    with pytest.raises(QuestionSetError, match="第 8 行：问题是空的"):
        questions_from_rows(rows, lines=[7, 8])


def test_content_hash_depends_on_content_only():
    assert parse(GOOD).content_hash == parse(GOOD.replace("\n", "\r\n")).content_hash
    assert parse(GOOD).content_hash != parse(GOOD.replace("几级", "多少级")).content_hash


def test_key_phrase_alternatives_any_wording_holds_the_fact():
    from core.sets.format import holds_key_phrase, key_phrases
    assert key_phrases(" 不再受理退费 | 超过 8 课时 |") == ("不再受理退费", "超过 8 课时")
    assert holds_key_phrase("问：上了10课时还能退吗？答：超过8课时后不再受理。", "不再受理退费|超过 8 课时")
    assert not holds_key_phrase("开课前申请，学费全额退还。", "不再受理退费|超过 8 课时")
    assert holds_key_phrase("任何文字", "")  # no key phrase asks for nothing
