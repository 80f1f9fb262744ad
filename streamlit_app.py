"""小E 审核台 router: page config, shared sidebar, navigation. Pages live in pages/."""

from __future__ import annotations

import streamlit as st

from ui.state import get_index, get_settings

st.set_page_config(page_title="小E 审核台", page_icon="📚", layout="wide")

PAGES = [
    st.Page("pages/ask.py", title="提问与检查", icon="💬", default=True),
    st.Page("pages/sources.py", title="资料原文", icon="📄", url_path="sources"),
    st.Page("pages/review.py", title="复核队列", icon="🗂️", url_path="review"),
    st.Page("pages/tuning.py", title="阈值调优", icon="🎚️", url_path="tuning"),
    st.Page("pages/settings.py", title="设置", icon="⚙️", url_path="settings"),
]

with st.sidebar:
    st.markdown("### 小E 审核台")
    st.caption("启明英语 · 助教小E 质检工作台")
    bundle, error = get_index()
    if error:
        st.error(error)
    elif bundle is not None:
        st.caption(f"资料 {len(bundle.files)} 份 · 片段 {len(bundle.index)} 个 · 指纹 {bundle.fingerprint}")
        for note in bundle.skipped:
            st.warning(note)
    st.caption(f"答题模型：{'外部模型' if get_settings().llm_configured else '离线答题器'}")

st.navigation(PAGES).run()
