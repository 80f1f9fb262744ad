"""Read the school's facts from its documents: one frozen `SchoolFacts`, each fact with its sentence.

The documents are Markdown files; each line of a section is read (a FAQ's question lines are skipped, an answer's
「答：」 label is dropped), and each sentence of a line. `READERS` is the program: in this order, each named reader
looks for the sentence stating its fact (by the words in core/data/fact_words.txt) and reads its figures there
with core.language.figures; the first sentence that states a fact wins (the body before its FAQ). A fact no
sentence states is listed in `SchoolFacts.missing` with the kind of sentence that would state it.
Nothing here knows a level's name, a price, a lesson count or a rate: the documents do.
Left out: deciding which of two contradicting sentences is right (the first is read; the Sources page shows it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langchain_core.documents import Document

from core.corpus.loader import split_sections
from core.corpus.sentences import LABEL_RE, SENTENCE_RE
from core.facts.per_level import figure_in, first_common, read_per_level
from core.facts.words import fact_words, has
from core.language.figures import extract_figures, parse_chinese_numeral
from core.language.money import Rounding
from core.values.facts import Fact, Level, Missing, PerLevel, SchoolFacts, Source

# A FAQ answer's own yes/no before the rule it restates (「不能，教材费不在退费范围内」).
_YES_NO_RE = re.compile(r"^(?:可以|不可以|不能|能|不会|会|一样|不包含|是的|是|不是)[，,]\s*")
# 「<name>（<number>级）」: how the documents introduce a level (入门级, 启蒙班 …); the number in Chinese or Arabic numerals.
_LEVEL_RE = re.compile(r"([\u4e00-\u9fff]{1,8})\s*[（(]\s*([〇零一二两三四五六七八九十\d]{1,3})\s*级\s*[)）]")
_NUMBERED_LEVEL_RE = re.compile(r"([〇零一二两三四五六七八九十\d]{1,3})\s*级")
_FORMULA_RE = re.compile(r"^\s*(?P<name>[\u4e00-\u9fff]*退[\u4e00-\u9fff]*)\s*=\s*(?P<expr>.*[\u4e00-\u9fff].*)$")
_FEE_RE = re.compile(r"(?P<name>[\u4e00-\u9fff]{0,4}手续费)\s*为\s*(?P<expr>.+?)\s*的\s*(?P<pct>\d+(?:\.\d+)?)\s*%")
_PLACES = {"分": 2, "角": 1, "元": 0}
# 「9:00–21:00」「9：00 至 21：00」: a daily span of the clock.
_HOURS_RE = re.compile(r"(\d{1,2})[:：](\d{2})\s*(?:[–—\-~～]+|至|到)\s*(\d{1,2})[:：](\d{2})")


@dataclass(frozen=True)
class Line:
    """A line (or a sentence of one) of a document, its label removed, with where it sits in the file."""

    file: str
    section: str
    text: str
    start: int
    end: int

    @property
    def source(self) -> Source:
        return Source(self.file, self.section, self.text, self.start, self.end)


def document_lines(documents: Sequence[tuple[str, str]]) -> list[Line]:
    """Every content line of every (file name, Markdown text), FAQ question lines left out."""
    out: list[Line] = []
    for name, text in documents:
        for section in split_sections(text):
            offset = section.start
            for raw in text[section.start:section.end].splitlines(keepends=True):
                start, offset = offset, offset + len(raw)
                line = raw.rstrip("\r\n")
                if not line.strip() or line.lstrip().startswith(("问", "#")):
                    continue
                label = LABEL_RE.match(line)
                cut = label.end() if label else len(line) - len(line.lstrip())
                yes_no = _YES_NO_RE.match(line, cut) if label else None
                cut = yes_no.end() if yes_no else cut
                body = line[cut:].rstrip()
                out.append(Line(name, section.heading, body, start + cut, start + cut + len(body)))
    return out


def sentences(lines: Sequence[Line]) -> list[Line]:
    """Each line cut at 。！？；, offsets kept."""
    out = []
    for line in lines:
        for match in SENTENCE_RE.finditer(line.text):
            piece = match.group().strip()
            if piece:
                start = line.start + match.start() + (len(match.group()) - len(match.group().lstrip()))
                out.append(Line(line.file, line.section, piece, start, start + len(piece)))
    return out


def _figure_after(text: str, after: str, unit: str) -> float | None:
    """The first figure written in `unit` after `after` in `text` (「即超过 8 课时」 after 「一半」)."""
    index = text.find(after) if after else 0
    if index < 0:
        return None
    for figure in extract_figures(text[index:]):
        if figure.text.rstrip().endswith(unit) and not figure.text.startswith("第"):
            return figure.value
    return None


def _amount(text: str) -> float | None:
    return _figure_after(text, "", "元")


def _number(written: str) -> int | None:
    return int(written) if written.isdigit() else parse_chinese_numeral(written)


# -- the readers: (lines, sentences, levels read so far) -> {SchoolFacts field: value} ---------------------------

Found = dict[str, object]


def levels(lines: Sequence[Line], _: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「入门级（一级）、进阶级（二级）…」: each level's number and name (the shortest name written for a number,
    so 「依次是入门级（一级）」 does not take 「依次是」 in), and the name without its 「级」 as an alias."""
    named: dict[int, tuple[str, Line]] = {}
    for line in lines:
        for match in _LEVEL_RE.finditer(line.text):
            number = _number(match.group(2))
            name = match.group(1)
            if number is None or number <= 0:
                continue
            if number not in named or len(name) < len(named[number][0]):
                named[number] = (name, line)
    out = []
    for number in sorted(named):
        name, line = named[number]
        stem = name[:-1] if name.endswith(("级", "班")) else ""
        aliases = (stem,) if len(stem) >= 2 else ()
        out.append(Level(number, name, aliases, line.source))
    return {"levels": tuple(out)} if out else {}


