"""#29 item 10: where a signed-in Ask rerun's database round trips go. The sign-in stores used to cost five per
rerun (has any account? + the session and its account, read by the router's gate and again by the page); now
one query reads the session with its account, the page reuses the gate's check of the same run, and "is there
any account" is asked until the answer is yes."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

SIGN_IN_TABLES = re.compile(r"\b(FROM|JOIN|UPDATE|INTO)\s+(sessions|accounts|login_guards|login_guard_failures)\b")


@pytest.fixture
def signed_in(app_env, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    db = open_database(Settings.from_env().db_url)
    add_staff(AccountStore(db, hasher=FAST_HASHER))
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    at.text_input(key="login_username").set_value("amy")
    at.text_input(key="login_password").set_value(PASSWORD)
    at.button(key="login_submit").click().run()
    token = at.session_state["auth_token"]
    at = AppTest.from_file(ROUTER, default_timeout=30)
    at.session_state["auth_token"] = token
    at.run()
    return at, db


def test_page_round_trips_an_ask_rerun_reads_the_sign_in_once(signed_in):
    at, db = signed_in
    at.text_input(key="question").set_value("口语课一共有几级？")
    at.button(key="ask").click().run()  # warm: the first ask builds caches
    statements: list[str] = []

    def seen(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        at.text_input(key="question").set_value("退费怎么算？")
        at.button(key="ask").click().run()
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    assert not at.exception
    sign_in = [s for s in statements if SIGN_IN_TABLES.search(s)]
    resumes = [s for s in sign_in if "JOIN accounts" in s]
    assert len(resumes) == 1, sign_in  # the router's gate: one resume for the whole rerun
    # the one state-changing call of an ask (the question into 「我最近问过」) re-checks the session inside
    # its own transaction (#29): the session row, then the account
    assert len(sign_in) == 3 and "FROM sessions" in sign_in[1] and "FROM accounts" in sign_in[2], sign_in
