"""What a question asks for, read once: the kind of answer it wants (an amount of money, a duration, a year …).

`ASKED_KINDS` is the program: `read_asked` looks for the asking words of every kind switched on, in the question as
typed (folded: width, case, punctuation), longest word first wherever it stands, so 「几个人」 asks a headcount and
not a count, and 「多少年成立」 a year and not a duration; a yes/no question is read by its own rule (`_yes_no`).
The words are data (core/data/asked_kinds.txt); each kind is named, documented by an example, and switched
off by name (XIAOE_ASKED_KINDS: `-year,-person`, `none`, or the kinds to keep) so its worth can be measured
(`python -m bench.asked_ablation`).

`states(sentence, kind)` says whether a sentence carries a kind: a figure with one of its units (「7 个工作日」 a
duration, 「4200 元」 an amount, 「2015 年」 a year) or one of its words (「免费」 an amount, 「最长」 an upper bound).
A figure's unit is read once, longest first across every kind (「6 个月」 is 个月, a duration, never 个, a count), and
carries only the kinds that list that unit. A question whose asking word names a unit of one of its kind's unit groups
is answered only by a figure in that group (`named_units`): 「几天」 by a clock or calendar span — 「4 课时内」 answers
「多久」, not 「几天」 — and 「多少道」 by a count of 道, not by 「一次」.
Four kinds have no such form — a yes/no, a way of doing something, a choice among options, a comparison — any
sentence about the question's subject may answer them (`AskedKind.checkable` is False; the gate checks a choice or a
comparison written out by the things it names: core.answerability.asked).

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
from core.language.words import ASKING_MARKERS, DATA

ASKED_KINDS_ENV = "XIAOE_ASKED_KINDS"
WORDS_FILE = "asked_kinds.txt"
# A figure in digits or Chinese numerals; an ordinal (第一次) is no count.
_NUMBER = r"(?<![第\d.])(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万半]+)"


SAID = "口语说法"  # the words file's line `口语说法：什么=啥`: how students write a part of an asking word


def _read_words(name: str = WORDS_FILE) -> dict[tuple[str, str], tuple[str, ...]]:
    """{(kind, 问|单位|词): words, longest first} from core/data/asked_kinds.txt."""
    table: dict[tuple[str, str], tuple[str, ...]] = {}
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#") or "：" not in line:
            continue
        head, words = line.split("：", 1)
        kind_name, _, part = head.strip().partition(".")
        folded = ({normalize(w) for w in words.split()} if kind_name != SAID else set(words.split())) - {""}
        table[(kind_name, part)] = tuple(sorted(folded, key=lambda w: (-len(w), w)))
    return _as_said(table)


def _as_said(table: dict[tuple[str, str], tuple[str, ...]]) -> dict[tuple[str, str], tuple[str, ...]]:
    """Every asking word (`问`) also as students write it (`口语说法：什么=啥`: 凭什么 is asked as 凭啥 too, 什么级别 as
    啥级别), so the words file lists each asking word once."""
    pairs = [pair.split("=", 1) for pair in table.pop((SAID, ""), ()) if "=" in pair]
    out = dict(table)
    for (kind_name, part), words in table.items():
        if part == "问":
            said = {w.replace(formal, colloquial) for w in words for formal, colloquial in pairs if formal in w}
            out[(kind_name, part)] = tuple(sorted(set(words) | said, key=lambda w: (-len(w), w)))
    return out


_WORDS = _read_words()


def _words(kind_name: str, part: str) -> tuple[str, ...]:
    return _WORDS.get((kind_name, part), ())


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(map(re.escape, sorted(words, key=lambda w: (-len(w), w))))


# Every kind's units in one regex, longest first: a figure's unit is read once, whatever kind asks (「6 个月」 is
# 个月, a duration, and never 个, a count; 「18 周岁」 is an age, not 18 周).
_ALL_UNITS = tuple({unit for (_, part), words in _WORDS.items() if part == "单位" for unit in words})
_FIGURE_RE = re.compile(rf"{_NUMBER}\s*({_alternatives(_ALL_UNITS)})")


@lru_cache(maxsize=4096)
def figure_units(text: str) -> frozenset[str]:
    """The units `text`'s figures are written in, each read longest-first across all kinds (「最长保留 6 个月」 →
    {个月}; 「开课后 4 课时内」 → {课时内})."""
    return frozenset(match.group(1) for match in _FIGURE_RE.finditer(normalize(text)))


def _states_form(text: str, units: frozenset[str], word_re: re.Pattern[str] | None) -> bool:
    return bool(units & figure_units(text)) or bool(word_re and word_re.search(normalize(text)))


@lru_cache(maxsize=32)
def _word_re(kind_name: str) -> re.Pattern[str] | None:
    words = _words(kind_name, "词")
    return re.compile(_alternatives(words)) if words else None


def _stating(kind_name: str) -> Callable[[str], bool] | None:
    """The generic `states` of a kind: a figure in one of its units (read longest-first across all kinds), or one of
    its words."""
    units, word_re = frozenset(_words(kind_name, "单位")), _word_re(kind_name)
    if not units and word_re is None:
        return None

    def states(text: str) -> bool:
        return _states_form(text, units, word_re)

    states.__name__ = f"states_{kind_name}"
    return states


# A kind's unit groups (`类名.单位组.名字：…`): units that answer each other. An asking word holding a unit of a
# group wants a figure in that group: 几天 a clock or calendar span (not 「4 课时内」), 多少道 a count of 道 (not
# 「一次」); a word holding none (多久, 有几个) takes any unit of its kind.
def _unit_groups() -> dict[str, tuple[frozenset[str], ...]]:
    """{kind: its unit groups, in file order}; a group's units must be units of its kind (ConfigError otherwise)."""
    groups: dict[str, tuple[frozenset[str], ...]] = {}
    for (kind_name, part), units in _WORDS.items():
        if not part.startswith("单位组"):
            continue
        stray = sorted(set(units) - set(_words(kind_name, "单位")))
        if stray:
            raise ConfigError(f"{WORDS_FILE} 里 {kind_name}.{part} 的单位 {'、'.join(stray)} 不在 {kind_name}.单位 里："
                              f"先把它们加进 {kind_name}.单位 那一行。")
        groups[kind_name] = (*groups.get(kind_name, ()), frozenset(units))
    return groups


