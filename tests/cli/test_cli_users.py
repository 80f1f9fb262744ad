"""`python -m core users`: add via stdin, list, disable/enable, passwd, role; passwords never printed."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from core.cli import main
from core.settings import Settings
from core.stores import audit
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from tests.auth_helpers import FAST_HASHER
from tests.paths import ROOT

SECRET = "s3cret-pass-word"


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path))
    monkeypatch.setattr("core.stores.accounts.PasswordHasher", lambda: FAST_HASHER)
    return tmp_path


def run(monkeypatch, capsys, *argv, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def store() -> AccountStore:
    return AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER)


def test_cli_users_add_admin_from_stdin(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, "users", "add", "Boss", "--admin", "--display-name", "王校长",
                         "--password-stdin", stdin=SECRET + "\n")
    assert (code, err) == (0, "")
    assert "管理员账号「boss」" in out and SECRET not in out
    account = store().get("boss")
    assert (account.role, account.display_name) == ("admin", "王校长")
    assert store().check_password("boss", SECRET) is not None


def test_cli_users_add_reads_stdin_when_not_a_terminal(monkeypatch, capsys):
    code, _, _ = run(monkeypatch, capsys, "users", "add", "amy", stdin=SECRET + "\r\n")
    assert code == 0 and store().get("amy").role == "consultant"
    assert store().check_password("amy", SECRET) is not None


def test_cli_users_add_short_password_fails_with_chinese_message(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, "users", "add", "amy", "--password-stdin", stdin="short\n")
    assert code == 1 and "密码至少需要 10 个字符" in err and "short" not in err
    assert store().find("amy") is None


def test_cli_users_list_shows_accounts_without_hashes(monkeypatch, capsys):
    run(monkeypatch, capsys, "users", "add", "boss", "--admin", stdin=SECRET)
    code, out, _ = run(monkeypatch, capsys, "users", "list")
    assert code == 0 and "boss" in out and "管理员" in out and "argon2" not in out


def test_cli_users_list_when_empty_says_how_to_start(monkeypatch, capsys):
    _, out, _ = run(monkeypatch, capsys, "users", "list")
    assert "python -m core users add 用户名 --admin" in out


def test_cli_users_disable_enable_passwd_role_are_audited(monkeypatch, capsys):
    run(monkeypatch, capsys, "users", "add", "boss", "--admin", stdin=SECRET)
    run(monkeypatch, capsys, "users", "add", "amy", stdin=SECRET)
    assert run(monkeypatch, capsys, "users", "disable", "amy")[0] == 0
    assert store().get("amy").disabled
    assert run(monkeypatch, capsys, "users", "enable", "amy")[0] == 0
    assert run(monkeypatch, capsys, "users", "passwd", "amy", "--password-stdin", stdin="new-pass-word\n")[0] == 0
    assert store().check_password("amy", "new-pass-word") is not None
    assert run(monkeypatch, capsys, "users", "role", "amy", "admin")[0] == 0
    actions = [e.action for e in reversed(audit.recent(store().db))]
    assert actions == ["account_add", "account_add", "account_disable", "account_enable", "account_passwd",
                       "account_role"]
    assert all(e.actor.startswith("命令行") for e in audit.recent(store().db))


def test_cli_users_unknown_account_fails_cleanly(monkeypatch, capsys):
    code, _, err = run(monkeypatch, capsys, "users", "disable", "ghost")
    assert code == 1 and "没有名为「ghost」的账号" in err


def test_cli_users_subprocess_with_piped_password(tmp_path):
    env = {**os.environ, "XIAOE_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "core", "users", "add", "boss", "--admin", "--password-stdin"],
                          input=SECRET + "\n", capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    listed = subprocess.run([sys.executable, "-m", "core", "users", "list"], capture_output=True, text=True,
                            cwd=ROOT, env=env, timeout=60)
    assert "boss" in listed.stdout


def test_cli_users_edit_changes_the_display_name_and_clears_the_email(monkeypatch, capsys):
    run(monkeypatch, capsys, "users", "add", "amy", "--email", "amy@qiming.example", stdin=SECRET + "\n")
    code, out, _ = run(monkeypatch, capsys, "users", "edit", "amy", "--display-name", "李老师", "--email", "")
    assert code == 0 and "李老师" in out
    assert (store().get("amy").display_name, store().get("amy").email) == ("李老师", None)
    code, _, err = run(monkeypatch, capsys, "users", "edit", "amy")
    assert code == 2 and "--display-name" in err
