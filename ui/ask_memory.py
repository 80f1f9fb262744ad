"""What the Ask page remembers and compares: 「我最近问过」 from the consultant's stored questions (core.stores.asked,
so it survives a reload and follows them to another device), and 「对比两组参数」, one stored retrieval decided at
the sliders and at the saved default side by side by the gate alone (no retrieval again, no model call).
"""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.knobs import Knobs
from core.values import Gate, Outcome, Retrieval
from ui import answer_view as view
from ui.auth import authorize, current_user
from ui.escape import md_escape
from ui.state import get_asked_store

PICKED = "_ask_recent_pick"
SHOWN = 8


def asker() -> str:
    user = current_user()
    return user.username if user is not None else ""


def remember(outcome: Outcome, knobs: Knobs) -> None:
    """Store the question with the knobs and the decision; a store problem is a warning, the answer still shows."""
    refused = outcome.failure is not None or outcome.answer.refused
    reason = outcome.failure.message if outcome.failure is not None else outcome.answer.reason
    try:
        get_asked_store().record(asker(), outcome.question, knobs, refused=refused, reason=reason,
                                 authorize=authorize())
    except XiaoEError as error:
        st.warning(md_escape(f"没能记入「我最近问过」：{error}"))


def latest_question() -> str | None:
    """The newest question this consultant asked (to tell a reload of `/?q=` from a new link)."""
    try:
        found = get_asked_store().recent(asker(), limit=1)
    except XiaoEError:
        return None  # the list below says what is wrong; a reload then simply asks again
    return found[0].question if found else None


def render_recent() -> None:
    """「我最近问过」: one click asks a recent question again (the question is a label: escaped)."""
    try:
        recent = get_asked_store().recent(asker(), limit=SHOWN)
    except XiaoEError as error:
        st.caption(md_escape(f"「我最近问过」暂不可用：{error}"))
        return
    if not recent:
        return
    with st.expander(f"我最近问过（{len(recent)}）"):
        for i, asked in enumerate(recent):
            left, right = st.columns([4, 2], vertical_alignment="center")
            left.button(md_escape(asked.question), key=f"recent_{i}", type="tertiary",
                        on_click=lambda q=asked.question: st.session_state.update({PICKED: q, "question": q}))
            right.caption(f"{asked.at.astimezone():%m-%d %H:%M} · {asked.decision} · {asked.knobs.describe()}")


def render_compare(assistant, retrieval: Retrieval, current: Knobs, default: Knobs) -> None:
    """「对比两组参数」: the gate at the sliders and at the saved default, on the one stored retrieval."""
    with st.expander("对比两组参数"):
        if current == default:
            st.caption("滑块就在已保存的默认值上，两组参数相同；移动滑块后再来对比。")
        columns = st.columns(2)
        for column, title, knobs in ((columns[0], "当前滑块", current), (columns[1], "已保存的默认值", default)):
            gate = assistant.gate(retrieval, knobs)  # the gate alone: no model call
            with column:
                _decision(title, knobs, gate)


def _decision(title: str, knobs: Knobs, gate: Gate) -> None:
    st.markdown(f"**{title}**：{md_escape(knobs.describe())}")
    # Plain Markdown, not st.success/st.warning: those are kept for the answer's own verdict on this page.
    verdict = "**✗ 拒答**" if gate.refused else f"**✓ 作答**（命中 {len(gate.hits):d} 个片段）"
    st.markdown(f"{verdict}：{md_escape(gate.reason)}")
    if gate.decision is not None:
        st.table(view.signal_frame(gate.decision))
