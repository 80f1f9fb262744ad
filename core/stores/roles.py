"""Roles and permissions: the one table of what a 顾问 and a 管理员 may do, and `require` to enforce it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection

from core.errors import AuthError

# Run first inside a state-changing transaction with (connection, permission): the user whose live
# session may do it, else AuthError and the transaction rolls back. core.stores.sessions.SessionStore.guard
# makes one from a session token; stores take it as `authorize=` (None: the CLI or XIAOE_AUTH=off).
Authorize = Callable[[Connection, str], "User"]
SYSTEM_ACTOR = "小E"  # who acts when no person does (automatic queueing, sign-in bookkeeping)

ROLES = {"consultant": "顾问", "admin": "管理员"}

# permission -> (what it is called in messages, roles that have it). The one place roles are decided.
PERMISSIONS: dict[str, tuple[str, frozenset[str]]] = {
    "ask": ("提问", frozenset({"consultant", "admin"})),
    "flag": ("标记回答", frozenset({"consultant", "admin"})),
    "review": ("复核回答", frozenset({"consultant", "admin"})),
    "export": ("导出复核队列", frozenset({"consultant", "admin"})),
    "propose_synonym": ("提议同义词", frozenset({"consultant", "admin"})),
    "edit_glossary": ("修改同义词表或批准提议", frozenset({"admin"})),
    "set_threshold": ("修改默认阈值", frozenset({"admin"})),
    "edit_corpus": ("上传或修改资料文件", frozenset({"admin"})),
    "rebuild_index": ("重建资料索引", frozenset({"admin"})),
    "edit_question_sets": ("保存标注题集的新版本", frozenset({"admin"})),
    "manage_accounts": ("管理账号", frozenset({"admin"})),
    "view_settings": ("查看设置", frozenset({"admin"})),
    "retire_answer": ("停用已审答案", frozenset({"admin"})),
    "link_question": ("把问法加入已审答案", frozenset({"consultant", "admin"})),
    "mark_baseline": ("设定基准运行", frozenset({"admin"})),
    "manage_keys": ("管理学员服务的接口密钥", frozenset({"admin"})),
    "manage_sensitive": ("管理敏感词表", frozenset({"admin"})),
    "purge_conversations": ("清除过期的对话记录", frozenset({"admin"})),
}


@dataclass(frozen=True)
class User:
    """Who is signed in: what the pages need to attribute and authorise an action."""

    username: str
    display_name: str
    role: str

    @property
    def role_label(self) -> str:
        return ROLES.get(self.role, self.role)

    @property
    def label(self) -> str:
        """Name shown as reviewer/actor: unambiguous even when two people share a display name."""
        if self.display_name == self.username:
            return self.username
        return f"{self.display_name}（{self.username}）"

    def can(self, permission: str) -> bool:
        return self.role in _permission(permission)[1]


def require(user: User | None, permission: str) -> User:
    """Return `user` if their role has `permission`, else raise AuthError saying who may do it."""
    what, roles = _permission(permission)
    if user is None:
        raise AuthError(f"请先登录，再{what}。")
    if user.role not in roles:
        allowed = "、".join(ROLES[r] for r in ROLES if r in roles)
        raise AuthError(f"你的角色是「{user.role_label}」，不能{what}（仅限{allowed}）。如有需要，请联系管理员。")
    return user


def _permission(permission: str) -> tuple[str, frozenset[str]]:
    if permission not in PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}; known: {', '.join(PERMISSIONS)}")
    return PERMISSIONS[permission]


def checked(conn, authorize: Authorize | None, permission: str) -> None:
    """Run the session check `authorize` (core.stores.sessions.SessionStore.guard) first inside a
    state-changing transaction; nothing when sign-in is off (authorize is None)."""
    if authorize is not None:
        authorize(conn, permission)
