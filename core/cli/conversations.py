"""`xiaoe conversations list|show|export|purge`: the record of students' conversations through the student service;
purge removes the conversations older than the retention (the documents' 「对话记录保存 90 天」, or
XIAOE_RETENTION_DAYS)."""

from __future__ import annotations

import argparse
import json
from datetime import timedelta

from core.cli.parser import int_between
from core.clock import utcnow
from core.errors import StoreError
from core.os_errors import os_reason
from core.settings import Settings
from core.stores.conversation_export import write_conversations
from core.stores.conversations import ConversationStore, purge
from core.stores.db import open_database
from core.values.exchanges import Exchange

STATUS_LABELS = {"answered": "已回答", "held": "待发送", "refused": "拒答", "handed_off": "已转人工", "": "处理中"}


def register(subparsers) -> None:
    conv = subparsers.add_parser("conversations", help="学员对话记录：列出、查看、导出")
    actions = conv.add_subparsers(dest="conversations_command", metavar="操作")

    listing = actions.add_parser("list", help="按最近活动列出会话")
    listing.add_argument("--search", default="", help="学员编号、会话编号或消息里的文字")
    listing.add_argument("--key", default="", help="只看这个密钥的会话")
    listing.add_argument("--days", type=int_between(1, 3650), default=None, help="只看最近几天有活动的")
    listing.add_argument("--limit", type=int_between(1, 10_000), default=50, help="最多列出几个（默认 50）")
    listing.add_argument("--json", action="store_true", help="以 JSON 输出")
    listing.set_defaults(handler=run_list)

    show = actions.add_parser("show", help="看一个会话的每条消息：学员原话、判断、回答、放行和反馈")
    show.add_argument("conversation_id", help="会话编号")
    show.add_argument("--json", action="store_true", help="以 JSON 输出")
    show.set_defaults(handler=run_show)

    export = actions.add_parser("export", help="把会话导出为 CSV 或 Excel 工作簿（.xlsx）")
    export.add_argument("file", metavar="文件.csv", help="导出文件（.csv 或 .xlsx）")
    export.add_argument("--search", default="", help="只导出匹配的会话")
    export.add_argument("--days", type=int_between(1, 3650), default=None, help="只导出最近几天有活动的")
    export.set_defaults(handler=run_export)

    purging = actions.add_parser("purge", help="清除超过保存期的会话记录（保存期按资料写的天数；部署设置里另设了天数时按设置）")
    purging.add_argument("--dry-run", action="store_true", help="只列出会清除多少，不删除")
    purging.add_argument("--json", action="store_true", help="以 JSON 输出")
    purging.set_defaults(handler=run_purge)
    conv.set_defaults(handler=lambda _args: (conv.print_help(), 2)[1])


def _store() -> ConversationStore:
    return ConversationStore(open_database(Settings.from_env().db_url))


def _since(days: int | None):
    return utcnow() - timedelta(days=days) if days else None


def run_list(args: argparse.Namespace) -> int:
    found = _store().list(search=args.search, key_name=args.key, since=_since(args.days), limit=args.limit)
    if args.json:
        print(json.dumps([{"conversation_id": c.id, "key": c.key_name, "user": c.user,
                           "created_at": c.created_at.isoformat(), "last_at": c.last_at.isoformat(),
                           "messages": c.messages, "waiting": c.waiting, "handed_off": c.handed_off} for c in found],
                         ensure_ascii=False, indent=2))
        return 0
    if not found:
        print("没有符合条件的会话。")
        return 0
    for c in found:
        extra = ("  已转人工" if c.handed_off else "") + (f"  待发送 {c.waiting} 条" if c.waiting else "")
        print(f"{c.id}  学员 {c.user}  {c.key_name}  {c.messages} 条  最近 {c.last_at.astimezone():%Y-%m-%d %H:%M}{extra}")
    return 0


