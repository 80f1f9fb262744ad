"""首次设置: shown instead of the app while there is no account; says the one command that creates the first admin."""

from __future__ import annotations

import shlex

import streamlit as st

from core.settings import PROJECT_ROOT, Settings
from ui.auth import get_sessions
from ui.state import get_settings


def first_admin_command(settings: Settings) -> str:
    """The exact command to run in the project folder, with the data folder this server uses."""
    command = ".venv/bin/python -m core users add admin --admin"
    if not settings.database_url and settings.data_dir != Settings().data_dir:
        command = f"XIAOE_DATA_DIR={shlex.quote(str(settings.data_dir))} {command}"
    return command


settings = get_settings()
st.title("欢迎使用小E 审核台")
if get_sessions().accounts.count():  # opened by a direct link after the first account exists
    st.info("已经有账号了：[打开登录页](./)")
    st.stop()
st.warning("还没有任何账号，所以暂时不能登录。请先新建第一个管理员账号。")
st.markdown(f"在服务器上打开终端，进入项目文件夹（`{PROJECT_ROOT}`），运行下面这一行命令，"
            "然后按提示输入两次密码（至少 10 个字符，输入时不显示）：")
st.code(first_admin_command(settings), language="bash")
st.caption("命令里的 admin 是用户名，可以换成你自己的，例如 wang.laoshi；加 --display-name 王老师 可设置显示名。")
if settings.database_url:
    st.info("本服务器使用 XIAOE_DATABASE_URL 指定的数据库：请在设置了同样 XIAOE_DATABASE_URL 的终端里运行这条命令。")
st.markdown("建好后点下面的按钮，就会出现登录页。其他同事的账号可以用同一条命令新建（去掉 `--admin` 即为顾问）。")
if st.button("我已新建账号，去登录", key="setup_done", type="primary"):
    st.rerun()
