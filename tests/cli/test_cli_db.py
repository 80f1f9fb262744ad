"""`python -m core db upgrade|status` on both engines: every store up to date, idempotent, versions listed."""

from __future__ import annotations

from core.cli import main
from core.stores.db import Database
from core.stores.schemas import SCHEMAS


def test_cli_db_upgrade_brings_every_store_up_to_date_once(database_url, monkeypatch, capsys):
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    assert main(["db", "status"]) == 1
    assert "待升级" in capsys.readouterr().out
    assert main(["db", "upgrade"]) == 0
    assert "review：已升级（#1、#2、#3、#4）" in capsys.readouterr().out
    assert main(["db", "upgrade"]) == 0
    assert "已升级" not in capsys.readouterr().out
    assert main(["db", "status"]) == 0
    db = Database(database_url)
    assert {s.component: db.applied(s.component) for s in SCHEMAS} == {
        s.component: [m.version for m in s.migrations] for s in SCHEMAS}
    db.dispose()


def test_cli_db_status_never_prints_the_password(database_url, monkeypatch, capsys):
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    main(["db", "status"])
    assert "数据库：" in capsys.readouterr().out
