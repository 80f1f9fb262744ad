"""The lower half of a queue item's detail: candidates, who asked it when, and the decision trail (collapsed)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import XiaoEError
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import open_database
from core.stores.review import ReviewItem, ReviewStore
from core.stores.stale import STALE_CODE, stale_changes
from ui.answer_view import md_escape
from ui.diff_view import show_diff
from ui.review_view import candidate_frame, event_frame, when
from ui.state import get_settings

ASK_COLUMNS = ["时间", "提问人", "阈值", "k", "计入次数"]


def ask_frame(item: ReviewItem) -> pd.DataFrame:
    rows = [{"时间": when(a.at), "提问人": a.asker or "（未登录）",
             "阈值": f"{a.threshold:.2f}" if a.threshold is not None else "—", "k": a.k if a.k is not None else "—",
             "计入次数": "是" if a.counted else "否（调滑块后重新生成）"} for a in item.asks]
    return pd.DataFrame(rows, columns=ASK_COLUMNS)


def show_stale(item: ReviewItem) -> None:
    """For a 资料已更新 item: what changed in each cited file since the item was queued, side by side."""
    settings = get_settings()
    try:
        changes = stale_changes(CorpusAdmin(open_database(settings.db_url), settings.corpus_dir), item)
    except XiaoEError as error:
        st.warning(f"读不出资料的历史版本：{md_escape(str(error))}")
        return
    with st.expander("资料改动（左：入队时的版本，右：现在的版本）", expanded=True):
        if not changes:
            st.caption("没有找到所引资料的历史版本（可能是直接改了资料文件夹，没有经过资料原文页）。")
        for change in changes:
            st.markdown(f"**{md_escape(change.source)}**：第 {change.old_version} 版 → 第 {change.new_version} 版")
            show_diff(change.rows, key=f"stale_diff_{item.id}_{change.source}")


def show_history(store: ReviewStore, item: ReviewItem) -> None:
    """Candidates, askings and the decision trail, each in an expander whose table is drawn only while it is open: a
    table is a grid the browser must build, and three hidden ones held the queue list back 0.4-1.5 s on every load."""
    if any(p.code == STALE_CODE for p in item.reasons):
        show_stale(item)
    with st.expander(f"候选片段（{len(item.candidates)} 个，分数 ≥ 阈值才会交给模型）", key=f"history_candidates_{item.id}",
                     on_change="rerun") as box:
        if not box.open:
            pass
        elif item.candidates:
            st.dataframe(candidate_frame(item), hide_index=True, column_config={
                "分数": st.column_config.NumberColumn(format="%.3f"),
                "阈值": st.column_config.NumberColumn(format="%.2f"),
                "原文": st.column_config.LinkColumn(display_text="打开原文")})
        else:
            st.caption("没有候选片段。")
    if item.asks:
        with st.expander(f"提问记录（被问 {item.ask_count:d} 次）", key=f"history_asks_{item.id}",
                         on_change="rerun") as box:
            if box.open:
                st.dataframe(ask_frame(item), hide_index=True)
    with st.expander("处理记录", key=f"history_events_{item.id}", on_change="rerun") as box:
        if box.open:
            st.dataframe(event_frame(store.events(item.id)), hide_index=True)
