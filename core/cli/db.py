"""`python -m core db upgrade|status`: bring every table of the configured database up to date, or show its versions.

Stores migrate themselves when opened; this command exists so that an upgrade can run once, as the
database owner, before the console starts under an application role that may not change tables
(see docs/postgresql.md). Several processes may run it at once: migrations hold the database's lock.
"""

from __future__ import annotations

import argparse

from core.endpoints import safe_db_url
from core.settings import Settings
from core.stores.db import Schema, open_database
from core.stores.schemas import SCHEMAS


def register(subparsers) -> None:
    db = subparsers.add_parser("db", help="数据库：升级表结构或查看版本")
    actions = db.add_subparsers(dest="db_command", metavar="操作")
    actions.add_parser("upgrade", help="把所有表升级到当前版本（可重复运行，多个进程同时运行也安全）"
                       ).set_defaults(handler=run_upgrade)
    actions.add_parser("status", help="查看每个部分已应用和待应用的版本").set_defaults(handler=run_status)
    db.set_defaults(handler=lambda _args: _help(db))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _pending(db, schema: Schema) -> list[int]:
    done = set(db.applied(schema.component))
    return [m.version for m in schema.migrations if m.version not in done]


def run_upgrade(_args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    db = open_database(settings.db_url)
    print(f"数据库：{safe_db_url(settings.db_url)}")
    for schema in SCHEMAS:
        pending = _pending(db, schema)
        db.migrate(schema)
        done = "、".join(f"#{v}" for v in pending)
        print(f"  {schema.component}：" + (f"已升级（{done}）" if pending else "已是最新"))
    return 0


def run_status(_args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    db = open_database(settings.db_url)
    print(f"数据库：{safe_db_url(settings.db_url)}")
    behind = 0
    for schema in SCHEMAS:
        pending = _pending(db, schema)
        behind += len(pending)
        applied = "、".join(f"#{v}" for v in db.applied(schema.component)) or "无"
        waiting = "；待升级 " + "、".join(f"#{v}" for v in pending) if pending else ""
        print(f"  {schema.component}：已应用 {applied}{waiting}")
    if behind:
        print("有待升级的版本：请用数据库所有者账号运行 python -m core db upgrade。")
    return 1 if behind else 0
