"""What a new password must be (length, variety, not common, not the user name), and the name folding it shares.

ASVS 5.0 (2.1.1) asks for at least 12 characters, 8 with MFA. 10 is our choice for a staff
console without MFA whose few dozen users type it daily, together with the shipped list of the
most common passwords, the user-name check and the per-source lockout (core/stores/login_throttle.py).
It deliberately leaves out composition rules (a digit, a capital…), which ASVS advises against.
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

from core.errors import XiaoEError

MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 256
MIN_DISTINCT_CHARS = 4  # "aaaaaaaaaa" and "ababababab" are long but guessed first
COMMON_PASSWORDS_FILE = Path(__file__).resolve().parents[1] / "data" / "common_passwords.txt"


class AccountError(XiaoEError):
    """An account value cannot be accepted (name taken, password too short...); the message says what to change."""


def fold(text: str) -> str:
    """NFKC and case-folded: 'Admin', 'admin' and full-width 'ａｄｍｉｎ' compare equal."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@functools.cache
def common_passwords() -> frozenset[str]:
    """The shipped list of the most common passwords (core/data/common_passwords.txt), folded."""
    lines = COMMON_PASSWORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(fold(line.strip()) for line in lines if line.strip() and not line.startswith("#"))


def check_new_password(password: str, username: str, email: str | None = None) -> str:
    """`password` if it may be set for `username` (already folded), else AccountError saying why."""
    # Messages name lengths and rules only: a password never appears in a message.
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_CHARS or not password.strip():
        raise AccountError(f"密码至少需要 {MIN_PASSWORD_CHARS} 个字符（不能全是空格），请换一个更长的密码。")
    if len(password) > MAX_PASSWORD_CHARS:
        raise AccountError(f"密码最多 {MAX_PASSWORD_CHARS} 个字符，请换一个短一些的密码。")
    folded = fold(password.strip())
    if folded in {username, email, username.split("@")[0]}:
        raise AccountError("密码不能和用户名或邮箱相同，请换一个别人猜不到的密码。")
    if len(set(folded)) < MIN_DISTINCT_CHARS:
        raise AccountError(f"密码至少要有 {MIN_DISTINCT_CHARS} 个不同的字符（不能是 aaaaaaaaaa 这样的重复），请换一个。")
    if folded in common_passwords():
        raise AccountError("这个密码是最常见的密码之一，很容易被猜到，请换一个。可以用三四个不相关的词加数字，"
                           "例如「蓝色 书架 42 跑步」。")
    return password
