"""登录: user name and password (or the school's single sign-on when configured); nothing else is shown before it."""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from ui.auth import IDLE_LIMIT, LOCK_DURATION, MAX_FAILURES, NOTICE, current_user, sign_in, sso_providers, sso_ready
from ui.escape import md_escape
from ui.state import get_settings

st.title("登录小E 审核台")
if current_user() is not None:  # only on a bare-page run (see ui.auth.guard_page); the router skips this page
    st.success("你已登录：[打开小E 审核台](./)")
    st.stop()
# The last attempt's message, in a slot drawn before the password is checked: a rerun empties it at once, so while
# the next attempt is checked (argon2 takes a while) the page never still shows the count before it (it read 4, 4, 2, 1).
said = st.empty()
notice = st.session_state.pop(NOTICE, None)
if notice:
    st.warning(md_escape(notice))

with st.form("login", enter_to_submit=True):
    username = st.text_input("用户名", key="login_username", max_chars=64, autocomplete="username")
    password = st.text_input("密码", key="login_password", type="password", max_chars=256,
                             autocomplete="current-password")
    submitted = st.form_submit_button("登录", key="login_submit", type="primary", width="stretch")

if submitted:
    try:
        sign_in(username, password)
    except XiaoEError as error:  # AuthError: one message for an unknown name and a wrong password
        said.error(md_escape(str(error)))
    else:
        st.rerun()

providers = sso_providers()
if providers:
    st.divider()
    if not sso_ready():
        st.warning("已配置单位账号登录，但服务器缺少 Authlib 组件：请管理员运行 `.venv/bin/pip install \"Authlib>=1.3.2\"` 后重启。")
    else:
        for provider in providers:
            label = "使用单位账号登录" if provider is None or len(providers) == 1 else f"使用单位账号登录（{provider}）"
            if st.button(md_escape(label), key=f"sso_{provider or 'default'}", icon=":material/badge:", width="stretch"):
                st.login(provider or "default")
    if st.user.get("is_logged_in", False):
        st.caption("单位账号已登录，但没有对应的小E 账号。")
        if st.button("退出单位账号，换一个", key="sso_logout"):
            st.logout()

lock_minutes, idle_hours = int(LOCK_DURATION.total_seconds() // 60), IDLE_LIMIT.total_seconds() / 3600
max_hours = get_settings().session_max_hours
lifetime = f"{max_hours / 24:g} 天" if max_hours % 24 == 0 else f"{max_hours:g} 小时"
st.caption(f"连续 {MAX_FAILURES} 次输错密码，这个用户名会从你这里锁定 {lock_minutes} 分钟（每次输错都会提示还能试几次）；"
           f"{idle_hours:g} 小时不操作，或登录满 {lifetime}，会自动退出。忘记密码请联系管理员。")
