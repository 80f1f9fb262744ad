"""The student's side of a queue item that answers students (待发送, a refusal, a dislike, 转人工): who waits and for
how long, for a WeChat student the reply window, budget and what became of each message, the conversation so far,
and for a held answer the standard reply 驳回 sends and the 转人工 button."""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.stores.review import Filters, ReviewItem, ReviewStore
from ui.answer_view import md_escape
from ui.conversation_view import thread_text, waited
from ui.state import get_conversation_store, get_settings, get_wecom_outbox
from ui.wecom_view import delivery_lines, window_label

HELP = ("学员在等这条回答：「通过」把上面的草稿（或「修改后的回答」）发给学员，并成为已审答案；"
        "「驳回」改发下面选的标准回复（必须写备注）；「转人工」由你接手这个会话，小E 不再回答它。")


def show_students(store: ReviewStore, item: ReviewItem, view: Filters, sort: str, decide) -> None:
    """Draw the students waiting on `item` (nothing when none); `decide` is the page's decision callback."""
    try:
        exchanges = get_conversation_store().for_item(item.id)
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    if not exchanges:
        return
    waiting = [e for e in exchanges if e.waiting]
    with st.container(border=True):
        first = exchanges[0]
        who = "、".join(dict.fromkeys(e.user for e in exchanges))
        head = f"**学员** {md_escape(who)} · 密钥 {md_escape(first.key_name)}"
        if waiting:
            head += f" · {waited(waiting[0].created_at)}"
        st.markdown(head)
        show_wechat(first.conversation_id, exchanges)
        thread = get_conversation_store().thread(first.conversation_id)
        with st.expander(f"这个会话到现在（{len(thread)} 条）", expanded=item.origin == "held"):
            st.text(thread_text(thread))
        st.markdown(f"[在「对话」页打开]({conversation_url(first.conversation_id)})")
    if item.origin == "held" and item.status == "pending":
        st.caption(HELP)
        replies = get_settings().standard_replies
        st.selectbox("驳回时改发的标准回复", replies, key=f"reply_{item.id}")
        st.button("转人工（接手这个会话）", key=f"handoff_{item.id}", on_click=decide,
                  args=(store, item, "handoff", view, sort))
    elif item.origin in ("refusal", "feedback") and item.status == "pending":
        st.caption("学员已经收到了回答（或拒答）：写好「修改后的回答」再通过或驳回，修改后的回答会发给这些学员。")


def show_wechat(conversation_id: str, exchanges) -> None:
    """For a student who wrote through WeChat: the reply window and budget, and what became of each message."""
    try:
        outbox = get_wecom_outbox()
        window = outbox.window_of(conversation_id)
        if window is None:
            return
        sent = outbox.deliveries([e.message_id for e in exchanges])
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    st.markdown(f"**微信客服** · {md_escape(window_label(window))}")
    lines = [line for e in exchanges for line in delivery_lines(sent.get(e.message_id, ()))]
    if lines:
        st.text("\n".join(lines))


def conversation_url(conversation_id: str) -> str:
    return f"conversations?conversation={conversation_id}"