_GROUPS = _unit_groups()


def named_units(kind_name: str, word: str) -> frozenset[str]:
    """The units the asking `word` names through the kind's unit groups (几天 → 分钟 … 年; 几个级别 → 级, 个级别);
    empty when it names none and any unit of the kind answers (多久, 有几个)."""
    folded = normalize(word)
    named = [group for group in _GROUPS.get(kind_name, ()) if folded and any(unit in folded for unit in group)]
    return frozenset().union(*named)


_YEAR_RE = re.compile(r"(?:1[89]|20)\d{2}\s*年|[零〇一二三四五六七八九]{4}\s*年")
_CLOCK_RE = re.compile(r"\d{1,2}\s*[:：]\s*\d{2}")  # 9:00 (folding drops the colon, so it is read as typed)
_TIME_WORDS = _stating("time")
_CLOCK_WORDS = _stating("clock")


def _states_time(text: str) -> bool:
    """When: a clock time (9:00), a figure in 点/月/日/号, or a word such as 工作日 or 开课前."""
    return bool(_CLOCK_RE.search(text)) or bool(_TIME_WORDS and _TIME_WORDS(text))


def _states_clock(text: str) -> bool:
    """What time or day: a clock time (9:00), a figure in 点/月/日/号, or a day of the week (「开课后」 is no hour)."""
    return bool(_CLOCK_RE.search(text)) or bool(_CLOCK_WORDS and _CLOCK_WORDS(text))


_PER_UNITS = _words("amount", "每")
_PER_ALTERNATIVES = "|".join(map(re.escape, sorted(_PER_UNITS, key=len, reverse=True)))
_PER_ASKED_RE = re.compile(rf"(?<![第\d])[一每单](?:{_PER_ALTERNATIVES})") if _PER_UNITS else None


