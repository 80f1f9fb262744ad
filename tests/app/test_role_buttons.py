"""Admin-only actions are hidden from a consultant on the page (core refuses them too): saving a labelled
question set's new version (调优 › 题集管理) and 「重新建立索引」 (资料原文)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff


@pytest.fixture
def signed_in(app_env, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    add_staff(AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER))

    def open_(username: str, page: str, **state) -> AppTest:
        at = AppTest.from_file(ROUTER, default_timeout=60).run()
        at.text_input(key="login_username").set_value(username)
        at.text_input(key="login_password").set_value(PASSWORD)
        at.button(key="login_submit").click().run()
        for key, value in state.items():
            at.session_state[key] = value
        at.switch_page(page).run()
        assert not at.exception, at.exception
        return at

    return open_


def keys(at) -> set[str]:
    return {b.key for b in at.button}


@pytest.mark.parametrize(("username", "shown"), [("amy", False), ("boss", True)])
def test_role_buttons_question_set_save_is_for_admins_only(signed_in, username, shown):
    at = signed_in(username, "app_pages/tuning.py", tune_tab="题集管理")
    assert ("save_set" in keys(at)) is shown
    if not shown:
        assert any("只有管理员可以保存新版本" in c.value for c in at.caption)


@pytest.mark.parametrize(("username", "shown"), [("amy", False), ("boss", True)])
def test_role_buttons_index_rebuild_is_for_admins_only(signed_in, username, shown):
    at = signed_in(username, "app_pages/sources.py")
    assert ("rebuild" in keys(at)) is shown
