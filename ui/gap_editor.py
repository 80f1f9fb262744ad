"""The corpus editor opened by 「去补充资料」: a file and a section of it, or a new section, with the questions beside it.

It opens at the section the board proposes (the nearest chunk, or the one a rejected answer cited); the admin may
pick any file and any of its sections, or 「＋ 新小节」 with a title of their own (core.gaps.sections). Saving goes
through the admin panel's own save (ui/corpus_admin.py: versions, 资料已更新, index rebuild); then the questions are
re-run through the one gate on the rebuilt index (core.gaps.fixes) and the result — 「x/y 题现在可答」, naming the
file that was saved — is stored with the topic and written into every fixed item's history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import streamlit as st

from core.errors import XiaoEError
from core.gaps.fixes import FixResult, verify_item, verify_topic, version_note
from core.gaps.sections import Placement, add_section, headings, section_span, splice  # noqa: F401 - re-exported
from core.stores.corpus_admin import CorpusAdmin, SaveResult
from core.stores.roles import User
from ui import gap_fix
from ui.auth import authorize
from ui.escape import md_escape
from ui.gaps_state import current_assistant, get_gap_store
from ui.state import get_review_store

DONE = "_gap_fix_done"  # set after a fix was saved and re-checked: the panel offers the way back to the board
BOARD_PAGE = "app_pages/gaps.py"
NEW = "\x00new"  # the 「小节」 option that starts a new section (no heading can hold NUL)


def verify(request: gap_fix.FixRequest, user: User, result: SaveResult) -> FixResult:
    """Re-run the request's questions through the gate on the index just rebuilt and record the outcome; the note
    names the file the admin chose and saved."""
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


def _section_label(heading: str) -> str:
    return "＋ 新小节…" if heading == NEW else (heading or "文首（第一个标题之前）")


def _file_box(admin: CorpusAdmin, request: gap_fix.FixRequest, tag: str, column) -> str:
    files = admin.files()
    if request.source not in files:
        files = [request.source, *files]
    return column.selectbox("补充到哪个文件", files, index=files.index(request.source), key=f"gap_fix_file_{tag}",
                            help="默认是和这些问题最接近的文件；可以换成任何一个资料文件。")


def _section_box(text: str, request: gap_fix.FixRequest, source: str, tag: str, columns) -> tuple[str, str]:
    """The 「小节」 box (and the new section's title): (heading or NEW, title)."""
    options = [*headings(text), NEW]
    default = request.heading if source == request.source and request.heading in options else options[0]
    heading = columns[0].selectbox("补充到哪个小节", options, index=options.index(default), format_func=_section_label,
                                   key=f"gap_fix_section_{tag}_{_digest(source)}",
                                   help="补在哪个小节；资料里还没有合适的小节时选「＋ 新小节」，写一个新标题。")
    title = ""
    if heading == NEW:
        title = columns[1].text_input("新小节标题", key=f"gap_fix_title_{tag}", max_chars=100, placeholder="例如：付款方式")
    return heading, title


def show_fix_editor(admin: CorpusAdmin, user: User, request: gap_fix.FixRequest,
                    run: Callable[..., None]) -> None:
    """The panel; `run(admin, user, save, after=...)` is the admin panel's save-rebuild-flash step."""
    tag = f"{request.topic_id}_{request.item_id}"
    with st.container(border=True):
        st.markdown(f"**去补充资料**：{md_escape(request.title)}")
        boxes = st.columns([1.4, 1.4, 1.2])
        source = _file_box(admin, request, tag, boxes[0])
        try:
            text, sha = admin.read(source)
        except (OSError, XiaoEError) as error:
            st.error(md_escape(str(error) if isinstance(error, XiaoEError) else f"「{source}」读不出来（{error}）。"))
            if st.button("关闭这个补充请求", key="gap_fix_drop"):
                gap_fix.clear()
                st.rerun()
            return
        heading, title = _section_box(text, request, source, tag, boxes[1:])
        left, right = st.columns([3, 2], gap="medium")
        with right:
            st.markdown(f"**要回答的问题（{len(request.questions)} 个）**")
            st.table({"问题": list(request.questions)})
            if request.notes:
                st.markdown("**复核备注**")
                for note in request.notes:
                    st.text(note)
        with left:
            if heading == NEW:
                new_text, ready = _new_section(text, title, sha)
                where = Placement(source, title, new=True)
            else:
                new_text, ready = _old_section(text, heading, sha)
                where = Placement(source, heading)
            cols = st.columns([1.2, 1])
            if cols[0].button("保存并重新核对", key="gap_fix_save", type="primary", disabled=not ready,
                              help=f"保存到{where.label}，重建索引，再用闸门重新判断旁边这些问题。"):
                def after(result: SaveResult) -> str:
                    checked = verify(request, user, result)
                    gap_fix.clear()
                    st.session_state[DONE] = True
                    return f" 重新核对：{checked.line}。"

                run(admin, user, lambda: admin.save(user, source, new_text(), expected_sha256=sha,
                                                    action="edit", authorize=authorize()), after=after)
            if cols[1].button("不改了", key="gap_fix_cancel"):
                gap_fix.clear()
                st.rerun()


def _old_section(text: str, heading: str, sha: str) -> tuple[Callable[[], str], bool]:
    """The chosen section's body in the editor; (the file's new text, whether it changed)."""
    span = section_span(text, heading)
    where = f"小节「{heading or '文首'}」" if span else "整个文件（没有找到那个小节）"
    st.caption(f"{md_escape(where)}：把缺的那句话写进去，保存后会重建索引，并用闸门重新判断旁边这些问题。")
    body = text[span[0]:span[1]] if span else text
    edited = st.text_area("小节内容", value=body, height=260, key=f"gap_fix_text_{sha[:16]}_{_digest(heading)}",
                          label_visibility="collapsed")
    new_text = splice(text, span, edited) if span else edited
    return (lambda: new_text), new_text != text


def _new_section(text: str, title: str, sha: str) -> tuple[Callable[[], str], bool]:
    """An empty editor for the new section, added at the end of the file (its title checked on save)."""
    st.caption("新小节会加在文件末尾，标题级别和文件里其他小节一样；写进缺的那句话，保存后会重建索引，并用闸门重新判断旁边这些问题。")
    body = st.text_area("新小节内容", value="", height=200, key=f"gap_fix_new_{sha[:16]}",
                        placeholder="例如：学费可以分期付款，分两期缴纳。")
    return (lambda: add_section(text, title, body)), bool(title.strip() and body.strip())


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
