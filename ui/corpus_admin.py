"""The admin panel under 资料原文: upload or edit a Markdown file, see its versions and diffs, restore one.

Every save goes through core.stores.corpus_admin (role check, name and content checks, versions,
audit, and what follows: approved answers citing what changed go back to 待复核), then the index is rebuilt. Opened by
「去补充资料」 (ui/gap_fix.py), the panel starts with that section's editor (ui/gap_editor.py).
Diffs and file text are shown with st.code / st.text_area: plain text, never HTML.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from core.corpus.diff import side_by_side
from core.corpus.files import MAX_NAME_CHARS
from core.errors import XiaoEError
from core.stores.contradictions import ContradictionStore
from core.stores.corpus_admin import NEW_FILE, CorpusAdmin, SaveResult, diff_text
from core.stores.db import open_database
from core.stores.roles import User
from ui import gap_editor, gap_fix
from ui.auth import authorize, current_user
from ui.contradiction_view import show_before_save, show_open
from ui.diff_view import show_diff
from ui.escape import md_escape
from ui.state import get_sensitive_store, get_settings, rebuild_index

FLASH = "_corpus_admin_flash"
RESTORE = "_corpus_restore"  # (source, version id) whose restore waits for 「确认恢复」


def render_admin_panel() -> None:
    """Shown to admins only; renders nothing for anyone else."""
    user = current_user()
    if user is None or not user.can("edit_corpus"):
        return
    st.divider()
    st.subheader("资料管理（仅管理员）")
    st.caption("上传或修改后会自动保留旧版本、重建索引；所引片段的内容被改动的已通过复核条目会回到「待复核」。")
    if FLASH in st.session_state:
        st.success(md_escape(st.session_state.pop(FLASH)))
    gap_editor.show_done_link()
    try:
        settings = get_settings()
        admin = CorpusAdmin(open_database(settings.db_url), settings.corpus_dir,
                            chunking=(settings.chunk_size, settings.chunk_overlap))
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    show_open(ContradictionStore(admin.db), user)
    if (request := gap_fix.current()) is not None:  # 「去补充资料」 from the gap board or a queue item
        gap_editor.show_fix_editor(admin, user, request, run=_run)
    # Keyed, so a save's rerun (and the restore confirmation) comes back to the tab the admin was using.
    upload_tab, edit_tab, history_tab = st.tabs(["上传文件", "在线编辑", "历史版本"], key="corpus_tab",
                                                on_change="rerun")
    with upload_tab:
        _upload(admin, user)
    with edit_tab:
        _edit(admin, user)
    with history_tab:
        _history(admin, user)


def _upload(admin: CorpusAdmin, user: User) -> None:
    upload = st.file_uploader("选择 Markdown 文件（.md，UTF-8 编码，不超过 2 MB）", type=["md"], key="corpus_upload",
                              max_upload_size=2)
    name = st.text_input("保存为（文件名）", key="corpus_upload_name", max_chars=MAX_NAME_CHARS,
                         placeholder=upload.name if upload else "留空则用原文件名，例如 常见问题.md")
    overwrite = st.checkbox("覆盖同名文件（旧版本会保留，可随时恢复）", key="corpus_overwrite")
    if upload is not None:
        _sensitive_notice(upload.getvalue().decode("utf-8-sig", errors="replace"))
    target = name.strip() or (upload.name if upload else "")
    found = _still_stating(admin, target, upload.getvalue()) if upload is not None and overwrite else ()
    ready = show_before_save(found, key=f"corpus_upload_ack_{target}")
    if st.button("上传并重建索引", key="corpus_upload_save", type="primary", disabled=upload is None or not ready):
        _save(admin, user, name.strip() or upload.name, upload.getvalue(),
              expected=None if overwrite else NEW_FILE, action="upload")


def _edit(admin: CorpusAdmin, user: User) -> None:
    files = admin.files()
    if not files:
        st.info("资料文件夹里还没有 .md 文件，请先上传。")
        return
    source = st.selectbox("选择要修改的文件", files, key="corpus_edit_file")
    try:
        text, sha = admin.read(source)
    except (OSError, XiaoEError) as error:
        st.error(md_escape(str(error) if isinstance(error, XiaoEError) else f"「{source}」读不出来（{error}）。"))
        return
    # Keyed on the file's sha256: after anyone's save the box starts again from the new text.
    edited = st.text_area("内容（Markdown）", value=text, height=420, key=f"corpus_text_{sha[:16]}")
    changes = diff_text(text, edited, old_label=f"{source}（当前）", new_label=f"{source}（修改后）")
    if changes:
        with st.expander("查看改动（左旧右新，删除标红、新增标绿）"):
            show_diff(side_by_side(text, edited), key="corpus_edit_diff")
    if changes:
        _sensitive_notice(edited)
    found = _still_stating(admin, source, edited) if changes else ()
    ready = show_before_save(found, key=f"corpus_edit_ack_{sha[:16]}")
    if st.button("保存并重建索引", key="corpus_edit_save", type="primary", disabled=not changes or not ready):
        _save(admin, user, source, edited, expected=sha, action="edit")


def _sensitive_notice(text: str) -> None:
    """The 敏感词 a document about to be saved holds, listed before the save (the save itself is not stopped)."""
    try:
        hits = get_sensitive_store().matcher().find(text)
    except XiaoEError as error:
        st.warning(md_escape(f"敏感词表读不出来，这次没有检查敏感词：{error}"))
        return
    if hits:
        found = "、".join(dict.fromkeys(f"「{h.word}」" + (f"（{h.category}）" if h.category else "") for h in hits))
        st.warning(md_escape(f"这份资料里有敏感词表里的词：{found}。保存前请确认确实要这样写（见「敏感词」页）。"))


def _history(admin: CorpusAdmin, user: User) -> None:
    sources = sorted(set(admin.files()) | set(admin.versioned_sources()))
    if not sources:
        st.info("还没有任何资料文件。")
        return
    source = st.selectbox("文件", sources, key="corpus_history_file")
    versions = admin.history(source)
    if not versions:
        st.info("这个文件还没有记录过版本；第一次保存时会先把现在的内容存为第 1 版。")
        return
    st.dataframe(pd.DataFrame([{"版本": v.version, "方式": v.action_label, "操作人": v.actor,
                                "时间": v.at.astimezone().strftime("%Y-%m-%d %H:%M:%S"), "字节": v.size,
                                "校验值": v.sha256[:16]} for v in versions]),
                 hide_index=True, width="stretch", key="corpus_versions_table")
    if len(versions) < 2:
        return
    by_number = {v.version: v for v in versions}
    numbers = list(by_number)
    cols = st.columns(2)
    old = cols[0].selectbox("旧版本", numbers, index=1, key="corpus_diff_old", format_func=lambda n: f"第 {n} 版")
    new = cols[1].selectbox("新版本", numbers, index=0, key="corpus_diff_new", format_func=lambda n: f"第 {n} 版")
    st.caption(f"左边第 {old} 版，右边第 {new} 版：删除的行标红，新增的行标绿。")
    show_diff(side_by_side(by_number[old].content, by_number[new].content), key="corpus_versions_diff")
    newest = versions[0]
    if old == newest.version:
        return
    if st.button(f"恢复为第 {old:d} 版…", key="corpus_restore", help="先看这次恢复会改什么，确认后才保存。"):
        st.session_state[RESTORE] = (source, by_number[old].id)
    if st.session_state.get(RESTORE) == (source, by_number[old].id):
        _confirm_restore(admin, user, source, by_number[old], newest)


def _confirm_restore(admin: CorpusAdmin, user: User, source: str, target, newest) -> None:
    """The diff the restore will apply (now → after), with 「确认恢复」 and 「取消」 next to it."""
    with st.container(border=True):
        st.warning(f"确认把「{md_escape(source)}」恢复为第 {target.version} 版吗？会另存为第 {newest.version + 1} 版，"
                   "中间的版本都会保留。下面是恢复会带来的改动（左：现在的第 "
                   f"{newest.version} 版，右：恢复后）。")
        show_diff(side_by_side(newest.content, target.content), key="corpus_restore_diff")
        show_before_save(_still_stating(admin, source, target.content), key=f"corpus_restore_ack_{target.id}")
        cols = st.columns([1, 1, 4])
        if cols[0].button("确认恢复", key="corpus_restore_confirm", type="primary"):
            st.session_state.pop(RESTORE, None)
            _run(admin, user, lambda: admin.restore(user, target.id, authorize=authorize()))
        if cols[1].button("取消", key="corpus_restore_cancel"):
            st.session_state.pop(RESTORE, None)
            st.rerun()


def _still_stating(admin: CorpusAdmin, source: str, content: bytes | str):
    """What the change would leave stating the old rule; nothing when it cannot tell (the save reports why)."""
    if not source:
        return ()
    try:
        return admin.still_stating(source, content)
    except XiaoEError:
        return ()


def _save(admin: CorpusAdmin, user: User, source: str, content: bytes | str, *, expected: str | None,
          action: str) -> None:
    _run(admin, user, lambda: admin.save(user, source, content, expected_sha256=expected, action=action,
                                          authorize=authorize()))


def _run(admin: CorpusAdmin, user: User, save, after: Callable[[SaveResult], str] | None = None) -> None:
    """Save (the save itself sends approved items and answers citing what changed back to 待复核 and resumes
    those whose content came back: core.stores.stale), rebuild the index, then `after` (the gap editor's
    re-check through the gate), whose message joins the flash."""
    try:
        result: SaveResult = save()
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    if not result.changed:
        st.info("内容和现在的文件完全一样，没有保存新版本。")
        return
    message = f"已保存「{result.source}」第 {result.version} 版（{'新文件' if result.created else '旧版本已保留'}），索引已重建。"
    if result.after_error:
        message += f" 但处理相关的复核条目和已审答案时出错：{result.after_error}"
    elif result.after is not None and (followed := result.after.describe()):
        message += " " + followed
    problem = rebuild_index()
    if problem:
        message = message.replace("索引已重建", "索引暂未重建") + f" 重建索引时出错：{problem}"
    elif after is not None:
        try:
            message += after(result)
        except XiaoEError as error:
            message += f" 重新核对问题时出错：{error}"
    st.session_state[FLASH] = message
    st.rerun()
