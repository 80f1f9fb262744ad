"""The 资料缺口 page's admin actions, as button callbacks: owner and status of a topic, a re-check on demand.

Each runs the store call with the session re-checked inside its transaction (`authorize`) and leaves its
message for the page to draw next to the topic (`FLASH`).
"""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.gaps.fixes import verify_topic, version_note
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


def show_flash(topic_id: int) -> None:
    found = st.session_state.get(FLASH)
    if found and found[0] == topic_id:
        st.session_state.pop(FLASH)
        getattr(st, found[1])(found[2])
