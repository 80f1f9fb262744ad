"""`python -m core users ...`: create, list, disable/enable staff accounts and reset passwords.

Passwords are read with getpass on a terminal (asked twice), or as one line from stdin when
stdin is not a terminal or `--password-stdin` is given (scripts, CI). They are never echoed,
printed or passed on the command line, where `ps` and shell history would keep them.
"""

from __future__ import annotations

import getpass
import sys

from core.errors import AccountError
from core.settings import Settings
from core.stores.accounts import ROLES, AccountStore, normalize_username
from core.stores.db import open_database
from core.stores.sessions import SessionStore


def register(subparsers) -> None:
    parser = subparsers.add_parser("users", help="管理员工账号：新建、列出、停用、重设密码",
                                   description="管理员工账号。第一个管理员：python -m core users add 用户名 --admin")
    parser.set_defaults(handler=lambda _args: parser.print_help() or 2)
    sub = parser.add_subparsers(dest="users_command", metavar="操作")

    add = sub.add_parser("add", help="新建账号（默认角色：顾问；加 --admin 为管理员）")
    add.add_argument("name", help="用户名：2–64 个字母、数字、汉字或 . _ - @")
    add.add_argument("--admin", action="store_true", help="设为管理员（可改阈值、管理资料和账号、查看设置）")
    add.add_argument("--display-name", help="显示名，例如「张老师」；默认同用户名")
    add.add_argument("--email", help="单位邮箱，用于「使用单位账号登录」")
    add.add_argument("--password-stdin", action="store_true", help="从标准输入读一行作为密码（用于脚本）")
    add.set_defaults(handler=_add)

    listing = sub.add_parser("list", help="列出所有账号")
    listing.set_defaults(handler=_list)

    for name, text, disabled in (("disable", "停用账号（不能再登录，已登录的会被退出）", True),
                                 ("enable", "重新启用已停用的账号", False)):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("name", help="用户名")
        cmd.set_defaults(handler=lambda args, d=disabled: _set_disabled(args, d))

    passwd = sub.add_parser("passwd", help="重设账号密码（同时解除登录锁定，并让这个账号的所有登录退出）")
    passwd.add_argument("name", help="用户名")
    passwd.add_argument("--password-stdin", action="store_true", help="从标准输入读一行作为密码（用于脚本）")
    passwd.set_defaults(handler=_passwd)

    unlock = sub.add_parser("unlock", help="解除登录锁定（某个用户名的所有来源，或某个来源地址），不改密码；--list 列出锁定",
                            description="解除登录锁定。不带参数或加 --list 时列出现在所有的锁定。")
    unlock.add_argument("name", nargs="?", help="用户名（没有这个账号也可以解除，锁定按输入的用户名记录）")
    unlock.add_argument("--source", metavar="地址",
                        help="解除一个来源地址的锁定（连同从它登录的各个用户名），如 203.0.113.9；写「未知」表示未知来源（本机、命令行、没有登记的代理）")
    unlock.add_argument("--list", action="store_true", help="列出现在所有的登录锁定和重试等待")
    unlock.set_defaults(handler=_unlock)

    edit = sub.add_parser("edit", help="修改账号的显示名或邮箱")
    edit.add_argument("name", help="用户名")
    edit.add_argument("--display-name", help="新的显示名，例如「张老师」")
    edit.add_argument("--email", help="新的单位邮箱；写空字符串 \"\" 表示去掉邮箱")
    edit.set_defaults(handler=_edit)

    role = sub.add_parser("role", help="修改角色：consultant（顾问）或 admin（管理员）")
    role.add_argument("name", help="用户名")
    role.add_argument("role", choices=sorted(ROLES), help="新角色")
    role.set_defaults(handler=_role)


def _store() -> AccountStore:
    return AccountStore(open_database(Settings.from_env().db_url))


def _actor() -> str:
    try:
        return f"命令行:{getpass.getuser()}"
    except (OSError, KeyError):  # no login name in some containers
        return "命令行"