def exchange_dict(e: Exchange) -> dict:
    return {"message_id": e.message_id, "client_msg_id": e.client_msg_id, "created_at": e.created_at.isoformat(),
            "query": e.query, "status": e.status, "answer": e.answer, "draft": e.draft or None,
            "reasons": [list(r) for r in e.reasons], "reused_id": e.reused_id, "item_id": e.item_id,
            "policy": e.policy, "gate_runs": e.gate_runs, "standalone": e.standalone, "read_as": e.read_as,
            "rules": list(e.rules), "derived_from": e.derived_from or None,
            "released": [{**r.to_dict(), "released_by": r.released_by} for r in e.released],
            "feedback": [f.to_dict() for f in e.feedback]}


def run_show(args: argparse.Namespace) -> int:
    store = _store()
    conversation = store.get(args.conversation_id)
    thread = store.thread(args.conversation_id)
    if args.json:
        print(json.dumps({"conversation_id": conversation.id, "key": conversation.key_name, "user": conversation.user,
                          "handed_off": conversation.handed_off, "messages": [exchange_dict(e) for e in thread]},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"会话 {conversation.id}  学员 {conversation.user}  密钥 {conversation.key_name}"
          + ("  已转人工" if conversation.handed_off else ""))
    for e in thread:
        print(f"\n[{e.created_at.astimezone():%m-%d %H:%M:%S}] 学员：{e.query}")
        if e.standalone and e.standalone != e.query:
            print(f"  独立问题（由 {e.derived_from or '上一句'} 推出，{'、'.join(e.rules)}）：{e.standalone}")
        print(f"  小E（{STATUS_LABELS.get(e.status, e.status)}）：{e.answer}")
        if e.draft:
            print(f"  草稿（未给学员看）：{e.draft}")
        for code, message in e.reasons:
            print(f"  · {code}：{message}")
        if e.item_id:
            print(f"  复核条目 #{e.item_id}")
        for r in e.released:
            print(f"  [{r.released_at.astimezone():%m-%d %H:%M:%S}] 放行（{r.released_by}）：{r.answer}")
        for f in e.feedback:
            print(f"  反馈：{f.rating or '已撤回'} {'、'.join(f.reasons)} {f.content}".rstrip())
    return 0


def run_purge(args: argparse.Namespace) -> int:
    from core.conversations.handoff import retention_in_force
    from core.facts import read_facts

    settings = Settings.from_env()
    files = sorted(settings.corpus_dir.glob("*.md"))
    facts = read_facts([(p.name, p.read_text(encoding="utf-8-sig", errors="replace")) for p in files])
    days = retention_in_force(facts, settings)
    if days is None:
        print("资料里没有写明对话记录保存多久（应有一句像「对话记录保存 90 天」的话），也没有设置 "
              "XIAOE_RETENTION_DAYS：不清除任何记录。请在资料里写明保存期，或设置 XIAOE_RETENTION_DAYS。")
        return 1
    if settings.retention_days:
        source = "XIAOE_RETENTION_DAYS"
    else:
        assert facts.retention_days is not None  # retention_in_force read the days from it
        source = f"资料「{facts.retention_days.source.sentence}」"
    done = purge(open_database(settings.db_url), utcnow() - timedelta(days=days), actor="命令行（conversations purge）",
                 retention_days=days, dry_run=args.dry_run)
    if args.json:
        print(json.dumps({"retention_days": days, "before": done.before.isoformat(), "dry_run": args.dry_run,
                          "conversations": done.conversations, "rows": dict(done.rows)}, ensure_ascii=False, indent=2))
        return 0
    verb = "会清除" if args.dry_run else "已清除"
    print(f"保存期 {days} 天（{source}）：{verb} {done.conversations} 个最后活动早于 "
          f"{done.before.astimezone():%Y-%m-%d %H:%M} 的会话。")
    for name, count in done.rows:
        print(f"  {name}：{count} 行")
    if not args.dry_run:
        print("操作记录（审计日志）和复核队列里的条目保留不动。")
    return 0


def run_export(args: argparse.Namespace) -> int:
    store = _store()
    try:
        count = write_conversations(store.iter_exchanges(search=args.search, since=_since(args.days)), args.file)
    except OSError as error:
        raise StoreError(f"无法写入导出文件「{args.file}」（{os_reason(error)}），请换一个有写入权限的位置。") from None
    print(f"已导出 {count} 条消息到 {args.file}")
    return 0
