"""接口密钥 (admins): the keys the school's App calls the student service with — who has one, its release policy, when
it was last used and how many messages it brought today; make one (its secret shown once), change the policy, revoke."""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.values.exchanges import POLICIES, POLICY_LABELS, SCOPE_LABELS
from ui.answer_view import md_escape
from ui.auth import authorize, guard_page
from ui.state import get_conversation_store, get_key_store

NEW_SECRET = "keys_new_secret"

user = guard_page("manage_keys")
st.title("接口密钥")
st.caption("学校 App（后端）用密钥调用学员服务（docs/service.md）。密钥只在新建时显示一次，只保存它的摘要；"
           "停用后所有服务实例立即拒绝它。放行策略决定小E 的回答是先交顾问审（「待发送」）还是直接发给学员。")
try:
    store = get_key_store()
    keys = store.list()
    conversations = get_conversation_store()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()

if NEW_SECRET in st.session_state:
    name, secret, signing = st.session_state[NEW_SECRET]
    st.success(f"已新建密钥「{md_escape(name)}」。下面的密钥只显示这一次，请立刻交给 App 的开发人员保存：")
    st.code(secret, language=None)
    st.caption("回调签名密钥（App 用它校验 X-Xiaoe-Signature）：")
    st.code(signing, language=None)
    if st.button("我已保存，隐藏密钥", key="keys_hide"):
        st.session_state.pop(NEW_SECRET)
        st.rerun()

if keys:
    st.table([{"名称": k.name, "开头": f"{k.prefix}…", "状态": "已停用" if k.revoked else "使用中",
               "权限": "、".join(SCOPE_LABELS.get(s, s) for s in k.scopes), "放行策略": POLICY_LABELS[k.policy],
               "回调": k.webhook_url or "（App 轮询）",
               "最近使用": k.last_used_at.astimezone().strftime("%Y-%m-%d %H:%M") if k.last_used_at else "从未",
               "今天消息": conversations.today(k.id), "新建": f"{k.created_at.astimezone():%Y-%m-%d} {k.created_by}"}
              for k in keys])
else:
    st.info("还没有密钥。")

with st.expander("新建密钥", expanded=not keys):
    with st.form("keys_add", clear_on_submit=True):
        name = st.text_input("名称（英文字母、数字、点、下划线、连字符）", key="keys_name", placeholder="school-app")
        release = st.selectbox("放行策略", POLICIES, format_func=POLICY_LABELS.get, key="keys_release")
        scopes = st.multiselect("权限", ["chat", "feedback"], default=["chat", "feedback"],
                                format_func=SCOPE_LABELS.get, key="keys_scopes")
        webhook = st.text_input("回调地址（可选：顾问放行的回答推送到这里，否则由 App 轮询）", key="keys_webhook")
        if st.form_submit_button("新建", type="primary", key="keys_add_button"):
            try:
                made = store.add(user, name, scopes=tuple(scopes), release=release, webhook=webhook,
                                 authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
            else:
                st.session_state[NEW_SECRET] = (made.key.name, made.secret, made.webhook_secret)
                st.rerun()

active = [k for k in keys if not k.revoked]
if active:
    with st.expander("修改放行策略或停用"):
        chosen = st.selectbox("密钥", [k.name for k in active], key="keys_chosen")
        key = next(k for k in active if k.name == chosen)
        cols = st.columns(2)
        policy = cols[0].selectbox("放行策略", POLICIES, index=POLICIES.index(key.policy),
                                   format_func=POLICY_LABELS.get, key=f"keys_policy_{key.name}")
        if cols[0].button("保存放行策略", key=f"keys_policy_save_{key.name}"):
            try:
                store.set_release(user, key.name, policy, authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
            else:
                st.rerun()
        sure = cols[1].checkbox(f"确认停用「{md_escape(key.name)}」：所有实例立即拒绝它，不能恢复",
                               key=f"keys_sure_{key.name}")
        if cols[1].button("停用", key=f"keys_revoke_{key.name}", disabled=not sure):
            try:
                store.revoke(user, key.name, authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
            else:
                st.rerun()