def per_unit(question: str) -> str:
    """The unit a price is asked per (「一节课多少钱」 → 节课, 「每月学费多少」 → 月); "" when none."""
    found = _PER_ASKED_RE.search(normalize(question)) if _PER_ASKED_RE else None
    return found.group()[1:] if found else ""


def states_rate(text: str, unit: str) -> bool:
    """A price per `unit`: 「每课时 300 元」「300 元/课时」「一节课 300 元」."""
    folded = normalize(text.replace("/", "每"))
    units = f"(?:{_PER_ALTERNATIVES})"
    return bool(re.search(rf"[一每单]{units}[^，。；]{{0,6}}{_NUMBER}\s*(?:元|块)|{_NUMBER}\s*(?:元|块)每{units}", folded))


_ADDRESS_RE = re.compile(rf"\d+\s*(?:{'|'.join(map(re.escape, sorted(_words('place', '地址'), key=len, reverse=True)))})")
PLACE_WORDS = frozenset(_words("place", "词"))
# 「再测一回要多少钱」 asks the price of another time; a sentence answers it when it speaks of that time (「每次」).
REPEAT_WORDS = _words("amount", "再问")
REPEAT_ANSWERS = _words("amount", "再答")
# 「有没有 X」 with one of these in X asks for a rule (「有没有时间限制」), not whether a thing exists.
RULE_WORDS = frozenset(_words("exists", "规则"))


def states_address(text: str) -> bool:
    """Where a place itself is: a number with 号, 楼, 层 … (「校区在哪」 is not answered by 「到校区前台填写申请表」)."""
    return bool(_ADDRESS_RE.search(normalize(text)))


def _states_year(text: str) -> bool:
    """A year written out: 「2015 年」「二〇一五年」 (「三个月」「半年」 are durations, not years)."""
    return bool(_YEAR_RE.search(normalize(text)))


_TITLE_WORDS = _stating("title")


def _states_title(text: str) -> bool:
    """A book's name: in 《》 as typed (folding drops the marks), or one of the kind's words (出版社)."""
    return "《" in text or bool(_TITLE_WORDS and _TITLE_WORDS(text))


def _states_yes_no(_text: str) -> bool:
    return True


def _states_during(_text: str) -> bool:
    """Any sentence may state what holds while something lasts: whether one speaks of both things is the sides'
    to tell (core.answerability.asked.asking_sides)."""
    return True


def _states_exists(_text: str) -> bool:
    """Any sentence may say a thing exists: whether one names the thing asked about is the gate's to tell
    (core.answerability.asked reads the words after 有没有)."""
    return True


@dataclass(frozen=True)
class AskedKind:
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
        """What the documents do not state, in the consultant's words: 「成立年份」「保过班价格」 (「上课时间」, not
        「上课时间时间」)."""
        tail = self.missing_zh.removeprefix("{subject}")
        return subject if tail and subject.endswith(tail) else self.missing_zh.format(subject=subject)