def read_password(*, from_stdin: bool) -> str:
    """One line from stdin (scripts), else asked twice on the terminal without echo."""
    if from_stdin or not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("新密码（至少 10 个字符，输入时不显示）：")
    if getpass.getpass("再输入一次：") != first:
        raise AccountError("两次输入的密码不一致，账号没有改动，请重新运行命令。")
    return first


def _add(args) -> int:
    store = _store()
    password = read_password(from_stdin=args.password_stdin)
    account = store.add(args.name, password, actor=_actor(), role="admin" if args.admin else "consultant",
                        display_name=args.display_name, email=args.email)
    print(f"已新建{account.role_label}账号「{account.username}」（显示名：{account.display_name}）。"
          "现在可以用它登录小E 审核台。")
    return 0


def _list(_args) -> int:
    store = _store()
    accounts = store.list()
    if not accounts:
        print("还没有任何账号。新建第一个管理员：python -m core users add 用户名 --admin")
        return 0
    locks = SessionStore(store).locks()
    print("用户名\t显示名\t角色\t状态\t登录锁定\t邮箱\t最近登录")
    for a in accounts:
        last = a.last_login_at.astimezone().strftime("%Y-%m-%d %H:%M") if a.last_login_at else "从未登录"
        until = max((lock.until for lock in locks if lock.username == a.username), default=None)
        lock = f"锁定到 {until.astimezone():%H:%M}（解除：users unlock {a.username}）" if until else "-"
        print(f"{a.username}\t{a.display_name}\t{a.role_label}\t{'已停用' if a.disabled else '可用'}\t{lock}\t"
              f"{a.email or '-'}\t{last}")
    if any(lock.username is None for lock in locks):
        print("另有来源地址被暂停登录，运行 users unlock --list 查看。")
    return 0


def _set_disabled(args, disabled: bool) -> int:
    account = _store().set_disabled(args.name, disabled, actor=_actor())
    print(f"账号「{account.username}」已{'停用' if disabled else '重新启用'}。")
    return 0


def _passwd(args) -> int:
    store = _store()
    account = store.get(args.name)
    SessionStore(store).reset_password(account.username, read_password(from_stdin=args.password_stdin), actor=_actor())
    print(f"账号「{account.username}」的密码已重设，这个账号的所有登录已退出，登录锁定（如有）已解除。")
    return 0


def _unlock(args) -> int:
    sessions = SessionStore(_store())
    if args.source is not None:
        source = None if args.source.strip().lower() in ("", "未知", "unknown", "本机") else args.source
        lifted = sessions.unlock_source(source or "", actor=_actor())
        shown = "未知来源" if source is None else f"来源 {source}"
        print(f"{shown}的登录锁定已解除（{lifted} 项），失败次数已清零。" if lifted
              else f"{shown}现在没有登录锁定，失败次数已清零。")
    if args.name:
        sessions.unlock(args.name, actor=_actor())
        print(f"「{normalize_username(args.name)}」的登录锁定（如有）已解除，失败次数已清零。")
    if args.list or (args.source is None and not args.name):
        _print_locks(sessions)
    return 0


def _print_locks(sessions: SessionStore) -> None:
    locks = sessions.locks()
    if not locks:
        print("现在没有任何登录锁定。")
        return
    print("锁定对象\t到\t解除命令")
    for lock in locks:
        if lock.kind == "source":
            how = f"users unlock --source {lock.source}"
        else:
            how = f"users unlock {lock.username}"
        print(f"{lock.description}\t{lock.until.astimezone():%Y-%m-%d %H:%M:%S}\t{how}")


def _edit(args) -> int:
    if args.display_name is None and args.email is None:
        print("错误：请至少给出 --display-name 或 --email 其中一项。", file=sys.stderr)
        return 2
    account = _store().set_profile(args.name, actor=_actor(), display_name=args.display_name, email=args.email)
    print(f"账号「{account.username}」现在的显示名：{account.display_name}，邮箱：{account.email or '（无）'}。")
    return 0


def _role(args) -> int:
    account = _store().set_role(args.name, args.role, actor=_actor())
    print(f"账号「{account.username}」的角色现在是{account.role_label}。")
    return 0
