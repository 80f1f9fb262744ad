"""`xiaoe keys add|list|revoke`: the student service's API keys. The secret is printed once, when the key is made."""

from __future__ import annotations

import argparse
import json

from core.cli.runs import actor
from core.settings import Settings
from core.stores.api_keys import KeyStore
from core.stores.conversations import ConversationStore
from core.stores.db import open_database
from core.stores.roles import User
from core.values.exchanges import POLICIES, POLICY_LABELS


def register(subparsers) -> None:
    keys = subparsers.add_parser("keys", help="学员服务的接口密钥（给学校应用用）：新建、列出、停用")
    actions = keys.add_subparsers(dest="keys_command", metavar="操作")

    add = actions.add_parser("add", help="新建一个密钥（密钥只显示这一次，请立刻交给学校应用的开发人员保存）")
    add.add_argument("name", help="密钥名称（英文字母、数字、点、下划线、连字符）")
    add.add_argument("--scopes", default="chat,feedback", help="权限范围，逗号分隔：chat（提问）、feedback（反馈）；默认两者都有")
    add.add_argument("--release", default="all", choices=POLICIES,
                     help="放行策略：all（默认，每条回答先由顾问审）、flagged（有疑点的先审）、auto（检查不通过的先审）")
    add.add_argument("--webhook", default="", help="顾问放行回答后推送到的网址（不填则由学校应用自己来取）")
    add.add_argument("--json", action="store_true", help="以 JSON 输出名称、密钥和回调签名密钥")
    add.set_defaults(handler=run_add)

    listing = actions.add_parser("list", help="列出全部密钥（不显示密钥本身）")
    listing.add_argument("--json", action="store_true", help="以 JSON 输出")
    listing.set_defaults(handler=run_list)

    revoke = actions.add_parser("revoke", help="停用一个密钥（所有服务实例立即拒绝它，不能恢复）")
    revoke.add_argument("name", help="密钥名称")
    revoke.set_defaults(handler=run_revoke)

    keys.set_defaults(handler=lambda _args: (keys.print_help(), 2)[1])


def _store() -> KeyStore:
    return KeyStore(open_database(Settings.from_env().db_url))


def _operator() -> User:
    """Whoever can run this command has the database: they act as an admin, named as the command line."""
    name = actor()
    return User(name, name, "admin")


def run_add(args: argparse.Namespace) -> int:
    made = _store().add(_operator(), args.name, scopes=args.scopes, release=args.release, webhook=args.webhook)
    if args.json:
        print(json.dumps({"name": made.key.name, "key": made.secret, "webhook_secret": made.webhook_secret},
                         ensure_ascii=False))
        return 0
    print(f"已新建密钥「{made.key.name}」：权限 {','.join(made.key.scopes)}，放行策略 {POLICY_LABELS[made.key.policy]}"
          + (f"，回调 {made.key.webhook_url}" if made.key.webhook_url else "，无回调（App 轮询）"))
    print(f"密钥（只显示这一次）：{made.secret}")
    print(f"回调签名密钥（校验 X-Xiaoe-Signature 用，只显示这一次）：{made.webhook_secret}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    store = _store()
    found = store.list()
    counts = ConversationStore(store.db)
    rows = [{"name": k.name, "prefix": k.prefix, "scopes": list(k.scopes), "release": k.policy,
             "webhook": k.webhook_url or None, "created_at": k.created_at.isoformat(), "created_by": k.created_by,
             "last_used_at": k.last_used_at.isoformat() if k.last_used_at else None,
             "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
             "messages_today": counts.today(k.id)} for k in found]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("还没有密钥：用 xiaoe keys add 名称 新建一个。")
        return 0
    for k, row in zip(found, rows):
        state = f"已停用（{k.revoked_at.astimezone():%Y-%m-%d %H:%M}）" if k.revoked_at else "使用中"
        used = f"{k.last_used_at.astimezone():%Y-%m-%d %H:%M}" if k.last_used_at else "从未"
        print(f"{k.name}  {k.prefix}…  {state}  权限 {','.join(k.scopes)}  放行 {k.policy}  最近使用 {used}  "
              f"今天 {row['messages_today']} 条" + (f"  回调 {k.webhook_url}" if k.webhook_url else ""))
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    key = _store().revoke(_operator(), args.name)
    print(f"已停用密钥「{key.name}」：所有服务实例从下一个请求起拒绝它。")
    return 0
