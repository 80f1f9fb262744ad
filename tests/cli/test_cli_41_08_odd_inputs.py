"""#41 finding 8 (evaluation runs): `eval --save-run ""` exited 0 and saved nothing, silently; `eval --reuse` whose
`edit` text was not in the file exited 0 and measured an unchanged corpus; run names with control characters were
stored. Each is now refused with a Chinese message and a non-zero exit code, before anything is measured or saved.
"""

from __future__ import annotations

import pytest

from core.cli import main
from core.errors import StoreError
from core.stores.db import Database
from core.stores.runs import RunStore
from tests.cli.test_cli_runs import corpus_copy  # noqa: F401 - the fixture
from tests.stores.test_runs_store import new_run

HEADER = "id,approved_question,approved_answer,new_question,expect,kind,edit\n"


@pytest.mark.parametrize("command", ["eval", "calibrate"])
@pytest.mark.parametrize("name", ["", "   "])
def test_41_08_an_empty_run_name_is_refused_before_measuring(capsys, corpus_copy, command, name):  # noqa: F811
    assert main([command, "--save-run", name]) == 1
    captured = capsys.readouterr()
    assert "运行名称是空的" in captured.err and captured.out == ""  # refused before anything was evaluated
    assert main(["runs", "list", "--json"]) == 0 and capsys.readouterr().out.strip() == "[]"


@pytest.mark.parametrize("name", ["第一次\n第二次", "a\x1b[31mb", "tab\there", "零宽\u200b", "反向\u202e"])
def test_41_08_a_run_name_with_control_characters_is_refused(capsys, corpus_copy, name):  # noqa: F811
    assert main(["eval", "--save-run", name]) == 1
    assert "看不见的控制字符" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["", "a\rb", "x\x00y", "换\u2028行"])
def test_41_08_the_store_refuses_such_names_on_every_path(database_url, name):
    store = RunStore(Database(database_url))
    with pytest.raises(StoreError, match="运行名称"):
        store.save(new_run(name))  # the tuning page and batch runs save through here
    assert store.list() == ()
    store.db.dispose()


def test_41_08_a_reuse_edit_whose_text_is_not_in_the_file_names_the_row(tmp_path, isolated_env, capsys):
    path = tmp_path / "reuse.csv"
    path.write_text(HEADER + "s1,三级学费多少,流利级（三级）学费 4800 元。,三级学费多少钱,no_reuse,stale,"
                    "01-口语课分级说明.md|4800 元|4900 元\n"
                    "s2,三级学费多少,流利级（三级）学费 4800 元。,三级学费多少钱,no_reuse,stale,"
                    "01-口语课分级说明.md|4799 元|4900 元\n"
                    "s3,三级学费多少,流利级（三级）学费 4800 元。,三级学费多少钱,no_reuse,stale,"
                    "09-没有这份.md|4800 元|4900 元\n", encoding="utf-8")
    assert main(["eval", "--reuse", str(path)]) == 1
    captured = capsys.readouterr()
    assert "第 3 行（id s2）" in captured.err and "「4799 元」" in captured.err
    assert "第 4 行（id s3）" in captured.err and "09-没有这份.md" in captured.err
    assert "id s1" not in captured.err and "没有评测任何一行" in captured.err
    assert "已评测" not in captured.err
