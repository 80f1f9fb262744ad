"""对话: students' conversations through the student service, by student and time — search, read a thread as it
happened (what the student wrote, what they were shown, the draft held back, what a consultant released, their
feedback), export; write to the student in a conversation taken over (转人工) and hand it back to 小E."""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

from core.clock import utcnow
from core.errors import XiaoEError
from ui.answer_view import md_escape
from ui.auth import authorize, guard_page
from ui.conversation_view import conversations_frame, exchange_lines, export_bytes
from ui.review_view import review_url
from ui.state import get_conversation_store

SINCE = {"全部": None, "今天": 1, "最近 7 天": 7, "最近 30 天": 30}

user = guard_page("review")
st.title("对话")
st.caption("学校 App 通过学员服务发来的每条消息：学员原话、小E 的判断、当时给学员的回答、等顾问放行的草稿、"
           "顾问发出的回答和学员的反馈。学员原话一律按文字显示。")
try:
    store = get_conversation_store()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()
cols = st.columns([3, 2, 2])
search = cols[0].text_input("搜索学员编号、会话编号或消息文字", key="conv_search")
since_label = cols[1].selectbox("时间", list(SINCE), key="conv_since")
only = cols[2].selectbox("会话", ["全部", "已转人工", "有待发送"], key="conv_only")
since = utcnow() - timedelta(days=SINCE[since_label]) if SINCE[since_label] else None
found = store.list(search=search, since=since, handed_off=True if only == "已转人工" else None)
if only == "有待发送":
    found = tuple(c for c in found if c.waiting)
linked = st.query_params.get("conversation", "")
if linked and not any(c.id == linked for c in found):
    found = tuple(c for c in store.list(search=linked, limit=5) if c.id == linked) + found
if not found:
    st.info("还没有对话。用 xiaoe keys add 新建一个密钥给学校 App，学员发来的消息就会出现在这里（见 docs/service.md）。")
    st.stop()
downloads = st.columns(2)
downloads[0].download_button("下载 CSV（当前筛选的全部对话）", key="conv_csv", on_click="ignore", mime="text/csv",
                             file_name="对话.csv",
                             data=lambda: export_bytes(store.iter_exchanges(search=search, since=since), "csv"))
downloads[1].download_button("下载 Excel（.xlsx）", key="conv_xlsx", on_click="ignore", file_name="对话.xlsx",
                             mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                             data=lambda: export_bytes(store.iter_exchanges(search=search, since=since), "xlsx"))
picked = st.dataframe(conversations_frame(found), hide_index=True, width="stretch", on_select="rerun",
                      selection_mode="single-row", key="conv_table")
rows = picked.selection.rows
chosen = found[rows[0]] if rows else next((c for c in found if c.id == linked), None)
if chosen is None:
    st.caption("在表格里选一个会话查看全部消息。")
    st.stop()
st.subheader(f"学员 {chosen.user} · {chosen.key_name}" + (" · 已转人工" if chosen.handed_off else ""))
st.caption(f"会话 {chosen.id}")
for exchange in store.thread(chosen.id):
    with st.container(border=True):
        st.text("\n".join(exchange_lines(exchange)))
        if exchange.item_id is not None:
            st.markdown(f"[复核条目 #{exchange.item_id}]({review_url(exchange.item_id)})")
if chosen.handed_off:
    with st.form(f"post_{chosen.id}", clear_on_submit=True):
        text = st.text_area("给学员发消息（会话已转人工，小E 不作答）", key=f"post_text_{chosen.id}", max_chars=20_000)
        if st.form_submit_button("发送", type="primary", key=f"post_button_{chosen.id}"):
            try:
                store.post(user, chosen.id, text, authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
            else:
                st.success("已发送：学校 App 下次取消息（或收到回调）时会显示给学员。")
                st.rerun()
    if st.button("交还小E（之后的消息由小E 回答）", key=f"hand_back_{chosen.id}"):
        try:
            store.hand_back(user, chosen.id, authorize=authorize())
        except XiaoEError as error:
            st.error(md_escape(str(error)))
        else:
            st.rerun()
