"""The login gate in AppTest: setup page with the command, one message for bad credentials, roles and pages."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from core.stores.sessions import BAD_CREDENTIALS
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff


@pytest.fixture
def auth_on(app_env, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    return app_env


@pytest.fixture
def staff(auth_on) -> AccountStore:
    store = AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER)
    add_staff(store)
    return store


def start(token: str | None = None) -> AppTest:
    """The router from scratch (a new page load); with `token`, in a session already signed in."""
    at = AppTest.from_file(ROUTER, default_timeout=30)
    if token:
        at.session_state["auth_token"] = token
    return at.run()


def submit(at: AppTest, username: str, password: str = PASSWORD) -> AppTest:
    at.text_input(key="login_username").set_value(username)
    at.text_input(key="login_password").set_value(password)
    return at.button(key="login_submit").click().run()


def sign_in(username: str, password: str = PASSWORD) -> AppTest:
    """Sign in on the login form, then load the app in that session.

    AppTest re-runs the page it finished on as a bare script while a pages/ folder exists (see
    ui/auth.guard_page), so the signed-in app is loaded from the router again with the token.
    """
    at = submit(start(), username, password)
    assert not at.exception and not at.error, [e.value for e in at.error]
    return start(at.session_state["auth_token"])


def titles(at: AppTest) -> list[str]:
    return [t.value for t in at.title]


def test_auth_app_no_accounts_shows_setup_with_the_command(auth_on):
    at = start()
    assert not at.exception
    assert titles(at) == ["欢迎使用小E 审核台"]
    (code,) = at.code
    assert code.value == f"XIAOE_DATA_DIR={auth_on.data} .venv/bin/python -m core users add admin --admin"
    assert not at.sidebar.caption  # no corpus facts before anyone can sign in


def test_auth_app_signed_out_sees_only_the_login_page(staff):
    at = start()
    assert titles(at) == ["登录小E 审核台"]
    with pytest.raises(ValueError, match="login.py'\\]"):  # the only page registered is the login page
        at.switch_page("app_pages/settings.py")


def test_auth_app_wrong_password_and_unknown_user_same_message(staff):
    wrong = submit(start(), "amy", "not the password")
    unknown = submit(start(), "nobody", "not the password")
    assert [e.value for e in wrong.error] == [e.value for e in unknown.error]
    assert len(wrong.error) == 1 and wrong.error[0].value.startswith(BAD_CREDENTIALS)
    assert titles(wrong) == titles(unknown) == ["登录小E 审核台"]


def test_auth_app_login_shows_the_app_and_who_is_signed_in(staff):
    at = sign_in("boss")
    assert not at.exception
    assert titles(at) == ["提问与检查"]
    assert any("王校长（boss，管理员）" in c.value for c in at.sidebar.caption)
    assert at.session_state["reviewer"] == "王校长（boss）"


def test_auth_app_admin_can_open_settings(staff):
    at = sign_in("boss")
    at.switch_page("app_pages/settings.py").run()
    assert titles(at) == ["设置"]


@pytest.mark.parametrize("page", ["app_pages/settings.py", "app_pages/accounts.py"])
def test_auth_app_consultant_does_not_get_admin_pages(staff, page):
    at = sign_in("amy")
    assert titles(at) == ["提问与检查"]
    with pytest.raises(ValueError, match="Could not find a navigation page"):  # not registered for this role
        at.switch_page(page)
    at.switch_page("app_pages/review.py").run()
    assert titles(at) == ["复核队列"]


def test_auth_app_sidebar_offers_sign_out(staff):
    # Clicking it is covered in tests/e2e/test_auth_e2e.py: AppTest's second run skips the router.
    at = sign_in("amy")
    assert at.sidebar.button(key="sign_out").label == "退出登录"


def test_auth_app_ended_session_goes_back_to_login_with_a_notice(staff):
    at = sign_in("amy")
    from ui.auth import get_sessions

    get_sessions().sign_out(at.session_state["auth_token"])  # as if it expired or was ended elsewhere
    at = start(at.session_state["auth_token"])
    assert titles(at) == ["登录小E 审核台"]
    assert [w.value for w in at.warning] == ["登录已失效，请重新登录。"]


def test_auth_app_disabled_account_is_signed_out_at_next_rerun(staff):
    at = sign_in("amy")
    staff.set_disabled("amy", True, actor="boss")
    at = start(at.session_state["auth_token"])
    assert titles(at) == ["登录小E 审核台"]
    assert "停用" in at.warning[0].value


def test_auth_app_admin_adds_a_consultant_who_can_sign_in(staff):
    at = sign_in("boss")
    at.switch_page("app_pages/accounts.py").run()
    at.text_input(key="new_username").set_value("li.lei")
    at.text_input(key="new_display").set_value("李雷")
    at.text_input(key="new_password").set_value("light kettle 2025 river")
    at.button(key="account_add_submit").click().run()
    assert not at.exception and [s.value for s in at.success] == ["已新建账号「li\\.lei」。"]  # Markdown-escaped
    assert staff.get("li.lei").role == "consultant"
    assert titles(sign_in("li.lei", "light kettle 2025 river")) == ["提问与检查"]


def test_auth_app_off_keeps_the_old_behaviour(app_env):
    at = start()
    assert titles(at) == ["提问与检查"]
    assert any("XIAOE_AUTH=off" in c.value for c in at.sidebar.caption)


# --- corpus administration under 资料原文 --------------------------------------------------------

def subheaders(at: AppTest) -> list[str]:
    return [s.value for s in at.subheader]


def test_auth_app_consultant_does_not_see_the_corpus_admin_panel(staff):
    at = sign_in("amy")
    at.switch_page("app_pages/sources.py").run()
    assert not at.exception and "资料管理（仅管理员）" not in subheaders(at)


def test_auth_app_admin_edits_a_corpus_file_and_a_version_is_kept(staff, auth_on):
    from core.stores.corpus_admin import CorpusAdmin, sha256_hex

    at = sign_in("boss")
    at.switch_page("app_pages/sources.py").run()
    assert "资料管理（仅管理员）" in subheaders(at)
    path = auth_on.corpus / "01-口语课分级说明.md"
    before = path.read_bytes()
    box = at.text_area(key=f"corpus_text_{sha256_hex(before)[:16]}")
    box.set_value(box.value + "\n补充：周日下午加开体验课。\n").run()
    at.button(key="corpus_edit_save").click().run()
    assert not at.exception and not at.error
    assert path.read_text(encoding="utf-8").endswith("补充：周日下午加开体验课。\n")
    assert any("第 2 版" in s.value for s in at.success)
    versions = CorpusAdmin(staff.db, auth_on.corpus).history(path.name)
    assert [(v.version, v.actor) for v in versions] == [(2, "boss"), (1, "（改动前的原文件）")]


def test_auth_app_admin_upload_with_a_hostile_name_is_refused(staff, auth_on):
    at = sign_in("boss")
    at.switch_page("app_pages/sources.py").run()
    at.file_uploader(key="corpus_upload").set_value(("notes.md", "# 笔记\n内容".encode(), "text/markdown")).run()
    at.text_input(key="corpus_upload_name").set_value("../escape.md").run()
    at.button(key="corpus_upload_save").click().run()
    assert [e.value for e in at.error] and "不能包含" in at.error[0].value
    assert not (auth_on.corpus.parent / "escape.md").exists()


# --- single sign-on through st.login ------------------------------------------------------------

SSO_SECRETS = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32,
               "client_id": "xiaoe", "client_secret": "s", "server_metadata_url": "https://idp.example/.well-known"}


def start_sso(user: dict | None = None) -> AppTest:
    at = AppTest.from_file(ROUTER, default_timeout=30)
    at.secrets["auth"] = SSO_SECRETS
    at.user = user or {}
    return at.run()


def test_auth_app_no_sso_button_without_auth_secrets(staff):
    at = start()
    assert not [b for b in at.button if b.key and b.key.startswith("sso_")]


def test_auth_app_sso_button_shown_when_configured(staff, monkeypatch):
    monkeypatch.setattr("ui.auth.sso_ready", lambda: True)
    at = start_sso()
    assert at.button(key="sso_default").label == "使用单位账号登录"


def test_auth_app_sso_without_authlib_says_what_to_install(staff, monkeypatch):
    monkeypatch.setattr("ui.auth.sso_ready", lambda: False)
    assert any("Authlib" in w.value for w in start_sso().warning)


def test_auth_app_sso_identity_maps_to_the_local_account(staff):
    at = start_sso({"is_logged_in": True, "email": "BOSS@qiming.example", "email_verified": True})
    assert not at.exception and titles(at) == ["提问与检查"]
    assert at.session_state["auth_user"].username == "boss"


def test_auth_app_sso_identity_without_account_is_denied(staff):
    at = start_sso({"is_logged_in": True, "email": "stranger@qiming.example"})
    assert titles(at) == ["登录小E 审核台"]
    assert "没有对应的账号" in at.warning[0].value


def test_auth_app_restoring_a_version_waits_for_a_confirmation_that_shows_the_diff(staff, auth_on):
    from core.stores.corpus_admin import CorpusAdmin, sha256_hex

    at = sign_in("boss")
    at.switch_page("app_pages/sources.py").run()
    path = auth_on.corpus / "02-退费与转班制度.md"
    before = path.read_bytes()
    at.selectbox(key="corpus_edit_file").set_value(path.name).run()
    box = at.text_area(key=f"corpus_text_{sha256_hex(before)[:16]}")
    box.set_value(box.value.replace("单笔最低 50 元", "单笔最低 60 元")).run()
    at.button(key="corpus_edit_save").click().run()
    at.selectbox(key="corpus_history_file").set_value(path.name).run()
    at.button(key="corpus_restore").click().run()
    assert not at.exception
    assert path.read_bytes() != before  # nothing restored yet: the confirmation shows what it will do
    assert any("确认把" in w.value and "恢复为第 1 版" in w.value for w in at.warning)
    diff = next(h.proto.body for h in at.get("html") if 'id="corpus_restore_diff"' in h.proto.body)
    assert ">6</span>0 元" in diff and ">5</span>0 元" in diff  # now 60 → after the restore 50
    at.button(key="corpus_restore_confirm").click().run()
    assert not at.exception and path.read_bytes() == before
    assert [v.version for v in CorpusAdmin(staff.db, auth_on.corpus).history(path.name)] == [3, 2, 1]


def test_auth_app_a_sensitive_word_in_a_document_is_shown_before_the_save(staff, auth_on):
    from core.stores.corpus_admin import sha256_hex
    from core.stores.roles import User
    from core.stores.sensitive_words import SensitiveStore

    SensitiveStore(open_database(Settings.from_env().db_url)).add(User("boss", "boss", "admin"), "代考", "作弊")
    at = sign_in("boss")
    at.switch_page("app_pages/sources.py").run()
    path = auth_on.corpus / "01-口语课分级说明.md"
    before = path.read_bytes()
    box = at.text_area(key=f"corpus_text_{sha256_hex(before)[:16]}")
    box.set_value(box.value + "\n可以找人代考分级测试。\n").run()
    assert not at.exception
    assert any("「代考」（作弊）" in w.value for w in at.warning)
    assert path.read_bytes() == before  # shown before the save, nothing saved yet