# In the order a refusal names them when a question asks for several (an upper bound before the duration it bounds).
ASKED_KINDS: tuple[AskedKind, ...] = (
    AskedKind("year", "年份", "{subject}年份", "启明英语是哪一年成立的", _states_year),
    AskedKind("amount", "金额", "{subject}价格", "保过班多少钱", _stating("amount")),
    AskedKind("upper", "上限", "{subject}最多多少", "保留学籍最长多久", _stating("upper")),
    AskedKind("lower", "下限", "{subject}最少多少", "最少几个人开班", _stating("lower")),
    AskedKind("age", "年龄", "{subject}年龄", "几岁可以报名", _stating("age")),
    AskedKind("score", "分数", "{subject}分数", "分级测试考多少分能跳级", _stating("score")),
    AskedKind("headcount", "人数", "{subject}人数", "一个班几个人", _stating("headcount")),
    AskedKind("lessons", "课时数", "{subject}课时数", "一个级别几节课", _stating("lessons")),
    AskedKind("count", "数量", "{subject}数量", "口语课一共有几级", _stating("count")),
    AskedKind("frequency", "频率", "{subject}多久一次", "对话记录多久复核一次", _stating("frequency")),
    AskedKind("duration", "时长", "{subject}要多久", "退款多久到账", _stating("duration")),
    AskedKind("clock", "钟点或日子", "{subject}时间", "人工服务几点下班", _states_clock),
    AskedKind("time", "时间", "{subject}时间", "什么时候可以申请退费", _states_time),
    AskedKind("person", "人", "{subject}是谁", "外教是哪位老师", _stating("person")),
    AskedKind("organization", "机构", "{subject}是哪家", "小E 是哪家公司开发的", _stating("organization")),
    AskedKind("title", "书名", "{subject}书名", "三级用的哪本教材", _states_title),
    AskedKind("place", "地点", "{subject}地点", "在哪里申请退费", _stating("place")),
    AskedKind("reason", "原因", "{subject}原因", "教材费为什么不退", _stating("reason")),
    AskedKind("way", "方式", "{subject}方式", "怎么转人工", None),
    AskedKind("choice", "选择", "{subject}", "分级测试是线上做还是去校区做", None),
    AskedKind("compare", "比较", "{subject}", "小E 跟人工客服比哪个更准", None),
    AskedKind("during", "期间", "{subject}", "保留学籍期间还能转班吗", _states_during),
    AskedKind("exists", "有没有", "{subject}", "有没有学习报告", _states_exists),
    AskedKind("yes_no", "是否", "{subject}", "分级测试收费吗", _states_yes_no),
)
ASKED_NAMES: tuple[str, ...] = tuple(k.name for k in ASKED_KINDS)
_BY_NAME = {k.name: k for k in ASKED_KINDS}
# Which kind each asking word reads as; one regex, longest word first (「几个人」 before 「几个」).
_ASKING = {word: k.name for k in ASKED_KINDS for part in ("问", "话题") for word in _words(k.name, part)}
# 价格, 人数 …: what a question asks about, not a thing; they ask only outside a yes/no question
TOPIC_WORDS = frozenset(word for k in ASKED_KINDS for word in _words(k.name, "话题"))
_ASKING_RE = re.compile(_alternatives(tuple(_ASKING)))
# Every kind's asking words, folded: they say how to ask, never what about (a topic word such as 免费 is content).
ASKING_WORDS = frozenset(word for k in ASKED_KINDS for word in _words(k.name, "问"))
# A yes/no question besides its words: an A-not-A (去不去, 有没有), a clause ending in 不 / 没 (「要交钱不」), or 么
# where it is not part of 什么 / 怎么 / 这么 / 那么 / 多么 / 要么.
_A_NOT_A_RE = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_FINAL_NOT_RE = re.compile(r"\S(?:不|没|没有)\s*[？?！!。，,]*\s*$|(?<![什怎这那多要])么")


def asked_kind(name: str) -> AskedKind:
    """The kind named `name` (KeyError for an unknown name)."""
    return _BY_NAME[name]


@dataclass(frozen=True)
class AskedKinds:
    """The kinds switched on; `on(name)` is how callers ask (a typo in `name` raises)."""

    enabled: frozenset[str] = frozenset(ASKED_NAMES)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.enabled) - set(ASKED_NAMES))
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
        return tuple(name for name in ASKED_NAMES if name not in self.enabled)

    @property
    def label(self) -> str:
        """`全部问法` or `全部问法，除了 year、person` — how a run names the kinds it read."""
        if not self.disabled:
            return "全部问法"
        if not self.enabled:
            return "不读问法"
        return f"全部问法，除了 {'、'.join(self.disabled)}"


ALL_ASKED = AskedKinds()
_SEPARATORS = re.compile(r"[\s,，、]+")


def _unknown_message(unknown: list[str]) -> str:
    return (f"问法设置 {ASKED_KINDS_ENV} 里有不认识的类：{'、'.join(unknown)}。可用的类：{', '.join(ASKED_NAMES)}。"
            "写法：留空表示全部启用；“-year,-person”表示关掉这两类；“none”表示全部关掉；也可以直接列出要启用的类。")


