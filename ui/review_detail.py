"""The lower half of a queue item's detail: candidates, who asked it when, and the decision trail (collapsed)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.review import ReviewItem, ReviewStore
from ui.review_view import candidate_frame, event_frame, when

ASK_COLUMNS = ["时间", "提问人", "阈值", "k", "计入次数"]


def ask_frame(item: ReviewItem) -> pd.DataFrame:
    rows = [{"时间": when(a.at), "提问人": a.asker or "（未登录）",
             "阈值": f"{a.threshold:.2f}" if a.threshold is not None else "—", "k": a.k if a.k is not None else "—",
             "计入次数": "是" if a.counted else "否（调滑块后重新生成）"} for a in item.asks]
    return pd.DataFrame(rows, columns=ASK_COLUMNS)


def show_history(store: ReviewStore, item: ReviewItem) -> None:
    with st.expander(f"候选片段（{len(item.candidates)} 个，分数 ≥ 阈值才会交给模型）"):
        if item.candidates:
            st.dataframe(candidate_frame(item), hide_index=True, column_config={
                "分数": st.column_config.NumberColumn(format="%.3f"),
                "阈值": st.column_config.NumberColumn(format="%.2f"),
                "原文": st.column_config.LinkColumn(display_text="打开原文")})
        else:
            st.caption("没有候选片段。")
    if item.asks:
        with st.expander(f"提问记录（被问 {item.ask_count} 次）"):
            st.dataframe(ask_frame(item), hide_index=True)
    with st.expander("处理记录"):
        st.dataframe(event_frame(store.events(item.id)), hide_index=True)
