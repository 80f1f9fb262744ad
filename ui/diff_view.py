"""Render core.corpus.diff rows as a two-column table: removed lines red, added green, changed amber."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.corpus.diff import ADDED, CHANGED, REMOVED, DiffRow

COLOURS = {REMOVED: ("#fde2e1", ""), ADDED: ("", "#dcf5e3"), CHANGED: ("#fde2e1", "#dcf5e3")}
COLUMNS = ["旧行号", "旧版本", "新行号", "新版本", "变化"]


def diff_frame(rows: tuple[DiffRow, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"旧行号": r.old_no, "旧版本": r.old, "新行号": r.new_no, "新版本": r.new, "变化": r.kind}
                         for r in rows], columns=COLUMNS)


def _style(row: pd.Series) -> list[str]:
    old, new = COLOURS.get(row["变化"], ("", ""))
    return ["", f"background-color:{old}" if old else "", "", f"background-color:{new}" if new else "", ""]


def show_diff(rows: tuple[DiffRow, ...], *, key: str) -> None:
    """The rows side by side (text is shown as data, never as Markdown), or a line saying nothing changed."""
    if not rows:
        st.caption("两个版本内容相同。")
        return
    frame = diff_frame(rows)
    st.dataframe(frame.style.apply(_style, axis=1), hide_index=True, width="stretch", key=key,
                 column_config={"旧行号": st.column_config.NumberColumn(width="small"),
                                "新行号": st.column_config.NumberColumn(width="small"),
                                "变化": st.column_config.TextColumn(width="small")})
