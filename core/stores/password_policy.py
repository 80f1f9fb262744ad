"""What a new password must be (length, variety, not common, not guessable, not the user name), and the name folding it shares.

ASVS 5.0 (2.1.1) asks for at least 12 characters, 8 with MFA. 10 is our choice for a staff
console without MFA whose few dozen users type it daily, together with:
- a real list of common passwords: zxcvbn's 30,000 most common (ranked from Mark Burnett's 2015
  10-million password corpus, shipped inside zxcvbn under its MIT licence; docs/dependencies.md) plus
  the shipped core/data/common_passwords.txt (common Chinese ones among them),
  checked whole and with the digits and symbols people add at the end taken off ("Password1!");
- zxcvbn's estimate of how many guesses the password takes (keyboard walks, l33t, dates, repeats,
  dictionary words with suffixes), at least 10^8 (zxcvbn's score 3: safe against online guessing
  and slow against an offline attack on argon2id);
- the user name, the email's name and the display name, forwards or backwards, nowhere inside;
- the per-source lockout (core/stores/login_throttle.py).
It deliberately leaves out composition rules (a digit, a capital…), which ASVS advises against.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from pathlib import Path

from core.errors import AccountError

MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 256
MIN_DISTINCT_CHARS = 4  # "aaaaaaaaaa" and "ababababab" are long but guessed first
MIN_GUESSES_LOG10 = 8.0  # zxcvbn's score 3
MIN_NAME_CHARS_INSIDE = 3  # a 2-letter name ("li") inside a password is chance, not a hint
MIN_PART_CHARS = 4  # likewise "lei" of li.lei on its own ("sleigh")
ZXCVBN_MAX_CHARS = 72  # zxcvbn refuses longer input; a longer password is judged on its first 72 characters
COMMON_PASSWORDS_FILE = Path(__file__).resolve().parents[1] / "data" / "common_passwords.txt"
# Words anyone guessing a password for this console would try first.
CONTEXT_WORDS = ("xiaoe", "qiming", "启明", "小e", "admin", "consultant", "guwen", "laoshi", "teacher")
_SUFFIX = re.compile(r"[\W\d_]+$")
_NOT_ALNUM = re.compile(r"[\W_]+")
_ZXCVBN_LOCK = threading.Lock()  # zxcvbn keeps the user inputs in a module-level dictionary




def fold(text: str) -> str:
    """NFKC and case-folded: 'Admin', 'admin' and full-width 'ａｄｍｉｎ' compare equal."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@functools.cache
def common_passwords() -> frozenset[str]:
    """zxcvbn's 30,000 most common passwords and the shipped list (core/data/common_passwords.txt), folded."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    lines = COMMON_PASSWORDS_FILE.read_text(encoding="utf-8").splitlines()
    shipped = (line.strip() for line in lines if line.strip() and not line.startswith("#"))
    return frozenset(fold(word) for word in (*FREQUENCY_LISTS["passwords"], *shipped))


def guesses_log10(password: str, hints: tuple[str, ...] = ()) -> float:
    """zxcvbn's estimate (log10 of the guesses needed), with `hints` (names) counted as known words."""
    from zxcvbn import zxcvbn

    with _ZXCVBN_LOCK:
        return float(zxcvbn(password[:ZXCVBN_MAX_CHARS], user_inputs=[*hints, *CONTEXT_WORDS])["guesses_log10"])


def check_new_password(password: str, username: str, email: str | None = None,
                       display_name: str | None = None) -> str:
    """`password` if it may be set for `username` (already folded), else AccountError saying why."""
    # Messages name lengths and rules only: a password never appears in a message.
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_CHARS or not password.strip():
        raise AccountError(f"密码至少需要 {MIN_PASSWORD_CHARS} 个字符（不能全是空格），请换一个更长的密码。")
    if len(password) > MAX_PASSWORD_CHARS:
        raise AccountError(f"密码最多 {MAX_PASSWORD_CHARS} 个字符，请换一个短一些的密码。")
    folded = fold(password.strip())
    names = _names(username, email, display_name)
    if folded in {username, email, username.split("@")[0]} or _contains_a_name(folded, names):
        raise AccountError("密码不能包含用户名、邮箱名或显示名（正着写、倒着写都不行），请换一个别人猜不到的密码。")
    if len(set(folded)) < MIN_DISTINCT_CHARS:
        raise AccountError(f"密码至少要有 {MIN_DISTINCT_CHARS} 个不同的字符（不能是 aaaaaaaaaa 这样的重复），请换一个。")
    common = common_passwords()
    if folded in common or _SUFFIX.sub("", folded) in common:
        raise AccountError("这个密码是最常见的密码之一（或只在常见密码后面加了数字、符号），很容易被猜到，请换一个。"
                           "可以用三四个不相关的词加数字，例如「蓝色 书架 42 跑步」。")
    if guesses_log10(password, tuple(names)) < MIN_GUESSES_LOG10:
        raise AccountError("这个密码很容易被猜到（例如键盘上连着的键、常用词加年份或数字、重复的片段），请换一个。"
                           "可以用三四个不相关的词加数字，例如「蓝色 书架 42 跑步」。")
    return password


def _names(username: str, email: str | None, display_name: str | None) -> list[str]:
    """The folded names a password may not contain: the user name, the email's name and the display name whole
    (3 letters or more), and their parts of 4 letters or more ("zhang" of zhang.wei, not "li" of li.lei)."""
    whole = {username, username.split("@")[0]}
    if email:
        whole.add(fold(email).split("@")[0])
    if display_name:
        whole.add(fold(display_name))
    parts = {part for name in whole for part in re.split(r"[\s.\-_+@]+", name) if len(part) >= MIN_PART_CHARS}
    return sorted(n for n in whole | parts if len(_NOT_ALNUM.sub("", n)) >= MIN_NAME_CHARS_INSIDE)


def _contains_a_name(folded: str, names: list[str]) -> bool:
    bare = _NOT_ALNUM.sub("", folded)
    for name in names:
        plain = _NOT_ALNUM.sub("", name)
        for form in (name, plain):
            if len(form) >= MIN_NAME_CHARS_INSIDE and (form in folded or form[::-1] in folded
                                                        or form in bare or form[::-1] in bare):
                return True
    return False
