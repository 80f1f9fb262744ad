"""Mask a student's personal data before anything is stored or logged: mainland mobile numbers, 身份证 numbers (18 digits
with their check digit, and the old 15 with a valid birth date), bank card numbers (Luhn), e-mail addresses, and WeChat /
QQ ids after their cue words (core/data/privacy_words.txt).

`KINDS` is the program: each named detector finds its spans in the text (full-width digits and letters read as ASCII),
in this order, and a later one never takes a span an earlier one took (an 18-digit 身份证 is no bank card). Each value
becomes a typed placeholder, 〔手机号1〕; `known` entries (the conversation's earlier ones) keep the same value on the
same placeholder, recognised by a keyed digest, so the raw value itself is never kept anywhere.

Never masked: amounts, dates, levels, lesson counts and times — no detector takes fewer than 11 digits except the QQ
and WeChat ids, which need their cue word before them (「QQ 12345678」), so 「4200 元」「2024年3月1日」「上了6节」 stay.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache

from core.errors import ConfigError
from core.language.words import DATA

WORDS_FILE = "privacy_words.txt"
# Full-width digits, letters and @ read as their ASCII twins, one character for one, so spans stay where they are.
_FOLD = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_EDGE_BEFORE = r"(?<![0-9A-Za-z])"
_EDGE_AFTER = r"(?![0-9A-Za-z])"
_MOBILE_RE = re.compile(_EDGE_BEFORE + r"(?:\+?86[-\s]?)?(1[3-9]\d)[-\s]?(\d{4})[-\s]?(\d{4})" + _EDGE_AFTER)
_ID18_RE = re.compile(_EDGE_BEFORE + r"\d{17}[\dXx]" + _EDGE_AFTER)
_ID15_RE = re.compile(_EDGE_BEFORE + r"\d{15}" + _EDGE_AFTER)
_CARD_RE = re.compile(_EDGE_BEFORE + r"(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,3})?)" + _EDGE_AFTER)
_EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_WECHAT_ID_RE = re.compile(r"[A-Za-z][-_A-Za-z0-9]{5,19}" + _EDGE_AFTER + r"|[1-9]\d{4,11}" + _EDGE_AFTER)
_QQ_ID_RE = re.compile(r"[1-9]\d{4,11}" + _EDGE_AFTER)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


@dataclass(frozen=True)
class MaskEntry:
    """One value masked in a conversation: its kind, the keyed digest that recognises it again, its placeholder."""

    kind: str
    digest: str
    placeholder: str


@dataclass(frozen=True)
class Masked:
    """A text with its personal data replaced; `entries` are the values it held, `new` those not in `known`."""

    text: str
    entries: tuple[MaskEntry, ...] = ()
    new: tuple[MaskEntry, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.kind for e in self.entries))


@cache
def words() -> dict[str, tuple[str, ...]]:
    """{name: words, longest first} from core/data/privacy_words.txt."""
    out: dict[str, tuple[str, ...]] = {}
    for line in (DATA / WORDS_FILE).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#") or "：" not in line:
            continue
        name, _, listed = line.partition("：")
        name = name.strip()
        listed_words = listed.split() if name.startswith("label.") else [w.lower() for w in listed.split()]
        out[name] = tuple(sorted(set(listed_words), key=lambda w: (-len(w), w)))
    return out


def _fold(text: str) -> str:
    return text.translate(_FOLD)


# -- the detectors: folded text -> (start, end, value) -----------------------------------------------------------

Span = tuple[int, int, str]


def mobile(text: str) -> Iterable[Span]:
    """13812345678, 138 1234 5678, +86-138-1234-5678."""
    for m in _MOBILE_RE.finditer(text):
        yield m.start(), m.end(), "".join(m.groups())


def _birth_date(year: int, month: int, day: int) -> bool:
    try:
        return date(year, month, day) <= date.today() and year >= 1900
    except ValueError:
        return False


def id_card(text: str) -> Iterable[Span]:
    """An 18-digit 身份证 whose last character is its ISO 7064 check digit and whose birth date exists; the old
    15-digit one (no check digit) by its birth date 19YYMMDD."""
    for m in _ID18_RE.finditer(text):
        value = m.group().upper()
        check = _ID_CHECK[sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True)) % 11]
        if value[17] == check and _birth_date(int(value[6:10]), int(value[10:12]), int(value[12:14])):
            yield m.start(), m.end(), value
    for m in _ID15_RE.finditer(text):
        value = m.group()
        if _birth_date(1900 + int(value[6:8]), int(value[8:10]), int(value[10:12])):
            yield m.start(), m.end(), value


def luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def bank_card(text: str) -> Iterable[Span]:
    """13 to 19 digits, together or in groups of four, passing the Luhn check."""
    for m in _CARD_RE.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if 13 <= len(digits) <= 19 and luhn(digits):
            yield m.start(), m.end(), digits


def email(text: str) -> Iterable[Span]:
    for m in _EMAIL_RE.finditer(text):
        yield m.start(), m.end(), m.group().lower()


def _after_cue(text: str, cues: tuple[str, ...], ids: re.Pattern[str]) -> Iterable[Span]:
    """An id matching `ids` right after one of `cues`, joiner words and spaces between them allowed."""
    lowered = text.lower()
    # Joiners, and cue words without Latin letters (「加我微信」); a Latin cue (wx) may begin the id itself.
    skippable = words()["joiner"] + tuple(w for w in words()["wechat_cue"] + words()["qq_cue"]
                                          if not any("a" <= c <= "z" for c in w))
    position = 0
    while True:
        found = [(lowered.find(cue, position), cue) for cue in cues]
        found = [(i, cue) for i, cue in found if i >= 0]
        if not found:
            return
        start, cue = min(found, key=lambda f: (f[0], -len(f[1])))
        at = start + len(cue)
        moved = True
        while moved:
            moved = False
            while at < len(text) and text[at].isspace():
                at += 1
            for word in skippable:
                if lowered.startswith(word, at):
                    at += len(word)
                    moved = True
                    break
        m = ids.match(text, at)
        if m:
            yield m.start(), m.end(), m.group().lower()
        position = start + len(cue)


def wechat(text: str) -> Iterable[Span]:
    """A WeChat id (a letter and 5–19 letters, digits, - or _; or a number) after 微信 / vx / wx / 加我 …"""
    return _after_cue(text, words()["wechat_cue"], _WECHAT_ID_RE)


def qq(text: str) -> Iterable[Span]:
    """A QQ number (5–12 digits, not starting with 0) after QQ / 扣扣 …"""
    return _after_cue(text, words()["qq_cue"], _QQ_ID_RE)


@dataclass(frozen=True)
class Kind:
    name: str
    function: Callable[[str], Iterable[Span]]
    example: str


KINDS: tuple[Kind, ...] = (
    Kind("email", email, "xiaoming@example.com"),
    Kind("id_card", id_card, "110105200001010016"),
    Kind("bank_card", bank_card, "6222 0212 3456 7894"),
    Kind("mobile", mobile, "138 1234 5678"),
    Kind("wechat", wechat, "加我 vx：abc_123"),
    Kind("qq", qq, "QQ 12345678"),
)
KIND_NAMES = tuple(k.name for k in KINDS)


def masked_kinds(spec: str | None) -> frozenset[str]:
    """XIAOE_MASKING read: "on" or "" every kind, "off" none, "-qq,-wechat" all but these, "mobile,email" only these."""
    text = (spec or "").strip().lower()
    if text in ("", "on"):
        return frozenset(KIND_NAMES)
    if text == "off":
        return frozenset()
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n.lstrip("-") for n in names if n.lstrip("-") not in KIND_NAMES]
    if unknown:
        raise ConfigError(f"XIAOE_MASKING 里有不认识的类型：{'、'.join(unknown)}。可用的有：{'、'.join(KIND_NAMES)}"
                          "（也可以写 on 或 off）。")
    off = [n[1:] for n in names if n.startswith("-")]
    if off and len(off) != len(names):
        raise ConfigError("XIAOE_MASKING 要么全部带 -（不遮这些），要么一个都不带（只遮这些）。")
    return frozenset(KIND_NAMES) - set(off) if off else frozenset(names)


@cache
def _placeholder_re() -> re.Pattern[str]:
    labels = "|".join(re.escape(words()[f"label.{name}"][0]) for name in KIND_NAMES)
    context = "|".join(re.escape(w) for w in words()["context"])
    return re.compile(rf"(?:(?:{context})\s*)*〔(?:{labels})\d+〕", re.IGNORECASE)


def without_placeholders(text: str) -> str:
    """`text` with its placeholders and the words that introduce them taken out (「我手机〔手机号1〕，」): what
    retrieval and the gate read, so a student's contact details are no terms the documents lack (the record, the
    answer and the checks keep the text as masked)."""
    bare, count = _placeholder_re().subn("", text)
    return re.sub(r"^[，,。；;\s]+", "", bare) if count else text


def digest(kind: str, value: str, key: bytes) -> str:
    return hmac.new(key, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()[:32]


def mask(text: str, known: Sequence[MaskEntry] = (), *, key: bytes = b"",
         kinds: frozenset[str] = frozenset(KIND_NAMES)) -> Masked:
    """`text` with every value of the kinds switched on replaced by its placeholder (see the module doc)."""
    if not text or not kinds:
        return Masked(text or "")
    folded = _fold(text)
    taken: list[tuple[int, int, str, str]] = []
    for kind in KINDS:
        if kind.name not in kinds:
            continue
        for start, end, value in kind.function(folded):
            if all(end <= s or start >= e for s, e, _, _ in taken):
                taken.append((start, end, kind.name, value))
    if not taken:
        return Masked(text)
    by_digest = {e.digest: e for e in known}
    numbers: dict[str, int] = {}
    for earlier in known:
        numbers[earlier.kind] = numbers.get(earlier.kind, 0) + 1
    used: list[MaskEntry] = []
    new: list[MaskEntry] = []
    out: list[str] = []
    cursor = 0
    for start, end, kind_name, value in sorted(taken):
        key_digest = digest(kind_name, value, key)
        entry = by_digest.get(key_digest)
        if entry is None:
            numbers[kind_name] = numbers.get(kind_name, 0) + 1
            entry = MaskEntry(kind_name, key_digest, f"〔{words()['label.' + kind_name][0]}{numbers[kind_name]}〕")
            by_digest[key_digest] = entry
            new.append(entry)
        if entry not in used:
            used.append(entry)
        out += [text[cursor:start], entry.placeholder]
        cursor = end
    out.append(text[cursor:])
    return Masked("".join(out), tuple(used), tuple(new))
