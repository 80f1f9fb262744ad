"""What a question asks for, read once: the kind of answer it wants (an amount of money, a duration, a year …).

`KINDS` is the program: `read_asked` looks for the asking words of every kind switched on, in the question as
typed (folded: width, case, punctuation), longest word first wherever it stands, so 「几个人」 asks a headcount and
not a count, and 「多少年成立」 a year and not a duration; a yes/no question is read by its own rule (`_yes_no`).
The words are data (core/data/asked_kinds.txt); each kind is named, documented by an example, and switched
off by name (XIAOE_ASKED_KINDS: `-year,-person`, `none`, or the kinds to keep) so its worth can be measured
(`python -m bench.asked_ablation`).

`states(sentence, kind)` says whether a sentence carries a kind: a figure with one of its units (「7 个工作日」 a
duration, 「4200 元」 an amount, 「2015 年」 a year) or one of its words (「免费」 an amount, 「最长」 an upper bound).
Three kinds have no such form — a yes/no, a way of doing something, a choice among options — any sentence
about the question's subject may answer them (`Kind.checkable` is False).

Left out: the question's subject (the gate's terms say what it is about: core.answerability), the student's own
figures (the student-case reader beside this one) and any school fact — these words say how people ask, never
what the school charges.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from core.errors import ConfigError
from core.language.text import normalize
from core.language.words import DATA

ASKED_KINDS_ENV = "XIAOE_ASKED_KINDS"
WORDS_FILE = "asked_kinds.txt"
_NUMBER = r"(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万半几]+)"


def _read_words(name: str = WORDS_FILE) -> dict[tuple[str, str], tuple[str, ...]]:
    """{(kind, 问|单位|词): words, longest first} from core/data/asked_kinds.txt."""
    table: dict[tuple[str, str], tuple[str, ...]] = {}
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#") or "：" not in line:
            continue
        head, words = line.split("：", 1)
        kind_name, _, part = head.strip().partition(".")
        folded = {normalize(w) for w in words.split()} - {""}
        table[(kind_name, part)] = tuple(sorted(folded, key=lambda w: (-len(w), w)))
    return table


_WORDS = _read_words()


def _words(kind_name: str, part: str) -> tuple[str, ...]:
    return _WORDS.get((kind_name, part), ())


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(map(re.escape, sorted(words, key=lambda w: (-len(w), w))))


def _stating(kind_name: str) -> Callable[[str], bool] | None:
    """The generic `states` of a kind: a figure followed by one of its units, or one of its words."""
    units, words = _words(kind_name, "单位"), _words(kind_name, "词")
    if not units and not words:
        return None
    unit_re = re.compile(rf"{_NUMBER}\s*(?:{_alternatives(units)})") if units else None
    word_re = re.compile(_alternatives(words)) if words else None

    def states(text: str) -> bool:
        folded = normalize(text)
        return bool((unit_re and unit_re.search(folded)) or (word_re and word_re.search(folded)))

    states.__name__ = f"states_{kind_name}"
    return states


_YEAR_RE = re.compile(r"(?:1[89]|20)\d{2}\s*年|[零〇一二三四五六七八九]{4}\s*年")


def _states_year(text: str) -> bool:
    """A year written out: 「2015 年」「二〇一五年」 (「三个月」「半年」 are durations, not years)."""
    return bool(_YEAR_RE.search(normalize(text)))


def _states_yes_no(_text: str) -> bool:
    return True


@dataclass(frozen=True)
class Kind:
    """One kind of thing a question asks for: its name (as settings and code say it), its Chinese label, how a
    refusal names it after the question's subject (`missing_zh`: 「{subject}年份」 → 「成立年份」), an example
    question, and whether a sentence's form can show it is stated (`checkable`)."""

    name: str
    label_zh: str
    missing_zh: str
    example_zh: str
    states: Callable[[str], bool] | None

    @property
    def checkable(self) -> bool:
        """True when `states` can tell from a sentence whether it carries this kind (not yes/no, way, choice)."""
        return self.states is not None and self.states is not _states_yes_no

    def missing(self, subject: str) -> str:
        """What the documents do not state, in the consultant's words: 「成立年份」「保过班价格」."""
        return self.missing_zh.format(subject=subject)