@lru_cache(maxsize=64)
def parse_asked(spec: str | None) -> AskedKinds:
    """An AskedKinds from `spec` (empty: all; `-a,-b`: all but these; `none`; or the kinds to keep); raises
    ConfigError in Chinese on an unknown name or a mix of both forms."""
    items = [item for item in _SEPARATORS.split((spec or "").strip()) if item]
    if not items or items == ["all"]:
        return ALL_ASKED
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
    return ALL_ASKED.without(*off) if off else AskedKinds(frozenset(keep))


@dataclass(frozen=True)
class Asked:
    """What one question asks for: the kinds in registry order, each with the word that asked it
    (`words[i]` asked `kinds[i]`; 「」 for a yes/no read from its form, such as 「要交钱不」), and the kinds a yes/no
    question names as its topic (「线上线下价格一样吗」: whether, about an amount)."""

    question: str
    kinds: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()  # kinds a yes/no question names without asking them (价格一样吗: amount)
    topic_words: tuple[str, ...] = ()  # the word that named each topic
    counted: str = ""  # what a count asked with 几个 / 多少个 counts, as typed (「开了几个校区」 → 校区)

    def __contains__(self, name: object) -> bool:
        return name in self.kinds

    def __bool__(self) -> bool:
        return bool(self.kinds)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.kinds)

    @property
    def checkable(self) -> tuple[str, ...]:
        """The kinds asked that a sentence's form can show (what an answer must carry). A yes/no question's topic
        is not one: 「网课跟到校区上收费一样吗」 is answered by 「线上班与线下班同价」, which names neither 网课 nor 校区."""
        return tuple(name for name in self.kinds if _BY_NAME[name].checkable)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(_BY_NAME[name].label_zh for name in self.kinds)

    def word(self, name: str) -> str:
        """The word that asked kind `name`, or named it as a topic ("" when it was not asked or was read from the
        question's form)."""
        if name in self.kinds:
            return self.words[self.kinds.index(name)]
        return self.topic_words[self.topics.index(name)] if name in self.topics else ""


def read_asked(question: str, kinds: AskedKinds = ALL_ASKED) -> Asked:
    """What `question` asks for, among the kinds switched on (see the module doc)."""
    return _read(question, kinds)


@lru_cache(maxsize=4096)
def _read(question: str, kinds: AskedKinds) -> Asked:
    found: dict[str, str] = {}
    off: dict[str, str] = {}  # the kinds switched off, as asked: another kind may read their words again (改读)
    typed = normalize(question)
    for text in (typed, _A_NOT_A_RE.sub(r"\1", typed)):  # 要不要钱 asks about 要钱 too, as 要钱吗 does
        for match in _ASKING_RE.finditer(text):
            name = _ASKING[match.group()]
            if _asks(name, text, match.start(), match.end()):
                bucket = found if kinds.on(name) else off
                # a word that asks (交多少) wins over an earlier topic word (要交钱) of the same kind: 「要交钱不？交多少」
                if name not in bucket or bucket[name] in TOPIC_WORDS and match.group() not in TOPIC_WORDS:
                    bucket[name] = match.group()
    found = _read_again(found, off, typed, kinds)
    for name in ASKED_NAMES:  # 「学费是多少」: the kind's noun, then 多少 a few characters on
        if kinds.on(name) and name not in found and (gapped := _gapped(name, question)):
            found[name] = gapped
    if kinds.on("compare") and (sides := compared(question)) is not None:  # 「X 跟 Y 比，哪个…」: by its form
        found["compare"] = sides[2]
    if kinds.on("yes_no") and "yes_no" not in found:
        form = _yes_no(question)
        if form is not None:
            found["yes_no"] = form
    topics: dict[str, str] = {}
    if "yes_no" in found:  # 「线上线下价格一样吗」 asks whether, not how much: the amount is its topic
        topics = {name: word for name, word in found.items() if word in TOPIC_WORDS}
        found = {name: word for name, word in found.items() if word not in TOPIC_WORDS}
    if found.get("choice") in _ALTERNATIVES:  # 「按上了多少节算还是按剩多少节算」: which of two, not how many
        found = {name: word for name, word in found.items()
                 if name == "choice" or not _same_clause(question, word, found["choice"])}
    counted = ""
    if kinds.on("count") and (not found or found.get("count", "").endswith(_PIECE)):
        last = next((normalize(c) for c in reversed(_CLAUSES_RE.split(question)) if normalize(c)), "")
        word, counted = _counted(typed if found else last, found.get("count", ""))
        if counted:
            found.setdefault("count", word)
    ordered = tuple(name for name in ASKED_NAMES if name in found)
    named = tuple(name for name in ASKED_NAMES if name in topics)
    return Asked(question, ordered, tuple(found[name] for name in ordered), named,
                 tuple(topics[name] for name in named), counted)


