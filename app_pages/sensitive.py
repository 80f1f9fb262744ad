"""敏感词 (admins): the word list a student's message is checked against before 小E answers, with categories and an
education whitelist; add, remove, import and export CSV (every change in the audit log). A message holding a listed
word gets the configured reply (XIAOE_SENSITIVE_REPLY) without retrieval or a model, and goes to lane 敏感内容."""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.stores.sensitive_words import KIND_LABELS, starter_bytes
from ui.answer_view import md_escape
from ui.auth import guard_page
from ui.state import get_sensitive_store

user = guard_page("manage_sensitive")
st.title("敏感词")
st.caption("学员消息里出现词表里的词，小E 不检索、不调用模型，直接回复设置好的固定回复，这条消息进复核队列「敏感内容」。"
           "白名单里的短语（如「大麻烦」「禁毒教育」）里出现的词不算。保存资料时，资料里出现的敏感词会在保存前列出来。"
           "每次修改都记入操作记录。")
try:
    store = get_sensitive_store()
    entries = store.entries()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()

with st.form("sensitive_add", clear_on_submit=True):
    cols = st.columns([3, 2, 2, 1], vertical_alignment="bottom")
    word = cols[0].text_input("词或短语", key="sensitive_word")
    category = cols[1].text_input("分类（如 违法、辱骂、广告）", key="sensitive_category")
    kind = cols[2].selectbox("类型", list(KIND_LABELS), format_func=KIND_LABELS.get, key="sensitive_kind")
    if cols[3].form_submit_button("加入", type="primary", key="sensitive_add_button"):
        try:
            store.add(user, word, category, kind)
        except XiaoEError as error:
            st.error(md_escape(str(error)))
        else:
            st.success(md_escape(f"已加入「{word.strip()}」。"))
            st.rerun()

if entries:
    st.table([{"词": e.word, "分类": e.category, "类型": KIND_LABELS.get(e.kind, e.kind), "加入人": e.created_by,
               "加入时间": e.created_at.astimezone().strftime("%Y-%m-%d %H:%M")} for e in entries])
    cols = st.columns([3, 1], vertical_alignment="bottom")
    gone = cols[0].selectbox("删除一个词", [e.word for e in entries], key="sensitive_remove_word")
    if cols[1].button("删除", key="sensitive_remove"):
        try:
            store.remove(user, gone)
        except XiaoEError as error:
            st.error(md_escape(str(error)))
        else:
            st.rerun()
else:
    st.info("词表是空的：学员消息不做敏感词检查。可以一个个加，也可以导入 CSV 或随附的初始词表。")

st.subheader("导入与导出")
st.caption("CSV 三列：word（词）、category（分类）、kind（word 敏感词 / whitelist 白名单，空着算敏感词）；第一行可以是表头。")
upload = st.file_uploader("导入 CSV", type=["csv"], key="sensitive_upload")
cols = st.columns(3)
if cols[0].button("导入上传的 CSV", key="sensitive_import", disabled=upload is None):
    data = upload.getvalue() if upload is not None else b""
    try:
        done = store.import_csv(user, data)
    except XiaoEError as error:
        st.error(md_escape(str(error)))
    else:
        st.success(f"新加 {done.added} 个，修改 {done.updated} 个。")
        for problem in done.skipped:
            st.warning(md_escape(problem))
if cols[1].button("导入随附的初始词表", key="sensitive_starter"):
    try:
        done = store.import_csv(user, starter_bytes())
    except XiaoEError as error:
        st.error(md_escape(str(error)))
    else:
        st.success(f"新加 {done.added} 个，修改 {done.updated} 个。")
cols[2].download_button("导出 CSV", data=lambda: store.export_csv(), file_name="敏感词.csv", mime="text/csv",
                        key="sensitive_export", on_click="ignore")