def level_numbers_in(text: str, known: tuple[Level, ...]) -> set[int]:
    """The levels a text names: by their names (longest first) or as 「N级」 for a known N."""
    found: set[int] = set()
    rest = text
    for level in sorted(known, key=lambda lv: -max(map(len, lv.words))):
        for word in level.words:
            if word in rest:
                found.add(level.number)
                rest = rest.replace(word, " ")
    numbers = {lv.number for lv in known}
    for match in _NUMBERED_LEVEL_RE.finditer(rest):
        number = _number(match.group(1))
        if number in numbers:
            found.add(number)
    return found


def tuition(lines: Sequence[Line], _: Sequence[Line], known: tuple[Level, ...]) -> Found:
    """「<级别>（N级）：<amount> 元」: a line naming one level and one amount (not a difference, not the textbook)."""
    out: dict[int, Fact] = {}
    for line in lines:
        if has(line.text, "tuition_skip"):
            continue
        numbers = level_numbers_in(line.text, known)
        amounts = [f for f in extract_figures(line.text) if f.text.rstrip().endswith("元")]
        if len(numbers) == 1 and len(amounts) == 1:
            number = numbers.pop()
            out.setdefault(number, Fact("tuition", (number, amounts[0].value), line.source))
    return {"tuition": tuple(out[n] for n in sorted(out))} if out else {}


def lessons_per_level(_: Sequence[Line], sents: Sequence[Line], known: tuple[Level, ...]) -> Found:
    """「每一级都是 16 课时」「一级至四级每级 20 课时」「卓越级（五级）为 24 课时」: each level's lessons
    (core.facts.per_level), and the weeks to finish a level when stated (「十周结课」)."""
    lessons = figure_in("课时")
    found = read_per_level(sents, known, "lessons_per_level",
                           lambda clause: None if has(clause, "lessons_per_week") else lessons(clause),
                           "per_level_link", "lessons_per_level")
    weeks = read_per_level(sents, known, "weeks_per_level", figure_in("周", before="weeks_per_level"),
                           "per_level_link", "weeks_per_level")
    out: Found = {"lessons_per_level": found} if found else {}
    return {**out, "weeks_per_level": weeks} if weeks else out


def lessons_per_week(_: Sequence[Line], sents: Sequence[Line], known: tuple[Level, ...]) -> Found:
    """「每周上 2 课时」: the lesson count after the week word, for every level or the levels a sentence names."""
    picks = [figure_in("课时", after=word) for word in fact_words()["lessons_per_week"]]

    def pick(clause: str) -> tuple[float, int] | None:
        return next((found for p in picks if (found := p(clause)) is not None), None)

    found = read_per_level(sents, known, "lessons_per_week", pick, "per_week_link", "lessons_per_week")
    return {"lessons_per_week": found} if found else {}