# In the order a refusal names them when a question asks for several (an upper bound before the duration it bounds).
KINDS: tuple[Kind, ...] = (
    Kind("year", "年份", "{subject}年份", "启明英语是哪一年成立的", _states_year),
    Kind("amount", "金额", "{subject}价格", "保过班多少钱", _stating("amount")),
    Kind("upper", "上限", "{subject}最多多少", "保留学籍最长多久", _stating("upper")),
    Kind("lower", "下限", "{subject}最少多少", "最少几个人开班", _stating("lower")),
    Kind("headcount", "人数", "{subject}人数", "一个班几个人", _stating("headcount")),
    Kind("count", "数量", "{subject}数量", "一个级别几节课", _stating("count")),
    Kind("duration", "时长", "{subject}要多久", "退款多久到账", _stating("duration")),
    Kind("time", "时间", "{subject}时间", "人工服务几点下班", _stating("time")),
    Kind("person", "人", "{subject}是谁", "外教是哪位老师", _stating("person")),
    Kind("place", "地点", "{subject}地点", "在哪里申请退费", _stating("place")),
    Kind("reason", "原因", "{subject}原因", "教材费为什么不退", _stating("reason")),
    Kind("way", "方式", "{subject}方式", "怎么转人工", None),
    Kind("choice", "选择", "{subject}选哪个", "线上班和线下班选哪个", None),
    Kind("yes_no", "是否", "{subject}", "分级测试收费吗", _states_yes_no),
)
KIND_NAMES: tuple[str, ...] = tuple(k.name for k in KINDS)
_BY_NAME = {k.name: k for k in KINDS}
# Which kind each asking word reads as; one regex, longest word first (「几个人」 before 「几个」).
_ASKING = {word: k.name for k in KINDS for word in _words(k.name, "问")}
_ASKING_RE = re.compile(_alternatives(tuple(_ASKING)))
# A yes/no question besides its words: an A-not-A (去不去, 有没有), a clause ending in 不 / 没 (「要交钱不」), or 么
# where it is not part of 什么 / 怎么 / 这么 / 那么 / 多么 / 要么.
_A_NOT_A_RE = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_FINAL_NOT_RE = re.compile(r"\S(?:不|没|没有)\s*[？?！!。，,]*\s*$|(?<![什怎这那多要])么")


def kind(name: str) -> Kind:
    """The kind named `name` (KeyError for an unknown name)."""
    return _BY_NAME[name]


@dataclass(frozen=True)
class AskedKinds:
    """The kinds switched on; `on(name)` is how callers ask (a typo in `name` raises)."""

    enabled: frozenset[str] = frozenset(KIND_NAMES)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.enabled) - set(KIND_NAMES))
        if unknown:
            raise ConfigError(_unknown_message(unknown))

    def on(self, name: str) -> bool:
        if name not in _BY_NAME:
            raise KeyError(name)
        return name in self.enabled

    def without(self, *names: str) -> AskedKinds:
        return AskedKinds(self.enabled - set(names))

    @property
    def disabled(self) -> tuple[str, ...]:
        return tuple(name for name in KIND_NAMES if name not in self.enabled)

    @property
    def label(self) -> str:
        """`全部问法` or `全部问法，除了 year、person` — how a run names the kinds it read."""
        if not self.disabled:
            return "全部问法"
        if not self.enabled:
            return "不读问法"
        return f"全部问法，除了 {'、'.join(self.disabled)}"


ALL_KINDS = AskedKinds()
_SEPARATORS = re.compile(r"[\s,，、]+")


def _unknown_message(unknown: list[str]) -> str:
    return (f"问法设置 {ASKED_KINDS_ENV} 里有不认识的类：{'、'.join(unknown)}。可用的类：{', '.join(KIND_NAMES)}。"
            "写法：留空表示全部启用；“-year,-person”表示关掉这两类；“none”表示全部关掉；也可以直接列出要启用的类。")


