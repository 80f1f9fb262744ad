"""The 资料原文 page through AppTest, from the router, on a corpus copy under tmp_path."""

from __future__ import annotations

import re

from core.corpus.loader import load_corpus
from ui.source_view import PAGE_CHARS

PAGE = "app_pages/sources.py"
LEVELS_FILE = "01-口语课分级说明.md"


def plain(text: str) -> str:
    """Undo the page's Markdown escaping (st.table renders cells as Markdown)."""
    return re.sub(r"\\(.)", r"\1", text)


def html_bodies(at) -> list[str]:
    return [str(e.proto.body) for e in at.get("html")]


def file_view(at) -> str:
    return next(b for b in html_bodies(at) if 'class="xiaoe-file"' in b)


def chunk_of(app_env, source: str, number: int):
    return next(c for c in load_corpus(app_env.corpus).chunks
                if c.metadata["source"] == source and c.metadata["chunk"] == number)


def test_sources_page_highlights_the_linked_chunk(open_app, app_env):
    at = open_app(page=PAGE, params={"source": LEVELS_FILE, "chunk": "1"})
    assert not at.exception
    assert at.selectbox(key="source_file").value == LEVELS_FILE
    assert at.number_input(key="source_chunk").value == 1
    marked = re.search(r'<mark id="xiaoe-hit"[^>]*>(.*?)</mark>', file_view(at), re.S).group(1)
    assert marked == chunk_of(app_env, LEVELS_FILE, 1).page_content
    assert any("scrollIntoView" in b for b in html_bodies(at))


def test_sources_page_shows_each_section_heading(open_app):
    at = open_app(page=PAGE, params={"source": LEVELS_FILE})
    view = file_view(at)
    assert "一、级别总数与定位</h4>" in view and "五、常见问题</h4>" in view
    assert "<mark" not in view  # no chunk asked for, nothing highlighted


def test_sources_page_shows_html_in_a_file_as_text(open_app, app_env):
    (app_env.corpus / "04-含代码.md").write_text(
        "# 含代码的资料\n\n<script>alert('x')</script>\n<b>粗体</b> <img src=x onerror=alert(1)>\n",
        encoding="utf-8")
    at = open_app(page=PAGE, params={"source": "04-含代码.md", "chunk": "0"})
    assert not at.exception
    view = file_view(at)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in view
    assert "<script" not in view and "<b>" not in view and "<img" not in view


def test_sources_page_lists_files_with_section_and_chunk_counts(open_app, app_env):
    at = open_app(page=PAGE)
    files = next(t.value for t in at.table if "片段数" in t.value.columns).rename(index=plain)
    chunks = load_corpus(app_env.corpus).chunks
    assert files.loc[LEVELS_FILE, "片段数"] == sum(c.metadata["source"] == LEVELS_FILE for c in chunks)
    assert files.loc[LEVELS_FILE, "小节数"] == 6  # the preamble + 一 to 五, counted by hand in the file
    assert int(at.metric[0].value.replace(",", "")) == len(chunks)


def test_sources_page_keeps_the_url_in_step_with_the_selection(open_app):
    at = open_app(page=PAGE, params={"source": LEVELS_FILE, "chunk": "1"})
    at.number_input(key="source_chunk").set_value(3).run()
    assert dict(at.query_params) == {"source": LEVELS_FILE, "chunk": "3"}
    at.selectbox(key="source_file").set_value("02-退费与转班制度.md").run()
    assert not at.exception
    assert at.number_input(key="source_chunk").value is None
    assert "chunk" not in at.query_params


def test_sources_page_unknown_file_is_named(open_app):
    at = open_app(page=PAGE, params={"source": "../../etc/passwd", "chunk": "0"})
    assert not at.exception
    assert any("../../etc/passwd" in w.value.replace("\\", "") and "不在当前索引里" in w.value for w in at.warning)
    assert "<mark" not in file_view(at)


def test_sources_page_bad_chunk_number_is_named(open_app):
    at = open_app(page=PAGE, params={"source": LEVELS_FILE, "chunk": "999"})
    assert not at.exception
    assert any("999" in w.value for w in at.warning)
    assert at.number_input(key="source_chunk").value is None


def test_sources_page_rebuild_button_rebuilds(open_app):
    at = open_app(page=PAGE)
    at.button(key="rebuild").click().run()
    assert not at.exception
    assert any("索引已重新建立" in s.value for s in at.success)


def test_sources_page_paginates_a_long_file_and_jumps_to_the_chunk(open_app, app_env):
    body = "".join(f"## 第 {n} 节\n\n" + f"这是第 {n} 节的说明文字，用来把文件撑长。" * 12 + "\n\n" for n in range(300))
    (app_env.corpus / "05-长文件.md").write_text(body, encoding="utf-8")
    last = max(c.metadata["chunk"] for c in load_corpus(app_env.corpus).chunks
               if c.metadata["source"] == "05-长文件.md")
    at = open_app(page=PAGE, params={"source": "05-长文件.md", "chunk": str(last)})
    assert not at.exception
    pages = at.number_input(key="source_page")
    assert pages.value == pages.max > 1  # the page holding the last chunk
    view = file_view(at)
    assert len(view) < 3 * PAGE_CHARS and 'id="xiaoe-hit"' in view
    assert "第 299 节</h4>" in view and "第 0 节</h4>" not in view


def test_sources_page_highlights_the_cited_sentence_inside_the_chunk(open_app, app_env):
    text = chunk_of(app_env, LEVELS_FILE, 1).page_content
    sentence = next(s for s in re.split(r"(?<=[。！？\n])", text) if len(s.strip()) > 8).strip()
    at = open_app(page=PAGE, params={"source": LEVELS_FILE, "chunk": "1", "cite": sentence})
    assert not at.exception
    focus = re.search(r'<mark style="background:#ffb347[^>]*>(.*?)</mark>', file_view(at), re.S).group(1)
    assert sentence in focus or focus.strip() in text  # the sentence, not the whole chunk
    assert len(focus) < len(text)


def test_sources_page_shows_the_school_facts_with_their_sentences(open_app):
    at = open_app(page=PAGE)
    assert not at.exception
    assert any(s.value == "学校事实" for s in at.subheader)
    cells = " ".join(plain(t.value.to_csv()) for t in at.table)
    assert "进阶级的学费" in cells and "进阶级（二级）：4200 元" in cells and "每级课时数" in cells


def test_sources_page_says_which_fact_sentence_is_missing(open_app, app_env):
    path = app_env.corpus / LEVELS_FILE
    path.write_text(path.read_text(encoding="utf-8").replace("每一级都是 16 课时，", ""), encoding="utf-8")
    at = open_app(page=PAGE)
    assert not at.exception
    assert any("资料里没有写明「每级课时数」" in w.value and "每一级都是 N 课时" in plain(w.value) for w in at.warning)
