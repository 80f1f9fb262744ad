"""What an account's values may be: the user name (folded, one script), the role, the display name and the email.

Each check returns the value as it will be stored or raises AccountError saying, in Chinese, what to change.
Whether a name looks like another existing one needs the table, so that check is in core.stores.accounts.
"""

from __future__ import annotations

import re
import unicodedata

from core.errors import AccountError
from core.stores.password_policy import fold
from core.stores.roles import ROLES
from core.stores.user_names import script_problem

USERNAME_RE = re.compile(r"^[\w.@-]{2,64}$")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MAX_DISPLAY_CHARS = 50


def normalize_username(value: str) -> str:
    """NFKC, trimmed, case-folded: 'Admin', 'admin' and full-width 'ａｄｍｉｎ' are one account."""
    return fold(value.strip()) if isinstance(value, str) else ""


def valid_username(value: str) -> str:
    key = normalize_username(value)
    if not USERNAME_RE.match(key):
        raise AccountError(f"用户名「{key[:70]}」不可用：需要 2 到 64 个字符，只能包含字母、数字、汉字和 . _ - @。")
    problem = script_problem(key)
    if problem:
        raise AccountError(problem)
    return key


def valid_role(role: str) -> str:
    for code, label in ROLES.items():
        if role in (code, label):
            return code
    raise AccountError(f"角色「{role}」不存在，可选：consultant（顾问）、admin（管理员）。")


def valid_display_name(value: str) -> str:
    name = " ".join(unicodedata.normalize("NFC", value).split())
    if len(name) > MAX_DISPLAY_CHARS:
        raise AccountError(f"显示名有 {len(name)} 个字，最多 {MAX_DISPLAY_CHARS} 个字，请缩短后再保存（例如「张老师」）。")
    if not name or any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        raise AccountError(f"显示名需要 1 到 {MAX_DISPLAY_CHARS} 个字，且不能含控制字符。")
    return name


def valid_email(value: str | None) -> str | None:
    if not value or not value.strip():
        return None
    mail = normalize_username(value)
    if len(mail) > 254 or not EMAIL_RE.match(mail):
        raise AccountError(f"邮箱「{mail[:60]}」格式不对，应类似 name@example.com。")
    return mail