def refund_formula(lines: Sequence[Line], _: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费」: a formula of words whose result names a refund."""
    for line in lines:
        match = _FORMULA_RE.match(line.text.rstrip("。"))
        if match and "×" in match.group("expr") and has(match.group("name"), "refund_formula"):
            value = (match.group("name"), match.group("expr").strip())
            return {"refund_formula": Fact("refund_formula", value, line.source)}
    return {}


def fee_rule(lines: Sequence[Line], _: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「手续费为 <base> 的 5%，单笔最低 50 元」: the fee's base, its rate and its minimum (one line)."""
    for line in lines:
        match = _FEE_RE.search(line.text)
        if not match:
            continue
        out: Found = {"fee_rule": Fact("fee_rule", (match.group("name"), match.group("expr").strip()), line.source),
                      "fee_rate": Fact("fee_rate", float(match.group("pct")) / 100, line.source)}
        for word in fact_words()["fee_minimum"]:
            index = line.text.find(word, match.end())
            minimum = _amount(line.text[index:]) if index >= 0 else None
            if minimum is not None:
                out["fee_minimum"] = Fact("fee_minimum", minimum, line.source)
                break
        return out
    return {}


def textbook(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「教材费每级 280 元」 (its amount) and 「教材费不在退费范围内」 (not refunded)."""
    out: Found = {}
    about = [s for s in sents if has(s.text, "textbook")]
    for word in fact_words()["textbook_not_refunded"]:  # the plainest wording first (不在退费范围 before 不退)
        stating = next((s for s in about if word in s.text), None)
        if stating is not None:
            out["textbook_not_refunded"] = Fact("textbook_not_refunded", True, stating.source)
            break
    for s in about:
        if "textbook_fee" not in out and not has(s.text, "textbook_fee_skip"):
            amount = _amount(s.text)
            if amount is not None:
                out["textbook_fee"] = Fact("textbook_fee", amount, s.source)
    return out


def over_half(lines: Sequence[Line], sents: Sequence[Line], known: tuple[Level, ...]) -> Found:
    """「已上课时超过总课时的一半（即超过 8 课时）后，不再受理退费」: the rule (`half_rule`) and the lesson count after
    which no refund, when stated: for every level (after 一半), or per level in the sentences that follow it on its
    line (「一级至四级总课时 20，即已上超过 10 课时；卓越级（五级）…即已上超过 12 课时」). Without a stated count the limit is
    half the level's own lessons (core.answering.calculate)."""
    for s in sents:
        if not (has(s.text, "over_half") and has(s.text, "over_half_stop")):
            continue
        word = fact_words()["over_half"][0]
        value = first_common(s.text[s.text.find(word):], known, figure_in("课时"))
        common = Fact("over_half", value, s.source) if value is not None else None
        following = [t for t in sents if t.file == s.file and t.start >= s.start
                     and any(line.start <= s.start < line.end and t.end <= line.end for line in lines)]
        stated = read_per_level(following, known, "over_half", figure_in("课时", after=fact_words()["over_half_more"][0]),
                                "over_half_link", "")
        own = stated.own if stated is not None else ()
        return {"over_half": PerLevel(common, own), "half_rule": Fact("half_rule", True, s.source)}
    return {}


def before_start(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「开课前申请退费的，学费全额退还」."""
    for s in sents:
        if has(s.text, "before_start") and has(s.text, "before_start_full"):
            return {"before_start": Fact("before_start", True, s.source)}
    return {}


def transfers(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「开课后 4 课时内，可以免费转班一次」 (the window), 「从第二次转班起，每次收取 100 元」 (from which, how much) and,
    when the documents say it, what a first transfer after the window costs (「已上课时超过 6 课时后才第一次转班的，
    同样收取 135 元转班手续费」: the first amount after the first-transfer word, in a sentence saying the window is past)."""
    out: Found = {}
    for s in sents:
        if not has(s.text, "transfer"):
            continue
        if "late_transfer_fee" not in out and (late := _late_fee(s.text)) is not None:
            out["late_transfer_fee"] = Fact("late_transfer_fee", late, s.source)
        if "free_transfer" not in out and has(s.text, "free_transfer"):
            window = _figure_after(s.text, "", "课时")
            if window is not None:
                out["free_transfer"] = Fact("free_transfer", window, s.source)
        if "transfer_fee" not in out and has(s.text, "transfer_each"):
            ordinal = next((f for f in extract_figures(s.text) if f.text.startswith("第")), None)
            amount = _amount(s.text)
            if ordinal is not None and amount is not None:
                out["transfer_fee"] = Fact("transfer_fee", (int(ordinal.value), amount), s.source)
    return out


def _late_fee(text: str) -> float | None:
    """The amount a first transfer after the free window costs, when `text` states it (see `transfers`)."""
    first = min((i for word in fact_words()["late_transfer_first"] if (i := text.find(word)) >= 0), default=-1)
    if first < 0 or not has(text, "late_transfer_after") or has(text[first:], "free_transfer"):
        return None
    return _amount(text[first:])


def level_difference(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「转到不同级别的，按两个级别的学费差价多退少补」."""
    for s in sents:
        if has(s.text, "level_difference") and has(s.text, "level_difference_also"):
            return {"level_difference": Fact("level_difference", True, s.source)}
    return {}


def rounding(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「金额四舍五入保留到分」「按元取整」: a rounding rule for amounts, when the documents state one."""
    for s in sents:
        if has(s.text, "rounding") and ("金额" in s.text or "元" in s.text or "退" in s.text):
            unit = next((u for u in ("分", "角", "元") if f"到{u}" in s.text or f"按{u}" in s.text), None)
            if unit is not None:
                return {"rounding": Fact("rounding", Rounding(places=_PLACES[unit]), s.source)}
    return {}


def parse_hours(text: str) -> tuple[int, int] | None:
    """「9:00–21:00」 → (540, 1260): the first daily span of the clock in `text`, in minutes after midnight; None
    when there is none or it does not read as a span within one day."""
    match = _HOURS_RE.search(text or "")
    if not match:
        return None
    start_h, start_m, end_h, end_m = (int(g) for g in match.groups())
    start, end = start_h * 60 + start_m, end_h * 60 + end_m
    if max(start_m, end_m) > 59 or not 0 <= start < end <= 24 * 60:
        return None
    return start, end


def service_hours(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「人工服务时间为每天 9:00–21:00」: when a person answers after 转人工."""
    for s in sents:
        if has(s.text, "service_hours"):
            hours = parse_hours(s.text)
            if hours is not None:
                return {"service_hours": Fact("service_hours", hours, s.source)}
    return {}


def retention(_: Sequence[Line], sents: Sequence[Line], __: tuple[Level, ...]) -> Found:
    """「对话记录保存 90 天」: how long conversation records are kept."""
    for s in sents:
        if has(s.text, "retention") and has(s.text, "retention_keep"):
            days = _figure_after(s.text, "", "天")
            if days is not None and days > 0:
                return {"retention_days": Fact("retention_days", days, s.source)}
    return {}


@dataclass(frozen=True)
class FactReader:
    """One named reader: the fields it fills, each with its Chinese label and the kind of sentence that states it."""

    name: str
    function: Callable[[Sequence[Line], Sequence[Line], tuple[Level, ...]], Found]
    fields: tuple[tuple[str, str, str], ...]  # (field, label, expected sentence)
    optional: tuple[str, ...] = ()  # fields whose absence is no missing fact (rounding: the default rule)


READERS: tuple[FactReader, ...] = (
    FactReader("levels", levels, (("levels", "级别名称和编号", "「<级别名>（一级）、<级别名>（二级）…」"),)),
    FactReader("tuition", tuition, (("tuition", "各级学费", "「<级别名>（N级）：N 元」"),)),
    FactReader("lessons_per_level", lessons_per_level, (("lessons_per_level", "每级课时数", "「每一级都是 N 课时」"),
                                                        ("weeks_per_level", "每级上几周", "「N 周结课」")),
               optional=("weeks_per_level",)),
    FactReader("lessons_per_week", lessons_per_week, (("lessons_per_week", "每周课时数", "「每周上 N 课时」"),)),
    FactReader("refund_formula", refund_formula,
               (("refund_formula", "开课后退费公式", "「可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费」"),)),
    FactReader("fee_rule", fee_rule, (("fee_rule", "退费手续费的算法", "「手续费为 … 的 N%，单笔最低 N 元」"),
                                      ("fee_rate", "退费手续费费率", "「手续费为 … 的 N%」"),
                                      ("fee_minimum", "退费手续费最低金额", "「单笔最低 N 元」"))),
    FactReader("textbook", textbook, (("textbook_fee", "教材费", "「教材费每级 N 元」"),
                                      ("textbook_not_refunded", "教材费不退", "「教材费不在退费范围内」"))),
    FactReader("over_half", over_half,
               (("over_half", "不再受理退费的课时", "「已上课时超过总课时的一半（即超过 N 课时）后，不再受理退费」"),
                ("half_rule", "超过一半不再退费", "「已上课时超过总课时的一半后，不再受理退费」")), optional=("half_rule",)),
    FactReader("before_start", before_start, (("before_start", "开课前退费", "「开课前申请退费的，学费全额退还」"),)),
    FactReader("transfers", transfers, (("free_transfer", "免费转班的课时范围", "「开课后 N 课时内，可以免费转班一次」"),
                                        ("transfer_fee", "转班手续费", "「从第 N 次转班起，每次收取 N 元转班手续费」"),
                                        ("late_transfer_fee", "过了免费范围才第一次转班的手续费",
                                         "「已上课时超过 N 课时后才第一次转班的，收取 N 元转班手续费」")),
               optional=("late_transfer_fee",)),
    FactReader("level_difference", level_difference,
               (("level_difference", "转到不同级别的差价", "「转到不同级别的，按两个级别的学费差价多退少补」"),)),
    FactReader("service_hours", service_hours, (("service_hours", "人工服务时间", "「人工服务时间为每天 9:00–21:00」"),),
               optional=("service_hours",)),
    FactReader("retention", retention, (("retention_days", "对话记录保存天数", "「对话记录保存 N 天」"),),
               optional=("retention_days",)),
    FactReader("rounding", rounding, (("rounding", "金额的舍入", "「金额四舍五入保留到分」"),), optional=("rounding",)),
)
LABELS: dict[str, str] = {field: label for reader in READERS for field, label, _ in reader.fields}


def read_facts(documents: Sequence[tuple[str, str]]) -> SchoolFacts:
    """The facts the (file name, Markdown text) documents state, in file order; see the module docstring."""
    lines = document_lines(documents)
    sents = sentences(lines)
    found: Found = {}
    for reader in READERS:
        known: tuple[Level, ...] = found.get("levels", ())  # type: ignore[assignment]
        for key, value in reader.function(lines, sents, known).items():
            found.setdefault(key, value)
    missing = [Missing(field, label, expected) for reader in READERS for field, label, expected in reader.fields
               if field not in found and field not in reader.optional]
    tuition_of = {f.value[0] for f in found.get("tuition", ())}  # type: ignore[attr-defined]
    for level in found.get("levels", ()):  # type: ignore[attr-defined]
        if level.number not in tuition_of:
            missing.append(Missing(f"tuition:{level.number}", f"{level.name}的学费",
                                   f"「{level.name}（{level.number}级）：N 元」"))
    lessons: PerLevel | None = found.get("lessons_per_level")  # type: ignore[assignment]
    for level in found.get("levels", ()) if lessons is not None else ():  # type: ignore[attr-defined]
        if lessons.of(level.number) is None:  # type: ignore[union-attr]
            missing.append(Missing(f"lessons_per_level:{level.number}", f"{level.name}的课时数",
                                   f"「{level.name}（{level.number}级）N 课时」"))
    return SchoolFacts(**found, missing=tuple(missing), files=tuple(name for name, _ in documents))  # type: ignore[arg-type]


def read_chunk_facts(chunks: Sequence[Document]) -> SchoolFacts:
    """The facts of an index built from chunks alone (no files at hand: a test's or a script's index): each file's
    chunks, in order, read as its sections (an overlap repeats a sentence; the first statement wins anyway)."""
    files: dict[str, list[str]] = {}
    for chunk in chunks:
        meta = chunk.metadata
        heading = str(meta.get("heading") or "")
        files.setdefault(str(meta.get("source") or ""), []).append((f"## {heading}\n" if heading else "") + chunk.page_content)
    return read_facts([(name, "\n\n".join(parts)) for name, parts in files.items()])
