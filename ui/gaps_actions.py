"""The 资料缺口 page's admin actions, as button callbacks: owner and status of a topic, a re-check on demand, and
tidying the grouping (merge a topic into another, move a question into a topic, make a new topic of chosen
questions).

Each runs the store call with the session re-checked inside its transaction (`authorize`) and leaves its
message for the page to draw next to the topic (`FLASH`).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.errors import XiaoEError
from core.gaps.board import BoardQuestion
from core.gaps.fixes import verify_topic, version_note
from core.stores.review_schema import MAX_TOPIC_CHARS
from core.stores.roles import require
from ui.auth import authorize, current_user
from ui.escape import md_escape
from ui.gaps_state import current_assistant, get_gap_store
from ui.state import get_review_store

FLASH = "_gaps_flash"  # (topic id, kind, message)


def save_topic(topic_id: int) -> None:
    """Owner and status from the topic's form widgets."""
    owner = st.session_state.get(f"gap_owner_{topic_id}", "")
    status = st.session_state.get(f"gap_status_{topic_id}")
    try:
        user = require(current_user(), "edit_corpus")
        gaps = get_gap_store()
        before = gaps.get(topic_id)
        if (owner or None) != before.owner:
            gaps.assign(topic_id, owner, actor=user.label, authorize=authorize())
        if status and status != before.status:
            gaps.set_status(topic_id, status, actor=user.label, authorize=authorize())
    except XiaoEError as error:
        st.session_state[FLASH] = (topic_id, "error", md_escape(str(error)))
        return
    st.session_state[FLASH] = (topic_id, "success", f"话题 #{topic_id} 已保存。")


def recheck_topic(topic_id: int) -> None:
    """Re-run the topic's questions through the gate on the corpus being served now."""
    try:
        user = require(current_user(), "edit_corpus")
        assistant = current_assistant()
        note = version_note("全部资料", None, assistant.fingerprint)
        result = verify_topic(assistant, get_review_store(), get_gap_store(), topic_id, note=note, actor=user.label,
                              authorize=authorize())
    except XiaoEError as error:
        st.session_state[FLASH] = (topic_id, "error", md_escape(str(error)))
        return
    closed = "，话题已关闭" if result.topic is not None and result.topic.closed else ""
    st.session_state[FLASH] = (topic_id, "success", f"话题 #{topic_id} 重新核对：{result.line}{closed}。")


def merge_topic(topic_id: int) -> None:
    """Merge the topic into the one chosen in its 「并入话题」 box."""
    into = st.session_state.get(f"gap_merge_into_{topic_id}")
    if into is None:
        st.session_state[FLASH] = (topic_id, "warning", "请先选择要并入哪个话题。")
        return
    try:
        user = require(current_user(), "edit_corpus")
        merged = get_gap_store().merge(topic_id, into, actor=user.label, authorize=authorize())
    except XiaoEError as error:
        st.session_state[FLASH] = (topic_id, "error", md_escape(str(error)))
        return
    st.session_state[FLASH] = (None, "success", f"话题 #{topic_id} 已并入 #{into}：这些问题以后重新分组也在一起，"
                                                f"明天相近的提问会归到这里（现在共 {len(merged.keys)} 个问题）。")


def move_question(place: str, topic_id: int | None = None) -> None:
    """Move the question chosen in the 「把问题…移到话题」 boxes of `place` (a topic's id, or 「noise」); a message
    about a topic is shown in it, the rest at the top of the page."""
    question = st.session_state.get(f"gap_move_q_{place}")
    into = st.session_state.get(f"gap_move_into_{place}")
    where = topic_id
    if not question or into is None:
        st.session_state[FLASH] = (where, "warning", "请先选择问题和要移到的话题。")
        return
    try:
        user = require(current_user(), "edit_corpus")
        get_gap_store().move(question, into, actor=user.label, authorize=authorize())
    except XiaoEError as error:
        st.session_state[FLASH] = (where, "error", md_escape(str(error)))
        return
    st.session_state[FLASH] = (None, "success", md_escape(f"「{question}」已移到话题 #{into}，以后重新分组也留在这里。"))


def create_topic() -> None:
    """A new topic named in 「新话题名称」 holding the questions ticked in 「放进新话题的问题」."""
    name = st.session_state.get("gap_new_name", "")
    questions = st.session_state.get("gap_new_questions") or []
    try:
        user = require(current_user(), "edit_corpus")
        made = get_gap_store().create(name, questions, actor=user.label, authorize=authorize())
    except XiaoEError as error:
        st.session_state[FLASH] = (None, "error", md_escape(str(error)))
        return
    st.session_state.pop("gap_new_name", None)
    st.session_state.pop("gap_new_questions", None)
    st.session_state[FLASH] = (None, "success", md_escape(f"已新建话题 #{made.id}「{made.label}」，放进了 {len(made.keys)} 个问题；"
                                                          "以后重新分组也保持，相近的新提问会归到这里。"))


def create_form(options: dict[str, str]) -> None:
    """「新建话题」: a name, the questions to put in (from any topic or from those that fit none), the button."""
    with st.form("gap_new_form", border=False):
        cols = st.columns([1.2, 3, 1])
        cols[0].text_input("新话题名称", key="gap_new_name", max_chars=MAX_TOPIC_CHARS, placeholder="例如：付款方式")
        cols[1].multiselect("放进新话题的问题", list(options), format_func=options.get, key="gap_new_questions",
                            placeholder="选一个或几个问题（可以来自别的话题，也可以是不属于任何话题的）")
        cols[2].form_submit_button("新建话题", key="gap_new", on_click=create_topic)


MOVE_WORDS = {"topic": ("移到话题", "移过去"), "noise": ("归入话题", "归进去")}  # (the box, the button)


def move_form(place: str, questions: Sequence[BoardQuestion], topics: dict[int, str], topic_id: int | None = None) -> None:
    """「把问题…」「移到话题…」 and the button, for a topic's questions (`topic_id`) or those in noise (`place`: the
    topic's id or 「noise」)."""
    kind = "noise" if topic_id is None else "topic"
    with st.form(f"gap_move_form_{place}", border=False):
        cols = st.columns([1.6, 1.6, 1])
        cols[0].selectbox("问题", [q.question for q in questions], index=None, placeholder="把问题…",
                          key=f"gap_move_q_{place}", label_visibility="collapsed")
        cols[1].selectbox(MOVE_WORDS[kind][0], list(topics), format_func=topics.get, index=None,
                          placeholder=MOVE_WORDS[kind][0] + "…", key=f"gap_move_into_{place}", label_visibility="collapsed")
        cols[2].form_submit_button(MOVE_WORDS[kind][1], key=f"gap_move_{place}", on_click=move_question,
                                   args=(place, topic_id))


def show_flash(topic_id: int | None) -> None:
    """The message left for this topic (None: for the top of the page)."""
    found = st.session_state.get(FLASH)
    if found and found[0] == topic_id:
        st.session_state.pop(FLASH)
        getattr(st, found[1])(found[2])