# `类名.改读.另一类`: another kind's asking word followed in its clause, within BOUND_REACH characters, by one of
# these words asks this kind instead (「多久做一次」「多久开一期」 ask how often, not how long).
_READ_AGAIN = tuple((name, part.removeprefix("改读."), words) for (name, part), words in _WORDS.items()
                    if part.startswith("改读."))


def _read_again(found: dict[str, str], off: dict[str, str], text: str, kinds: AskedKinds) -> dict[str, str]:
    """`found` with each kind a `改读` line re-reads (asked, or switched `off`) replaced by the kind it names (see
    _READ_AGAIN)."""
    out = dict(found)
    for name, other, follows in _READ_AGAIN:
        word = out.get(other) or off.get(other, "")
        if not word or not kinds.on(name) or name in out:
            continue
        for clause in _CLAUSES_RE.split(text):
            at = clause.find(word)
            if at >= 0 and any(f in clause[at + len(word):at + len(word) + BOUND_REACH + len(f)] for f in follows):
                out.pop(other, None)
                out[name] = word
                break
    return out


# 「几个 X」「多少个 X」: a count of X, answered only by a figure of X (「3 个校区」), not by any count (「一次」「四级」).
# Alone (no other kind asked) 几个 asks too, in the question's last clause: 「一期开几个班」; elsewhere, or beside
# another question word, it is 「a few」 (「就认识几个单词 从哪级开始」). X is the characters after 个 up to
# COUNTED_REACH, stopping at a particle or a helping verb; an X that is some kind's unit (几个点, 几个月) is that
# kind's business, not a count.
_PIECE = "个"
_COUNT_WORDS = ("几个", "多少个")
COUNTED_REACH = 2
_COUNTED_STOPS = "啊呀吗呢哈啦嘞的了能可以要是在有和跟都还就呗嘛哇咧"
_CLOSING_PARTICLES = "啊呀吗呢哈啦嘞呗嘛哇咧？?"  # what may close a question after its count (not 了: 「学了几个单词了」 tells)


def _counted(text: str, word: str) -> tuple[str, str]:
    """(the asking word, the noun it counts) in folded `text`; ("", "") when none (see _PIECE)."""
    for asking in ((word,) if word else _COUNT_WORDS):
        at = text.find(asking)
        while at >= 0:
            start = at + len(asking)
            noun = ""
            for char in text[start:start + COUNTED_REACH]:
                if not "\u4e00" <= char <= "\u9fff" or char in _COUNTED_STOPS:
                    break
                noun += char
            # 「一共开了几个校区呀」: after 了, 几个 X closing its clause asks (not 「上了几个月」, a unit's business)
            closing = at and text[at - 1] == "了" and not text[start + len(noun):].strip(_CLOSING_PARTICLES)
            if word or _asks("count", text, at, start) or closing:
                if noun and not any(f"{_PIECE}{noun}".startswith(unit) or noun.startswith(unit)
                                    for unit in _ALL_UNITS if unit != _PIECE):
                    return asking, noun
            at = text.find(asking, at + 1)
    return "", ""


