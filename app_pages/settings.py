"""设置: the active answerer and retriever, both model providers (keys masked) with a connection test, the main settings."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.answering.provider_info import describe_providers, describe_settings, grader_state
from core.answering.providers import test_connection
from core.errors import XiaoEError
from ui.auth import guard_page
from ui.escape import md_escape
from ui.state import get_settings

guard_page("view_settings")
st.title("设置")
st.caption("这里只显示当前生效的设置。修改方法：设置同名环境变量，或写进 .streamlit/secrets.toml，然后重启应用。")

try:
    settings = get_settings()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()

overview = describe_providers(settings)

st.subheader("当前使用")
st.table(pd.DataFrame({"项目": ["回答方式", "检索方式"], "当前值": [overview.answerer, overview.retriever]}),
         hide_index=True)
for warning in overview.warnings:
    st.warning(md_escape(warning))

st.subheader("模型服务")
for info in (overview.chat, overview.embed):
    with st.container(border=True):
        st.markdown(f"**{info.label}**")
        st.table(pd.DataFrame({
            "项目": ["类型", "模型名", "接口地址", "API 密钥"],
            "当前值": [info.kind, info.model or "—", info.base_url or "—", info.key],
        }), hide_index=True)
        clicked = st.button("测试连接", key=f"test_{info.role}", disabled=not info.configured,
                            help=None if info.configured else "还没有配置这个模型服务，无需测试。")
        if clicked:
            with st.spinner("正在测试连接…"):
                report = test_connection(settings, info.role)
            if report.ok:
                st.success(md_escape(report.message))
            else:
                st.error(md_escape(report.message))

st.subheader("模型判定（不确定区间）")
st.markdown(f"当前状态：**{grader_state(settings)}**")
st.caption("开启后，闸门差一点就拒答的问题（不确定区间）会先交给已配置的回答模型判定资料能否回答；"
           "判定可答的回答都进入复核队列的「模型判定可答」通道，等顾问通过。设置和其他设置一样只能通过环境变量修改：")
st.code("XIAOE_GRADER=band              # off 为关闭（默认）\n"
        "XIAOE_GRADER_BAND_COVERAGE=0.25  # 关键词覆盖比下限低多少以内算不确定\n"
        "XIAOE_GRADER_BAND_UNKNOWN=0.8    # 资料外的词最重不超过多少算不确定", language="bash")
st.caption("改好后重启应用。开启前可以先用 `python -m core eval 题集文件 --with-model` 在自己的题集上量一量，"
           "说明见使用文档中的「模型判定」一篇。")

st.subheader("主要设置")
rows = describe_settings(settings)
st.table(pd.DataFrame({"设置": [r.name for r in rows], "环境变量": [r.env for r in rows],
                       "当前值": [r.value for r in rows]}), hide_index=True)
