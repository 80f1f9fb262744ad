"""资料原文: the indexed files, one file section by section with the linked chunk highlighted, index facts.

Reads `?source=<file>&chunk=<n>` (the Ask page's citation links) and keeps the URL in step with
the selection, so any view can be pasted into a new tab. Only one page of one file, one page of
its chunk list and one page of the file list are rendered at a time.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

from core.checks.cited_sentence import best_sentence
from core.checks.references import excerpt
from core.corpus.loader import split_sections
from core.errors import XiaoEError
from ui.answer_view import md_escape
from ui.auth import current_user, guard_page
from ui.corpus_admin import render_admin_panel
from ui.facts_view import render_school_facts
from ui.source_view import SCROLL_SCRIPT, Overview, page_html, page_of, paginate
from ui.state import corpus_text, get_index, get_index_status, get_overview, rebuild_index, refused_elsewhere

CHUNK_ROWS = 20
FILE_ROWS = 50
APPLIED = "_sources_params"  # the (source, chunk) query params already copied into the widgets
TARGET = "_sources_target"   # the (file, chunk) the pagers were last moved to


def apply_query_params(facts: Overview) -> None:
    """Copy new `source`/`chunk` query params into the widgets; say so when one is unusable."""
    source, chunk = st.query_params.get("source"), st.query_params.get("chunk")
    if source is None:
        return
    info = facts.file(source)
    if info is None:
        st.warning(f"链接里的资料文件「{md_escape(source)}」不在当前索引里，可能已改名或删除；下面显示的是其他文件。")
        return
    number = int(chunk) if chunk is not None and chunk.isdigit() else None
    if chunk is not None and (number is None or number >= info.chunks):
        st.warning(f"链接里的片段编号「{md_escape(str(chunk))}」无效：「{md_escape(source)}」只有 0–{info.chunks - 1} 号片段。")
        number = None
    if (source, chunk) != st.session_state.get(APPLIED):
        st.session_state[APPLIED] = (source, chunk)
        st.session_state["source_file"] = source
        st.session_state["source_chunk"] = number


def sync_url(file: str, chunk: int | None) -> None:
    wanted = {"source": file, **({"chunk": str(chunk)} if chunk is not None else {})}
    if {key: st.query_params.get(key) for key in ("source", "chunk") if key in st.query_params} != wanted:
        st.query_params.from_dict(wanted)
    st.session_state[APPLIED] = (wanted["source"], wanted.get("chunk"))


def pager(label: str, pages: int, key: str) -> int:
    """A 1-based page number input (only when there is more than one page); returns a 0-based index."""
    if pages <= 1:
        return 0
    if not 1 <= st.session_state.get(key, 1) <= pages:
        st.session_state[key] = 1
    number = st.number_input(f"{md_escape(label)}（共 {pages:d} 页）", min_value=1, max_value=pages, step=1, key=key)
    return int(number) - 1


def cited_focus(doc, span: tuple[int, int] | None) -> tuple[int, int] | None:
    """The cited sentence inside the chunk (from `?cite=`, the answer's sentence), in file offsets."""
    cite = st.query_params.get("cite")
    if doc is None or span is None or not cite:
        return None
    found = best_sentence(doc.page_content, cite)
    return (span[0] + found[0], span[0] + found[1]) if found else None


def render_file(file: str, chunk: int | None, bundle, facts: Overview) -> None:
    info = facts.file(file)
    doc = bundle.index.chunks[info.first + chunk] if chunk is not None else None
    try:
        text = corpus_text(file)
    except (OSError, XiaoEError) as error:
        st.error(md_escape(str(error) if isinstance(error, XiaoEError) else f"资料文件「{file}」读不出来（{error}），请检查文件。"))
        return
    span = (doc.metadata["start"], doc.metadata["end"]) if doc is not None else None
    focus = cited_focus(doc, span)
    if doc is not None:
        with st.container(border=True):
            st.markdown(f"**定位到的片段 #{chunk}** · 小节「{md_escape(doc.metadata.get('heading') or '文首')}」"
                        f" · 第 {span[0]}–{span[1]} 字（下方原文中以黄色标出"
                        + ("，回答引用的那一句标为橙色）" if focus else "）"))
            if text[span[0]:span[1]] != doc.page_content:
                st.warning("这个文件在建立索引之后改动过，标出的位置可能不准，请点「重新建立索引」。")
    pages = paginate(text, split_sections(text))
    if (file, chunk) != st.session_state.get(TARGET):  # a new target: jump the pagers to it
        st.session_state[TARGET] = (file, chunk)
        st.session_state["source_page"] = page_of(pages, span[0]) + 1 if span else 1
        st.session_state["chunk_page"] = chunk // CHUNK_ROWS + 1 if chunk is not None else 1
        scroll = span is not None
    else:
        scroll = False
    st.markdown(f"#### {md_escape(file)}")
    page = pager("原文页码", len(pages), "source_page")
    st.html(page_html(text, pages[page], span, focus))
    if scroll and any(s.start <= span[0] < s.end for s in pages[page]):
        st.html(SCROLL_SCRIPT, unsafe_allow_javascript=True)
    with st.expander(f"「{md_escape(file)}」的片段列表（{info.chunks:d} 个）"):
        at = pager("片段列表页码", -(-info.chunks // CHUNK_ROWS), "chunk_page") * CHUNK_ROWS
        rows = [bundle.index.chunks[info.first + i] for i in range(at, min(at + CHUNK_ROWS, info.chunks))]
        # st.dataframe shows text as data (no Markdown), and keeps the 片段编号 column visible.
        st.dataframe(pd.DataFrame([{"片段编号": d.metadata["chunk"], "小节": d.metadata.get("heading") or "（文首）",
                                    "位置": f"{d.metadata['start']}–{d.metadata['end']}",
                                    "预览": excerpt(d.page_content, 60)} for d in rows]),
                     hide_index=True, width="stretch", key="chunk_list")


def render_files(facts: Overview) -> None:
    st.subheader("资料文件一览")
    at = pager("文件列表页码", -(-len(facts.files) // FILE_ROWS), "files_page") * FILE_ROWS
    st.table(pd.DataFrame([{"文件": md_escape(f.name), "小节数": f.sections, "片段数": f.chunks}
                           for f in facts.files[at:at + FILE_ROWS]]).set_index("文件"))


def render_index(bundle, facts: Overview) -> None:
    st.subheader("索引信息")
    cols = st.columns(3)
    cols[0].metric("片段总数", f"{facts.chunks:,}")
    cols[1].metric("平均长度", f"{facts.average_chars:.0f} 字")
    cols[2].metric("建立时间", _local_time(bundle.index.built_at))
    st.caption(f"资料指纹：{md_escape(bundle.fingerprint)}")  # a long hash: a caption wraps, a metric would cut it
    status = get_index_status()
    for note in (*bundle.skipped, *(status.problems if status else ()), *refused_elsewhere()):
        st.warning(md_escape(note))
    st.caption("资料以数据库为准：任何一台审核台保存的修改，其他审核台会在几秒内自动同步并在后台重建索引。")
    if st.session_state.pop("_sources_rebuilt", False):
        st.success("索引已重新建立。")
    user = current_user()
    if user is None or not user.can("rebuild_index"):  # core refuses it too (IndexHolder.rebuild)
        return
    if st.button("重新建立索引", key="rebuild", help="资料文件改动后点这里；几秒内完成，期间提问照常使用旧索引。"):
        error = rebuild_index(actor=user)
        if error:
            st.error(error)
            return
        st.session_state["_sources_rebuilt"] = True
        st.rerun()


def _local_time(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%m-%d %H:%M:%S")
    except ValueError:
        return iso


guard_page()
st.title("资料原文")
bundle, index_error = get_index()
if index_error:
    st.error(md_escape(index_error))
    st.stop()
facts = get_overview(bundle)
if not facts.files:
    st.info("索引里还没有资料文件。请把 Markdown 资料放进资料文件夹，再点「重新建立索引」。")
    render_index(bundle, facts)
    st.stop()

apply_query_params(facts)
names = [f.name for f in facts.files]
if st.session_state.get("source_file") not in names:
    st.session_state["source_file"] = names[0]
left, right = st.columns([3, 1])
file = left.selectbox("资料文件", names, key="source_file",
                      on_change=lambda: st.session_state.update(source_chunk=None))
count = facts.file(file).chunks
if (st.session_state.get("source_chunk") or 0) >= count:
    st.session_state["source_chunk"] = None
chunk = right.number_input("片段编号", min_value=0, max_value=count - 1, value=None, step=1,
                           key="source_chunk", placeholder=f"0–{count - 1}，不填则不定位")
chunk = None if chunk is None else int(chunk)
sync_url(file, chunk)
render_file(file, chunk, bundle, facts)
render_files(facts)
render_index(bundle, facts)
render_school_facts(bundle.facts)
render_admin_panel()  # admins only: upload/edit files with versions (ui/corpus_admin.py)
