"""小E 审核台 router: page config, login gate, shared sidebar, navigation. Pages live in app_pages/ (not pages/: Streamlit would also serve that folder bare, around the login gate)."""

from __future__ import annotations

import streamlit as st

from ui.auth import allowed_pages, denied_notice, gate, render_account
from ui.chrome import chinese_chrome
from ui.escape import md_escape
from ui.pages import PAGES as PAGE_TABLE
from ui.state import begin_run, get_index, get_settings

st.set_page_config(page_title="小E 审核台", page_icon=":material/school:", layout="wide")
run = begin_run()  # the one settings build of this script run (env + secrets + the saved default)
chinese_chrome()  # Streamlit's fixed English hints (form, uploader) hidden or relabelled
user = gate()  # before sign-in: the setup or login page alone, and the script stops here

PAGES = [st.Page(p.script, title=p.title, icon=p.icon, **({"url_path": p.url_path} if p.url_path else {"default": True}))
         for p in PAGE_TABLE]

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