def states_counted(text: str, counted: str) -> bool:
    """A figure of `counted` (Asked.counted), by its first or last character: 「3 个校区」「两个班」, 「四级」 for 等级."""
    ends = "".join(sorted({counted[:1], counted[-1:]}))
    return bool(re.search(rf"{_NUMBER}\s*{_PIECE}?\s*[{re.escape(ends)}]", normalize(text)))


# How far 多少 may follow a kind's noun (`隔问`) to ask it: 「学费是多少」「教材费大概要多少」, within one clause.
GAP_REACH = 4
_GAP_ASKING = "多少"
_GAP_ENDS = "钱元块呢啊呀吗哈嘞啦哇"  # what may follow that 多少: the end of the clause, a particle, the money itself


def _gapped(name: str, text: str) -> str:
    """The kind's noun and the 多少 after it within GAP_REACH characters of one clause, that 多少 ending the clause
    or followed by a particle or the money (「学费是多少」「教材费要多少钱」), as typed; "" when none (「手续费按多少比例扣」
    asks a rate)."""
    for clause in map(normalize, _CLAUSES_RE.split(text)):  # normalised text has no punctuation left to part on
        for noun in _words(name, "隔问"):
            at = clause.find(noun)
            while at >= 0:
                after = clause[at + len(noun):at + len(noun) + GAP_REACH + len(_GAP_ASKING)]
                found = after.find(_GAP_ASKING)
                tail = after[found + len(_GAP_ASKING):found + len(_GAP_ASKING) + 1] if found >= 0 else ""
                if 0 <= found <= GAP_REACH and (not tail or tail in _GAP_ENDS):  # not 「按多少比例扣」: 多少 of 比例
                    return clause[at:at + len(noun) + found + len(_GAP_ASKING)]
                at = clause.find(noun, at + 1)
    return ""


# A bound (最长, 最少) asks only when a quantity's question word follows within this many characters: 「最长保留
# 多久」 asks an upper bound, 「最高那个级别叫什么」 names the top level.
BOUND_REACH = 6
# 好几年, 十几个, 几十块, 学过几年, 那几个月, 某几种, 就认识几个单词: a few, not a question; 第几 is an order, not
# a quantity.
_INDEFINITE_BEFORE, _INDEFINITE_AFTER = "好十数某过了那这第就只才仅", "十百千万"


def _asks(name: str, text: str, start: int, end: int) -> bool:
    """Whether the asking word at text[start:end] asks kind `name` there (see BOUND_REACH; 几 as 「a few」 does not)."""
    if text[start] == "几" and ((start and text[start - 1] in _INDEFINITE_BEFORE)
                                or text[start + 1:start + 2] in tuple(_INDEFINITE_AFTER)):
        return False
    follows = _words(name, "后接")
    if any(word in text[start:end] for word in follows):  # 「多长时间以上」: the quantity asked is in the word itself
        return True
    after = text[end:end + BOUND_REACH + 2].replace("第几", "")
    return not follows or any(word in after[:BOUND_REACH + len(word)] for word in follows)


_ALTERNATIVES = frozenset({"还是"})  # a choice between alternatives written out: what they name is not asked
_CLAUSES_RE = re.compile(r"[。？?！!；;，,\s]+")


def alternatives(question: str) -> tuple[str, str] | None:
    """The two options of a choice written out (「分级测试是线上做还是要去校区做」 → 「分级测试是线上做」,
    「要去校区做」): the clause's words before and after 还是, as typed (a clause opening with 还是 takes the clause before
    it: 「要去校区做，还是在家网上就能做」); None without one."""
    clauses = _CLAUSES_RE.split(question)
    for i, clause in enumerate(clauses):
        for word in _ALTERNATIVES:
            before, found, after = clause.partition(word)
            if found and not before.strip() and after.strip() and i and clauses[i - 1].strip():
                return clauses[i - 1].strip(), after.strip()  # 「要去校区做，还是在家网上就能做」: the clause before
            if found and before.strip() and after.strip():
                return before.strip(), after.strip()
    return None


