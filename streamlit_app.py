"""小E 审核台 router: page config, login gate, shared sidebar, navigation. Pages live in app_pages/ (not pages/: Streamlit would also serve that folder bare, around the login gate)."""

from __future__ import annotations

import streamlit as st

from ui.auth import allowed_pages, denied_notice, gate, render_account
from ui.chrome import chinese_chrome
from ui.escape import md_escape
from ui.state import begin_run, get_index, get_settings

st.set_page_config(page_title="小E 审核台", page_icon=":material/school:", layout="wide")
run = begin_run()  # the one settings build of this script run (env + secrets + the saved default)
chinese_chrome()  # Streamlit's fixed English hints (form, uploader) hidden or relabelled
user = gate()  # before sign-in: the setup or login page alone, and the script stops here

PAGES = [
    st.Page("app_pages/ask.py", title="提问与检查", icon=":material/forum:", default=True),
    st.Page("app_pages/sources.py", title="资料原文", icon=":material/description:", url_path="sources"),
    st.Page("app_pages/review.py", title="复核队列", icon=":material/inbox:", url_path="review"),
    st.Page("app_pages/approved.py", title="已审答案", icon=":material/verified:", url_path="approved"),
    st.Page("app_pages/gaps.py", title="资料缺口", icon=":material/help_center:", url_path="gaps"),
    st.Page("app_pages/tuning.py", title="阈值调优", icon=":material/tune:", url_path="tuning"),
    st.Page("app_pages/glossary.py", title="同义词表", icon=":material/translate:", url_path="glossary"),
    st.Page("app_pages/settings.py", title="设置", icon=":material/settings:", url_path="settings"),
    st.Page("app_pages/accounts.py", title="账号管理", icon=":material/manage_accounts:", url_path="accounts"),
]

with st.sidebar:
    st.markdown("### 小E 审核台")
    st.caption("启明英语 · 助教小E 质检工作台")
    render_account(user)
    if run.warning:
        st.warning(md_escape(run.warning))
    bundle, error = get_index()
    if error:
        st.error(md_escape(error))  # a broken corpus or setting is named here; the other pages stay usable
    else:
        st.caption(f"资料 {len(bundle.files)} 份 · 片段 {len(bundle.index):,} 个 · 指纹 {bundle.fingerprint}")
        for note in bundle.skipped:
            st.warning(md_escape(note))
        settings = get_settings()  # get_index succeeded, so the settings are valid
        st.caption(f"回答模型：{md_escape(settings.llm_model)}" if settings.llm_configured else "回答模型：离线答题器（不联网）")

denied_notice(user)  # before the page: an admin-only address opened by a consultant falls back to the start page
st.navigation(allowed_pages(PAGES, user)).run()
