"""The corpus editor opened by 「去补充资料」: one section of one file, with the questions and notes beside it.

Saving goes through the admin panel's own save (ui/corpus_admin.py: versions, 资料已更新, index rebuild); then
the questions are re-run through the one gate on the rebuilt index (core.gaps.fixes) and the result —
「x/y 题现在可答」 — is stored with the topic and written into every fixed item's history. `section_span` and
`splice` are plain functions (tested without Streamlit).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.corpus.loader import split_sections
from core.errors import XiaoEError
from core.gaps.fixes import FixResult, verify_item, verify_topic, version_note
from core.stores.corpus_admin import CorpusAdmin, SaveResult
from core.stores.roles import User
from ui import gap_fix
from ui.auth import authorize
from ui.escape import md_escape
from ui.gaps_state import current_assistant, get_gap_store
from ui.state import get_review_store

DONE = "_gap_fix_done"  # set after a fix was saved and re-checked: the panel offers the way back to the board
BOARD_PAGE = "app_pages/gaps.py"


def section_span(text: str, heading: str) -> tuple[int, int] | None:
    """(start, end) of the body of the first section titled `heading` ("" = the text before any heading)."""
    for section in split_sections(text):
        if section.heading == heading:
            return section.start, section.end
    return None


def splice(text: str, span: tuple[int, int], body: str) -> str:
    """`text` with the section body at `span` replaced by `body` (its outer blank lines kept as they were)."""
    start, end = span
    return text[:start] + body.strip() + text[end:]


def verify(request: gap_fix.FixRequest, user: User, result: SaveResult) -> FixResult:
    """Re-run the request's questions through the gate on the index just rebuilt and record the outcome."""
    assistant = current_assistant()
    note = version_note(result.source, result.version, assistant.fingerprint)
    if request.topic_id is not None:
        return verify_topic(assistant, get_review_store(), get_gap_store(), request.topic_id, note=note,
                            actor=user.label, authorize=authorize())
    return verify_item(assistant, get_review_store(), request.item_id, note=note, actor=user.label,
                       authorize=authorize())


def show_done_link() -> None:
    """After a fix was saved and re-checked: the link back to the board, where the result is shown."""
    if st.session_state.pop(DONE, False):
        st.page_link(BOARD_PAGE, label="回到资料缺口，查看每个问题现在的判断", icon=":material/arrow_back:")


def show_fix_editor(admin: CorpusAdmin, user: User, request: gap_fix.FixRequest,
                    run: Callable[..., None]) -> None:
    """The panel; `run(admin, user, save, after=...)` is the admin panel's save-rebuild-flash step."""
    with st.container(border=True):
        st.markdown(f"**去补充资料**：{md_escape(request.title)}")
        try:
            text, sha = admin.read(request.source)
        except (OSError, XiaoEError) as error:
            st.error(md_escape(str(error) if isinstance(error, XiaoEError) else f"「{request.source}」读不出来（{error}）。"))
            if st.button("关闭这个补充请求", key="gap_fix_drop"):
                gap_fix.clear()
                st.rerun()
            return
        span = section_span(text, request.heading)
        left, right = st.columns([3, 2], gap="medium")
        with right:
            st.markdown(f"**要回答的问题（{len(request.questions)} 个）**")
            st.table({"问题": list(request.questions)})
            if request.notes:
                st.markdown("**复核备注**")
                for note in request.notes:
                    st.text(note)
        with left:
            where = f"小节「{request.heading or '文首'}」" if span else "整个文件（没有找到那个小节）"
            st.caption(f"{md_escape(request.source)} · {md_escape(where)}：把缺的那句话写进去，保存后会重建索引，"
                       "并用闸门重新判断旁边这些问题。")
            body = text[span[0]:span[1]] if span else text
            edited = st.text_area("小节内容", value=body, height=260, key=f"gap_fix_text_{sha[:16]}",
                                  label_visibility="collapsed")
            new_text = splice(text, span, edited) if span else edited
            cols = st.columns([1.2, 1])
            if cols[0].button("保存并重新核对", key="gap_fix_save", type="primary", disabled=new_text == text):
                def after(result: SaveResult) -> str:
                    checked = verify(request, user, result)
                    gap_fix.clear()
                    st.session_state[DONE] = True
                    return f" 重新核对：{checked.line}。"

                run(admin, user, lambda: admin.save(user, request.source, new_text, expected_sha256=sha,
                                                    action="edit", authorize=authorize()), after=after)
            if cols[1].button("不改了", key="gap_fix_cancel"):
                gap_fix.clear()
                st.rerun()