def parse_kinds(spec: str | None) -> AskedKinds:
    """An AskedKinds from `spec` (empty: all; `-a,-b`: all but these; `none`; or the kinds to keep); raises
    ConfigError in Chinese on an unknown name or a mix of both forms."""
    items = [item for item in _SEPARATORS.split((spec or "").strip()) if item]
    if not items or items == ["all"]:
        return ALL_KINDS
    if items == ["none"]:
        return AskedKinds(frozenset())
    off = [item[1:] for item in items if item.startswith("-")]
    keep = [item.lstrip("+") for item in items if not item.startswith("-")]
    unknown = sorted({name for name in (*off, *keep) if name not in _BY_NAME})
    if unknown:
        raise ConfigError(_unknown_message(unknown))
    if off and keep:
        raise ConfigError(f"问法设置 {ASKED_KINDS_ENV}（{spec}）不能同时列出要关掉的类（带 -）和要启用的类："
                          "要么全部带 -（关掉这些），要么一个都不带（只启用这些）。")
    return ALL_KINDS.without(*off) if off else AskedKinds(frozenset(keep))


@dataclass(frozen=True)
class Asked:
    """What one question asks for: the kinds in registry order, each with the word that asked it
    (`words[i]` asked `kinds[i]`; 「」 for a yes/no read from its form, such as 「要交钱不」)."""

    question: str
    kinds: tuple[str, ...] = ()
    words: tuple[str, ...] = ()

    def __contains__(self, name: object) -> bool:
        return name in self.kinds

    def __bool__(self) -> bool:
        return bool(self.kinds)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.kinds)

    @property
    def checkable(self) -> tuple[str, ...]:
        """The kinds asked that a sentence's form can show (what an answer must carry)."""
        return tuple(name for name in self.kinds if _BY_NAME[name].checkable)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(_BY_NAME[name].label_zh for name in self.kinds)

    def word(self, name: str) -> str:
        """The word that asked kind `name` ("" when it was not asked or was read from the question's form)."""
        return self.words[self.kinds.index(name)] if name in self.kinds else ""


def read_asked(question: str, kinds: AskedKinds = ALL_KINDS) -> Asked:
    """What `question` asks for, among the kinds switched on (see the module doc)."""
    return _read(question, kinds)


@lru_cache(maxsize=4096)
def _read(question: str, kinds: AskedKinds) -> Asked:
    found: dict[str, str] = {}
    for match in _ASKING_RE.finditer(normalize(question)):
        name = _ASKING[match.group()]
        if kinds.on(name):
            found.setdefault(name, match.group())
    if kinds.on("yes_no") and "yes_no" not in found:
        form = _yes_no(question)
        if form is not None:
            found["yes_no"] = form
    ordered = tuple(name for name in KIND_NAMES if name in found)
    return Asked(question, ordered, tuple(found[name] for name in ordered))


def _yes_no(question: str) -> str | None:
    """A yes/no read from the question's form (its words are found with the others): 「有没有」「去不去」, a
    clause ending in 不 / 没 (「要交钱不」「开课了没」), a 么 that is no part of 什么 or 怎么 (「能退么」)."""
    for clause in re.split(r"[。？?！!；;\n]", question):
        a_not_a = _A_NOT_A_RE.search(clause)
        if a_not_a:
            return a_not_a.group()
        final = _FINAL_NOT_RE.search(clause.strip())
        if final:
            return ""
    return None


def states(text: str, name: str) -> bool:
    """Whether `text` carries kind `name` by its form (see the module doc); False for a kind that has no form."""
    found = _BY_NAME[name]
    return bool(found.checkable and found.states(text))


def carried(text: str, asked: Asked) -> tuple[str, ...]:
    """The checkable kinds `asked` asks for that `text` states (in registry order)."""
    return tuple(name for name in asked.checkable if states(text, name))