_COMPARE_RE = re.compile(r"(.+?)(?:跟|和|与|同)(.+?)(相比|比起来|比较|比)")
_COMPARE_HINTS = _words("compare", "提示")
# 「X 比 Y 多」: the comparative after Y says it compares, no hint needed (比较, 比例, 比如 are other words)
_MORE_THAN_RE = re.compile(rf"(.+?)比(?!较|例|如)(.+?)(?:更|还)?({_alternatives(_words('compare', '比后'))})")
COMPARING_WORDS = _words("compare", "词")
# 「X 和 Y 哪个更准」: two things joined, then which of them (no 比 needed)
_WHICH_OF_RE = re.compile(r"([^，,。？?！!；;]+?)(?:跟|和|与|同)([^，,。？?！!；;]+?)[，,]?(哪个|哪一个|哪家|谁)")


def compared(question: str) -> tuple[str, str, str] | None:
    """The two things a comparison written out compares, and its word (「小E 跟人工客服比，哪个答得更准」 → 小E,
    人工客服, 比): a clause 「X 跟/和/与/同 Y 比」 in a question holding a word that asks which or whether
    (compare.提示), 「X 比 Y 多/贵/快…」 (compare.比后), or 「X 和 Y 哪个更…」; None otherwise (「跟老师比划」 asks nothing
    of two)."""
    hinted = any(hint in normalize(question) for hint in _COMPARE_HINTS)
    for clause in re.split(r"[。？?！!；;，,]", question):  # a space does not part 「小E 跟人工客服比」
        compact = re.sub(r"\s+", "", clause)
        found = _COMPARE_RE.search(compact) if hinted else None
        if found:
            return found.group(1), found.group(2), found.group(3)
        more = _MORE_THAN_RE.search(compact)
        if more and _asks_in(compact):  # 「跟同学比我基础差，报几级」 tells, the clause asks nothing
            return more.group(1), more.group(2), "比"
    whole = re.sub(r"\s+", "", question)
    which = _WHICH_OF_RE.search(whole)
    if which and re.search(r"更|最", whole[which.end():]):  # 「小E 和人工客服哪个回答更准」「问小E跟问人工，哪个答得更准」
        return which.group(1), which.group(2), which.group(3)
    return None


def _asks_in(clause: str) -> bool:
    """Whether `clause` asks: an asking marker (core/data/asking_markers.txt: 吗 呢 几 多少 …), an asking word of
    some kind, an A-not-A, or a closing 不 / 没."""
    folded = normalize(clause)
    return bool(any(marker in folded for marker in ASKING_MARKERS) or _ASKING_RE.search(folded)
                or _A_NOT_A_RE.search(folded) or _FINAL_NOT_RE.search(clause.strip()))


def _same_clause(question: str, word: str, other: str) -> bool:
    """Whether `word` stands only in clauses holding `other` too: 「按上了多少节算还是按剩多少节算」 asks which, but
    「每个级别要用几本教材，一本还是好几本」 asks how many in a clause of its own (好几本 beside 还是 is an option)."""
    holding = [clause for clause in map(normalize, _CLAUSES_RE.split(question)) if word in clause]
    return bool(holding) and all(other in clause for clause in holding)


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


def states(text: str, name: str, word: str = "") -> bool:
    """Whether `text` carries kind `name` by its form (see the module doc); False for a kind that has no form.
    `word`, the word that asked it (Asked.word), narrows the units that answer when it names a unit group
    (`named_units`: 「几天」 wants days, weeks or months, and 「4 课时内」 answers only a 「多久」)."""
    found = _BY_NAME[name]
    if not found.checkable:
        return False
    named = named_units(name, word) if word else frozenset()
    if named:
        return _states_form(text, named, _word_re(name))
    states = found.states  # checkable: `states` is set
    return bool(states is not None and states(text))


def carried(text: str, asked: Asked) -> tuple[str, ...]:
    """The checkable kinds `asked` asks for that `text` states, each read against the word that asked it (in
    registry order); a count of something named (Asked.counted) by a figure of it."""
    return tuple(name for name in asked.checkable
                 if (states_counted(text, asked.counted) if name == "count" and asked.counted
                     else states(text, name, asked.word(name))))
