"""已审答案: every answer consultants approved for reuse — search, how often each was used, which are suspended
because a cited chunk changed, which were not used for 30 days; admins retire one (it is kept, never deleted)."""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from ui.approved_view import approved_frame
from ui.auth import authorize, guard_page
from ui.escape import md_escape
from ui.review_view import review_url
from ui.state import get_approved_store

STATUS_CHOICES = {"全部": None, "使用中": "active", "已暂停（资料已更新）": "suspended", "已停用": "retired"}
UNUSED_DAYS = 30

user = guard_page("review")
st.title("已审答案")
st.caption("顾问通过（或修改后通过）的回答会成为已审答案：之后有学员问同一个问题、情况也相同时，小E 直接用它回答，"
           "并标明是谁通过的。所引资料改过的会自动暂停，对应条目回到复核队列的「资料已更新」等待重新通过。")
try:
    store = get_approved_store()
    counts = store.counts()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()
st.markdown(" · ".join(f"{label} {counts.get(code, 0)}" for label, code in STATUS_CHOICES.items() if code))
cols = st.columns([3, 2, 2])
search = cols[0].text_input("搜索问题、问法或答案", key="approved_search")
status = cols[1].selectbox("状态", list(STATUS_CHOICES), key="approved_status")
unused = cols[2].checkbox(f"只看 {UNUSED_DAYS} 天没用过的", key="approved_unused")
answers = store.list(search=search, status=STATUS_CHOICES[status], unused_days=UNUSED_DAYS if unused else None)
if not answers:
    st.info("没有符合条件的已审答案。在复核队列里通过一条回答（或写好修改后的回答再通过），它就会出现在这里。")
    st.stop()
picked = st.dataframe(approved_frame(answers), hide_index=True, width="stretch", on_select="rerun",
                      selection_mode="single-row", key="approved_table")
rows = picked.selection.rows
if not rows:
    st.caption("在表格里选一条看全文、处理记录和所引片段。")
    st.stop()
answer = answers[rows[0]]
st.subheader(f"#{answer.id} · {answer.status_label} · 第 {answer.version} 版")
st.text(answer.question)
if answer.questions:
    st.markdown(f"**顾问认定的同一个问题的其他问法**（{len(answer.questions)} 条，复用时一并比对）")
    st.text("\n".join(answer.questions))
with st.container(border=True):
    st.text(answer.text)
st.markdown("**所引片段**：" + ("；".join(f"\\[{c.number}\\] {md_escape(c.source)} · {md_escape(c.heading or '文首')}"
                                       for c in answer.citations) or "无"))
if answer.override:
    st.warning("通过时越过了检查：" + md_escape(answer.override))
if answer.item_id is not None:
    st.markdown(f"[在复核队列打开 #{answer.item_id}]({review_url(answer.item_id)})")
st.table([{"版本": h["version"], "时间": f"{h['at']:%Y-%m-%d %H:%M}", "操作人": h["actor"], "操作": h["action_label"],
           "说明": h["note"]} for h in store.history(answer.id)])
if user.can("retire_answer") and answer.status != "retired":
    with st.form(f"retire_{answer.id}", border=False):
        note = st.text_input("停用原因", key=f"retire_note_{answer.id}")
        sure = st.checkbox("确认停用：以后不再用它回答学员（记录保留）", key=f"retire_sure_{answer.id}")
        if st.form_submit_button("停用这条已审答案", key=f"retire_button_{answer.id}"):
            if not sure:
                st.error("请先勾选「确认停用」。")
            else:
                try:
                    store.retire(user, answer.id, note=note, authorize=authorize())
                except XiaoEError as error:
                    st.error(md_escape(str(error)))
                else:
                    st.success(f"#{answer.id} 已停用。")
                    st.rerun()
