"""账号管理 (admins only): list, add, edit name and email, disable (after a confirmation) / enable, change role,
reset password; the audit log below."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import XiaoEError
from core.labels import audit_action_label
from ui.auth import MAX_DISPLAY_CHARS, ROLES, audit_entries, authorize, get_sessions, guard_page, login_summary
from ui.escape import md_escape

FLASH = "_accounts_flash"
CONFIRM_DISABLE = "_accounts_confirm_disable"  # the user name whose 停用 waits for 确认停用
# Widgets get more room than the rules allow, so an over-long value reaches the core and its Chinese message
# instead of being cut off silently in the browser.
WIDE = 200


def when(value) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M") if value else "—"


def run(action, success: str) -> None:
    """Do one change; show the outcome after the rerun that refreshes the table."""
    try:
        action()
    except XiaoEError as error:
        st.session_state.pop("_accounts_clear_new", None)
        st.error(md_escape(str(error)))
    else:
        st.session_state[FLASH] = success
        st.rerun()


user = guard_page("manage_accounts")
st.title("账号管理")
try:
    sessions = get_sessions()
    store = sessions.accounts
    accounts = store.list()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()

if FLASH in st.session_state:
    st.success(md_escape(st.session_state.pop(FLASH)))

st.dataframe(pd.DataFrame([{"用户名": a.username, "显示名": a.display_name, "角色": a.role_label,
                            "状态": "已停用" if a.disabled else "可用", "邮箱": a.email or "",
                            "创建时间": when(a.created_at), "最近登录": when(a.last_login_at)} for a in accounts]),
             hide_index=True, width="stretch", key="accounts_table")

add_tab, change_tab, log_tab = st.tabs(["新建账号", "修改账号", "操作记录"])

NEW_FIELDS = ("new_username", "new_display", "new_email", "new_password")
if st.session_state.pop("_accounts_clear_new", False):  # cleared after a success only: an error keeps what was typed
    for key in NEW_FIELDS:
        st.session_state[key] = ""  # set, not popped: a popped key leaves the browser showing the old text

with add_tab, st.form("account_add", clear_on_submit=False):
    cols = st.columns(2)
    username = cols[0].text_input("用户名", key="new_username", max_chars=64, help="2–64 个字母、数字、汉字或 . _ - @")
    display = cols[1].text_input("显示名", key="new_display", max_chars=WIDE, placeholder="例如 张老师",
                                 help=f"最多 {MAX_DISPLAY_CHARS} 个字")
    email = cols[0].text_input("单位邮箱（可选）", key="new_email", max_chars=254, help="用于「使用单位账号登录」")
    role = cols[1].selectbox("角色", list(ROLES), format_func=ROLES.get, key="new_role")
    password = st.text_input("初始密码（至少 10 个字符，请当面或电话告知本人）", type="password", key="new_password",
                             max_chars=256, autocomplete="new-password")
    if st.form_submit_button("新建账号", key="account_add_submit", type="primary"):
        st.session_state["_accounts_clear_new"] = True  # consumed only if `run` succeeds and reruns
        run(lambda: store.add(username, password, actor=user.username, role=role, display_name=display or None,
                              email=email or None, authorize=authorize()),
            f"已新建账号「{username.strip().lower()}」。")

with change_tab:
    if accounts:
        names = [a.username for a in accounts]
        chosen = st.selectbox("选择账号", names, key="change_account")
        target = next(a for a in accounts if a.username == chosen)
        if st.session_state.get(CONFIRM_DISABLE) not in (None, chosen):
            st.session_state.pop(CONFIRM_DISABLE)  # another account was chosen meanwhile
        cols = st.columns(3)
        if target.disabled:
            if cols[0].button("重新启用", key="account_enable"):
                run(lambda: store.set_disabled(chosen, False, actor=user.username, authorize=authorize()), f"已重新启用「{chosen}」。")
        elif cols[0].button("停用", key="account_disable", disabled=chosen == user.username,
                            help="不能停用自己" if chosen == user.username else "停用后不能登录，已登录的会被退出"):
            st.session_state[CONFIRM_DISABLE] = chosen
        other = "consultant" if target.role == "admin" else "admin"
        if cols[1].button(f"改为{ROLES[other]}", key="account_role", disabled=chosen == user.username):
            run(lambda: store.set_role(chosen, other, actor=user.username, authorize=authorize()), f"「{chosen}」现在是{ROLES[other]}。")
        with cols[2].popover("重设密码"), st.form("account_passwd", clear_on_submit=True):
            new_password = st.text_input("新密码", type="password", key="reset_password", max_chars=256,
                                         autocomplete="new-password")
            if st.form_submit_button("保存新密码", key="account_passwd_submit"):
                run(lambda: sessions.reset_password(chosen, new_password, actor=user.username, authorize=authorize()),
                    f"已重设「{chosen}」的密码，{'你' if chosen == user.username else '他'}的所有登录已退出，"
                    "登录锁定（如有）已解除。")
        if st.session_state.get(CONFIRM_DISABLE) == chosen and not target.disabled:
            st.warning(f"确定停用「{md_escape(chosen)}」（{md_escape(target.display_name)}）吗？停用后不能登录，"
                       "他正在用的页面会立即退出；以后可以重新启用。")
            yes, no = st.columns(2)
            if yes.button("确认停用", key="account_disable_confirm", type="primary"):
                st.session_state.pop(CONFIRM_DISABLE, None)
                run(lambda: store.set_disabled(chosen, True, actor=user.username, authorize=authorize()),
                    f"已停用「{chosen}」，他的所有登录已退出。")
            if no.button("取消", key="account_disable_cancel"):
                st.session_state.pop(CONFIRM_DISABLE, None)
                st.rerun()
        with st.form(f"account_profile_{chosen}", border=True):
            st.markdown("**显示名和邮箱**")
            left, right = st.columns(2)
            new_display = left.text_input("显示名", value=target.display_name, max_chars=WIDE, key=f"edit_display_{chosen}",
                                          help=f"最多 {MAX_DISPLAY_CHARS} 个字")
            new_email = right.text_input("单位邮箱（留空表示去掉）", value=target.email or "", max_chars=254,
                                         key=f"edit_email_{chosen}")
            if st.form_submit_button("保存显示名和邮箱", key="account_profile_submit"):
                run(lambda: store.set_profile(chosen, actor=user.username, display_name=new_display, email=new_email,
                                              authorize=authorize()),
                    f"已保存「{chosen}」的显示名和邮箱。")

with log_tab:
    show_logins = st.toggle("逐条显示每次登录", key="audit_show_logins")
    entries = audit_entries(with_logins=show_logins)
    st.dataframe(pd.DataFrame([{"时间": when(e.at), "操作人": e.actor, "操作": audit_action_label(e.action),
                                "对象": e.target, "说明": e.detail} for e in entries],
                              columns=["时间", "操作人", "操作", "对象", "说明"]),
                 hide_index=True, width="stretch", key="audit_table")
    if not show_logins:
        st.markdown("**登录汇总**（每人一行，不再逐条列出）")
        st.dataframe(pd.DataFrame([{"账号": s.actor, "登录次数": s.count, "最早": when(s.first), "最近": when(s.last)}
                                   for s in login_summary()],
                                  columns=["账号", "登录次数", "最早", "最近"]),
                     hide_index=True, width="stretch", key="login_summary_table")
