"""Show a change's impact before it is confirmed: the flipped questions in two columns, per group.

Question text came from consultants and students, so it is shown with `md_escape` (never as Markdown).
"""

from __future__ import annotations

import streamlit as st

from core.evaluation.flips import ChangeImpact, Flips
from ui.escape import md_escape

SHOWN = 15  # per column; the rest are counted


def _column(container, title: str, questions: tuple[str, ...]) -> None:
    container.markdown(f"**{title}（{len(questions)}）**")
    if not questions:
        container.caption("无")
        return
    container.markdown("\n".join(f"- {md_escape(q)}" for q in questions[:SHOWN]))
    if len(questions) > SHOWN:
        container.caption(f"另有 {len(questions) - SHOWN} 题未列出。")


def show_flips(title: str, flips: Flips) -> None:
    st.markdown(f"##### {title}：{flips.count} 题会改变（共核对 {flips.checked} 题）")
    left, right = st.columns(2)
    _column(left, "回答 → 拒答", flips.to_refused)
    _column(right, "拒答 → 回答", flips.to_answered)


def show_impact(impact: ChangeImpact, *, labelled_name: str) -> None:
    """Both groups: the labelled set, then the questions actually asked in the last `impact.days` days."""
    show_flips(f"标注题集「{labelled_name}」", impact.labelled)
    show_flips(f"最近 {impact.days} 天真实问过的问题（复核队列）", impact.asked)
    st.caption("只重新做可答性判断（同一个闸门），不调用模型；复核队列里只有被拒答、被标记或出错的问题，"
               "顺利回答且没人标记的问题不在其中。")
