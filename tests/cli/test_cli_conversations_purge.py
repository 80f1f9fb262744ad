"""`xiaoe conversations purge`: exactly the conversations older than the retention go, with every row of theirs;
the audit log keeps its rows and gains one saying what was removed. Store on both engines, CLI on SQLite."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from core.cli import main
from core.settings import Settings
from core.stores import audit
from core.stores.conversations import purge
from core.stores.db import Database, open_database
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations, exchanges, outbox
from core.stores.turns import TurnStore, conversation_turns
from core.values.conversations import Standalone

NOW = datetime.now(UTC)


def _conversation(db: Database, name: str, days_ago: float) -> None:
    at = NOW - timedelta(days=days_ago)
    db.migrate(EXCHANGES_SCHEMA)
    turns = TurnStore(db)
    with db.transaction() as conn:
        conv = conn.execute(conversations.insert().values(public_id=name, key_id=1, user="u", created_at=at,
                                                          last_at=at, handed_off_by="")).inserted_primary_key[0]
        exchange = conn.execute(exchanges.insert().values(
            message_id=f"msg_{name}", key_id=1, user="u", conversation_id=conv, client_msg_id=name, query="二级学费多少",
            query_hash="x", state="done", status="answered", answer="4200 元", created_at=at)).inserted_primary_key[0]
        conn.execute(outbox.insert().values(message_id=f"out_{name}", exchange_id=exchange, conversation_id=conv,
                                            key_id=1, user="u", status="answered", answer="…", released_at=at,
                                            released_by="顾问", webhook="none"))
        turns.record_in(conn, conversation_row=conv, exchange_id=exchange,
                        standalone=Standalone("二级学费多少", "二级学费多少"), decision="answered", refused=False)


def _names(db: Database) -> list[str]:
    with db.read() as conn:
        return sorted(conn.execute(select(conversations.c.public_id)).scalars().all())


def test_purge_removes_exactly_the_expired_conversations(database_url):
    db = Database(database_url)
    for name, days in (("old", 91), ("edge", 89.9), ("new", 1)):
        _conversation(db, name, days)
    audit.record(db, "admin", "login", "admin")
    done = purge(db, NOW - timedelta(days=90), actor="test", retention_days=90)
    assert done.conversations == 1 and dict(done.rows)["exchanges"] == 1 and dict(done.rows)["outbox"] == 1
    assert _names(db) == ["edge", "new"]
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(conversation_turns)).scalar_one() == 2
    actions = [e.action for e in audit.recent(db)]
    assert actions.count("conversations_purge") == 1 and "login" in actions  # audit rows stay
    db.dispose()


def test_purge_dry_run_removes_nothing(database_url):
    db = Database(database_url)
    _conversation(db, "old", 200)
    done = purge(db, NOW - timedelta(days=90), actor="test", retention_days=90, dry_run=True)
    assert done.conversations == 1 and _names(db) == ["old"]
    db.dispose()


def test_cli_purge_reads_the_retention_from_the_documents(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path))
    db = open_database(Settings.from_env().db_url)
    for name, days in (("a", 95), ("b", 30)):
        _conversation(db, name, days)
    assert main(["conversations", "purge"]) == 0
    out = capsys.readouterr().out
    assert "保存期 90 天（资料「对话记录保存 90 天，只用于服务质量复核。」）" in out and "已清除 1 个" in out
    assert _names(db) == ["b"]
    monkeypatch.setenv("XIAOE_RETENTION_DAYS", "7")
    assert main(["conversations", "purge", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["conversations"] == 1 and _names(db) == []
