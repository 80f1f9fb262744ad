"""Loader: heading split, Chinese chunking through the library, offsets, and clear errors."""

from __future__ import annotations

import pytest

from core.corpus.loader import load_corpus, load_documents, make_splitter, split_sections, split_text
from core.errors import CorpusError

SAMPLE = "# 标题\n\n导语一句。\n\n## 一、第一节\n\n第一节正文。\n\n## 二、第二节\n第二节正文，有逗号。\n"


def test_load_documents_finds_all_md_files(corpus_chunks):
    assert {c.metadata["source"] for c in corpus_chunks} == {
        "01-口语课分级说明.md", "02-退费与转班制度.md", "03-助教小E使用手册.md"}


def test_load_documents_every_chunk_carries_metadata(corpus_chunks):
    for chunk in corpus_chunks:
        assert set(chunk.metadata) >= {"source", "heading", "chunk", "start", "end"}
        assert chunk.metadata["heading"]


def test_load_documents_offsets_slice_back_to_the_text(corpus_chunks):
    from tests.paths import CORPUS
    texts = {p.name: p.read_text(encoding="utf-8") for p in CORPUS.glob("*.md")}
    for chunk in corpus_chunks:
        meta = chunk.metadata
        assert texts[meta["source"]][meta["start"]:meta["end"]] == chunk.page_content


def test_load_documents_chunk_numbers_count_up_per_file(corpus_chunks):
    by_file: dict[str, list[int]] = {}
    for chunk in corpus_chunks:
        by_file.setdefault(chunk.metadata["source"], []).append(chunk.metadata["chunk"])
    for numbers in by_file.values():
        assert numbers == list(range(len(numbers)))


def test_split_sections_separates_headings():
    sections = split_sections(SAMPLE)
    assert [s.heading for s in sections] == ["标题", "一、第一节", "二、第二节"]
    assert SAMPLE[sections[1].start:sections[1].end] == "第一节正文。"


def test_split_sections_heading_line_is_not_in_body():
    for section in split_sections(SAMPLE):
        assert "#" not in SAMPLE[section.start:section.end]


def test_split_sections_ignores_headings_inside_code_fences():
    text = "## 真标题\n```\n# 不是标题\n```\n"
    assert [s.heading for s in split_sections(text)] == ["真标题"]


def test_split_text_loses_no_visible_text():
    body = "。".join(f"第{i}句话讲一件事，内容不算太短" for i in range(40)) + "。"
    text = "## 节\n" + body
    chunks = split_text("x.md", text, make_splitter(60, 15))
    joined = "".join(c.page_content for c in chunks)
    it = iter(joined)
    assert all(ch in it for ch in body.replace("\n", ""))  # body is a subsequence of the pieces
    assert all(c.page_content in text for c in chunks)
    assert all(len(c.page_content) <= 60 for c in chunks)


def test_split_text_overlap_carries_tail_into_next_chunk():
    body = "，".join(f"片段{i:02d}" for i in range(60)) + "。"
    chunks = split_text("x.md", "## 节\n" + body, make_splitter(50, 20))
    assert len(chunks) > 2
    assert any(a.page_content[-6:] in b.page_content for a, b in zip(chunks, chunks[1:]))


def test_split_text_prefers_chinese_sentence_ends():
    body = "第一句很完整。" * 30
    chunks = split_text("x.md", "## 节\n" + body, make_splitter(40, 0))
    assert all(c.page_content.endswith("。") for c in chunks)


def test_split_text_bigger_chunk_size_gives_fewer_pieces():
    text = "## 节\n" + "这是用来切分的一句话，长度适中。" * 50
    assert len(split_text("x.md", text, make_splitter(300, 40))) < len(split_text("x.md", text, make_splitter(80, 20)))


@pytest.mark.parametrize("size,overlap", [(160, 160), (100, 200), (0, 0), (50, -1)])
def test_make_splitter_rejects_bad_sizes(size, overlap):
    with pytest.raises(CorpusError) as error:
        make_splitter(size, overlap)
    assert "chunk_" in str(error.value)


def test_load_corpus_missing_folder_names_it(tmp_path):
    with pytest.raises(CorpusError, match="不存在"):
        load_documents(tmp_path / "nope")


def test_load_corpus_folder_without_md_files(tmp_path):
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"\.md"):
        load_documents(tmp_path)


def test_load_corpus_non_utf8_file_is_named(tmp_path):
    (tmp_path / "坏文件.md").write_bytes("## 标题\n正文".encode("gbk"))
    with pytest.raises(CorpusError, match="坏文件.md.*UTF-8"):
        load_documents(tmp_path)


def test_load_corpus_empty_file_is_skipped_and_reported(tmp_path):
    (tmp_path / "a.md").write_text("## 节\n正文内容。", encoding="utf-8")
    (tmp_path / "b.md").write_text("  \n", encoding="utf-8")
    report = load_corpus(tmp_path)
    assert report.files == ("a.md",)
    assert len(report.skipped) == 1 and "b.md" in report.skipped[0]


def test_load_corpus_skips_hidden_files(tmp_path):
    (tmp_path / "a.md").write_text("## 节\n正文。", encoding="utf-8")
    (tmp_path / ".secret.md").write_text("## 节\n隐藏。", encoding="utf-8")
    assert load_corpus(tmp_path).files == ("a.md",)


def test_short_sections_are_cut_exactly_as_the_splitter_cuts_them(monkeypatch):
    """A section shorter than the chunk size skips the splitter; the chunks must not change."""
    import core.corpus.loader as loader

    bodies = ["短。", "甲" * 39, "乙。" * 20, "丙，丁。\n\n戊" * 8, "  前后有空格  ", "己" * 41, "庚\n" * 30]
    text = "".join(f"## 第{n}节\n\n{body}\n\n" for n, body in enumerate(bodies))
    for size, overlap in ((40, 10), (41, 0), (160, 40)):
        fast = split_text("x.md", text, make_splitter(size, overlap))
        monkeypatch.setattr(loader, "_whole_below", lambda splitter: 0)  # every section through the splitter
        slow = split_text("x.md", text, make_splitter(size, overlap))
        monkeypatch.undo()
        assert [(c.page_content, c.metadata) for c in fast] == [(c.page_content, c.metadata) for c in slow]
