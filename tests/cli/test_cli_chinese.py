"""The CLI speaks Chinese and cannot be driven by stored text: help texts, escaped output, bad bytes, bad URLs, exports."""

from __future__ import annotations

import io
import re
import sys

import openpyxl
import pytest

from core.cells import neutralise
from core.cli import build_parser, main
from core.cli.parser import escape_controls, translate_error
from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from core.stores.review import ReviewStore
from core.stores.sessions import MAX_FAILURES, SessionStore
from core.values import RAGAnswer
from tests.auth_helpers import FAST_HASHER

# What may stay Latin in a help text: what is typed (commands, flags, codes), formats and names.
ALLOWED = {"python", "m", "core", "h", "help", "k", "E", "CSV", "XLSX", "JSON", "Excel", "json", "xlsx", "csv",
           "admin", "consultant", "pending", "approved", "rejected", "citation", "bad_ref", "BOM", "UTF",
           "chat", "feedback", "all", "flagged", "auto"}  # the student service's scopes and release policies


def help_texts() -> dict[str, str]:
    """`--help` of every command and sub-command, as printed."""
    texts = {"": build_parser().format_help()}

    def walk(parser, path):
        for action in parser._actions:
            choices = getattr(action, "choices", None)
            for name, sub in (choices.items() if isinstance(choices, dict) else ()):
                if hasattr(sub, "format_help"):
                    texts[f"{path} {name}".strip()] = sub.format_help()
                    walk(sub, f"{path} {name}")
    walk(build_parser(), "")
    return texts


def latin_words(text: str, commands: set[str]) -> set[str]:
    text = re.sub(r"--?[a-z][a-z-]*", " ", text)  # flags are typed as they are
    text = re.sub(r"[\w./-]+\.(json|csv|xlsx|md|py)\b", " ", text)  # file paths
    return {w for w in re.findall(r"[A-Za-z][A-Za-z_]*", text)} - ALLOWED - commands


def test_cli_help_has_no_english_words():
    texts = help_texts()
    commands = {part for path in texts for part in path.split()}
    found = {path or "(顶层)": latin_words(text, commands) for path, text in texts.items()}
    assert {path: words for path, words in found.items() if words} == {}
    assert all("用法：" in t and "usage" not in t and "options" not in t for t in texts.values())


@pytest.mark.parametrize(("english", "chinese"), [
    ("argument 命令: invalid choice: 'nope' (choose from 'ask', 'demo')", "参数 命令 的值「nope」不可用，可选：ask、demo"),
    ("the following arguments are required: name", "缺少必填参数：name"),
    ("unrecognized arguments: --x", "不认识的参数：--x"),
    ("argument --limit: expected one argument", "参数 --limit 后面需要跟一个值"),
])
def test_cli_parser_translates_argparse_errors(english, chinese):
    assert translate_error(english) == chinese


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("XIAOE_DATABASE_URL", raising=False)
    monkeypatch.setattr("core.stores.accounts.PasswordHasher", lambda: FAST_HASHER)
    return tmp_path


def test_cli_queue_list_escapes_terminal_control_characters(data, capsys):
    store = ReviewStore(open_database(Settings.from_env().db_url))
    store.enqueue(RAGAnswer(question="退费\x1b[2J\x1b]0;pwned\x07怎么算\u202e？", text="", hits=(), candidates=(),
                            threshold=0.2, k=3, refused=True, model_called=False, problems=()),
                  origin="refusal", fingerprint="f")
    assert main(["queue", "list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "退费\\u001b[2J\\u001b]0;pwned\\u0007怎么算\\u202e？" in out


def test_escape_controls_keeps_newlines_and_tabs():
    assert escape_controls("a\tb\nc\rd\x9b") == "a\tb\nc\\u000dd\\u009b"


@pytest.mark.parametrize("argv", [
    ["users", "add", "bob", "--display-name", "\udcff\udcfe", "--password-stdin"],
    ["users", "add", "bob", "--email", "a\udcff@x.example", "--password-stdin"],
])
def test_cli_non_utf8_arguments_get_a_chinese_message(data, capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO("correct horse 42 x\n"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "不是 UTF-8" in err and "Traceback" not in err


def test_cli_non_utf8_password_gets_a_chinese_message(data, capsys, monkeypatch):
    raw = io.TextIOWrapper(io.BytesIO(b"abc\xffdefghijkl\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", raw)
    assert main(["users", "add", "bob", "--password-stdin"]) == 1
    assert "不是 UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["garbage", "postgresql+psycopg://u:Pw9@x@127.0.0.1:notaport/db"])
def test_cli_malformed_database_url_is_chinese_and_hides_the_password(data, capsys, monkeypatch, url):
    monkeypatch.setenv("XIAOE_DATABASE_URL", url)
    assert main(["queue", "list"]) == 1
    err = capsys.readouterr().err
    assert "XIAOE_DATABASE_URL 的格式不对" in err and "Pw9" not in err and "Traceback" not in err


def test_cli_users_list_shows_a_locked_account(data, capsys, monkeypatch):
    accounts = AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER)
    accounts.add("amy", "correct horse 42 x", actor="test")
    sessions = SessionStore(accounts)
    for _ in range(MAX_FAILURES):
        with pytest.raises(Exception):
            sessions.sign_in("amy", "wrong password", source="198.51.100.7")  # a known source: locked 10 minutes
    assert main(["users", "list"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("amy\t"))
    assert "锁定到" in line


def test_cli_queue_export_xlsx_is_a_real_workbook(data, capsys, tmp_path):
    store = ReviewStore(open_database(Settings.from_env().db_url))
    store.enqueue(RAGAnswer(question="=1+1 能退费吗？", text="", hits=(), candidates=(), threshold=0.2, k=3,
                            refused=True, model_called=False, problems=()), origin="refusal", fingerprint="f")
    target = tmp_path / "队列.xlsx"
    assert main(["queue", "export", str(target)]) == 0
    sheet = openpyxl.load_workbook(target).active
    assert sheet["A1"].value == "编号" and sheet["E2"].value == "=1+1 能退费吗？" and sheet["E2"].data_type == "s"
    assert main(["queue", "export", str(tmp_path / "队列.xls")]) == 1
    assert "不能导出为 .xls 文件" in capsys.readouterr().err


@pytest.mark.parametrize("cell", ["＝1+1", "＋86", "－5", "＠SUM(A1)", "=1", "+1", "-1", "@x"])
def test_spreadsheet_cells_neutralise_ascii_and_full_width_formula_starts(cell):
    assert neutralise(cell) == "'" + cell


def test_cli_queue_export_to_another_extension_is_refused_with_a_message(data, capsys, tmp_path):
    target = tmp_path / "队列.docx"
    assert main(["queue", "export", str(target)]) == 1
    err = capsys.readouterr().err
    assert "不能导出为 .docx 文件" in err and ".csv 或 .xlsx" in err
    assert not target.exists()
