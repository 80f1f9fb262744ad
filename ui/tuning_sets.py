"""The question-set section of the tuning page: edit in a table, upload CSV/XLSX, download, versions.

Saving (from the table or an upload) validates the whole set first; a bad set shows every bad
row and nothing is stored. A successful save asks the page to select the new version by
putting it in `st.session_state[PENDING]` and rerunning (a widget's value cannot be changed
after it has been drawn in the same run).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pandas as pd
import streamlit as st

from core.errors import XiaoEError
from core.sets.format import PROVENANCE_COLUMNS
from core.stores.defaults import DefaultsStore  # noqa: F401 - re-exported for the tuning page
from core.stores.question_sets import (  # noqa: F401 - QuestionSet and corpus_catalog re-exported for the page
    COLUMNS,
    MAX_SET_BYTES,
    REFUSE,
    QuestionSet,
    QuestionSetStore,
    StoredSet,
    check_size,
    corpus_catalog,
    parse_question_set,
    questions_from_rows,
)
from ui.auth import authorize, current_user
from ui.escape import md_escape

PENDING = "tune_pending_selection"
FLASH = "tune_flash"
LABELS = {"question": "问题", "expected": "预期（资料文件或应拒答）", "section": "小节（可空）",
          "key_phrase": "关键短语（可空；几种写法用 | 隔开）"}


def select_pending() -> None:
    """Apply a selection requested by the last save; call before the set/version widgets are drawn."""
    pending = st.session_state.pop(PENDING, None)
    if pending:
        st.session_state["tune_set"], st.session_state["tune_version"] = pending


def render_set_manager(store: QuestionSetStore, stored: StoredSet, *, files: Collection[str],
                       sections: Mapping[str, Collection[str]], actor: str) -> None:
    info = stored.info
    st.caption(f"正在查看「{md_escape(info.name)}」第 {info.version} 版：{info.question_count} 题，"
               f"由 {info.author} 保存。每次保存都会生成新版本，旧版本保留可查。")
    # Built only when clicked; the BOM makes Excel read the Chinese correctly.
    st.download_button("下载这一版（CSV）", stored.questions.to_download,
                       file_name=f"{info.name}-第{info.version}版.csv", mime="text/csv", key="set_download")

    st.markdown("##### 在表格里编辑")
    traced = any(q.item_id is not None for q in stored.questions.questions)  # added from the review queue
    frame = pd.DataFrame([q.to_row() for q in stored.questions.questions],
                         columns=list(COLUMNS + PROVENANCE_COLUMNS if traced else COLUMNS))
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="行")
    edited = st.data_editor(
        # Keyed on the content so edits made to one version never carry over to another.
        frame, key=f"set_editor_{stored.questions.content_hash[:12]}", num_rows="dynamic", width="stretch",
        column_config={
            "question": st.column_config.TextColumn(LABELS["question"], required=True, width="large"),
            "expected": st.column_config.SelectboxColumn(LABELS["expected"], options=[REFUSE, *sorted(files)],
                                                         required=True),
            "section": st.column_config.TextColumn(LABELS["section"]),
            "key_phrase": st.column_config.TextColumn(LABELS["key_phrase"]),
            "item_id": st.column_config.TextColumn("复核条目", disabled=True),
            "reviewer": st.column_config.TextColumn("复核人", disabled=True),
            "reviewed_at": st.column_config.TextColumn("复核时间", disabled=True),
        })
    user = current_user()
    if user is None or not user.can("edit_question_sets"):  # core refuses it too (QuestionSetStore.save)
        st.caption("标注题集用来校准闸门，只有管理员可以保存新版本；你可以在上面的表格里试改、下载后交给管理员。")
        _show_versions(store, info.name)
        return
    left, right = st.columns([2, 3])
    target = left.text_input("保存到题集", value=info.name, key="set_target", max_chars=100,
                             help="写一个新名字就另存为新题集")
    note = right.text_input("这次改了什么（可选）", key="set_note", max_chars=500)
    if st.button("保存为新版本", key="save_set"):
        # Error messages name rows by the number shown in the table's 「行」 column.
        lines = [int(i) for i in edited.index] if pd.api.types.is_integer_dtype(edited.index) else None
        _save(store, lambda: questions_from_rows(edited.to_dict("records"), lines=lines, known_files=files,
                                                 known_sections=sections),
              target, actor, note, base_version=info.version if target.strip() == info.name else None)

    st.markdown("##### 上传题集")
    st.caption(f"CSV（UTF-8 或 GBK）或 Excel（.xlsx），不超过 {MAX_SET_BYTES // 1024 // 1024} MB。"
               "第 1 行是表头：question,expected,section,key_phrase（也可以写 问题,预期,小节,关键短语）；"
               f"资料里没有答案的题，expected 写「{REFUSE}」；同一事实在资料里有几种写法时，"
               "关键短语可写成「不再受理退费|不再受理」，命中片段含其中任一种即算找到。")
    upload = st.file_uploader("选择文件", type=["csv", "xlsx"], key="set_upload",
                              max_upload_size=MAX_SET_BYTES // 1024 // 1024)
    if upload is not None:
        upload_name = st.text_input("上传后保存为题集", value=info.name, key="upload_target", max_chars=100)
        if st.button("保存上传的题集", key="save_upload"):
            def parsed():
                check_size(upload.size)  # before reading: a too-big file is never loaded into memory
                return parse_question_set(upload.getvalue(), filename=upload.name, known_files=files,
                                          known_sections=sections)
            _save(store, parsed, upload_name, actor, f"上传 {upload.name}", base_version=None)

    _show_versions(store, info.name)


def _show_versions(store: QuestionSetStore, name: str) -> None:
    st.markdown("##### 版本记录")
    versions = store.versions(name)
    st.dataframe(pd.DataFrame([{"版本": v.version, "操作人": v.author, "题数": v.question_count,
                                "保存时间": v.created_at.astimezone().strftime("%Y-%m-%d %H:%M") if v.created_at else "随程序发布",
                                "备注": v.note} for v in versions]),
                 hide_index=True, width="stretch", key="set_versions")


def _save(store: QuestionSetStore, build, name: str, actor: str, note: str, *, base_version: int | None) -> None:
    if not actor:
        st.error("请先在页面上方填写「操作人」，保存记录里要写明是谁改的。")
        return
    try:
        saved = store.save(name, build(), author=actor, note=note, base_version=base_version,
                           actor=current_user(), authorize=authorize())
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    if saved.unchanged:
        st.info(f"内容和「{md_escape(saved.name)}」第 {saved.version} 版完全相同，没有保存新版本。")
        return
    st.session_state[PENDING] = (saved.name, saved.version)
    st.session_state[FLASH] = f"已保存「{saved.name}」第 {saved.version} 版（{saved.question_count} 题）。"
    st.rerun()
