"""The school facts as plain rows, for `xiaoe facts` and the Sources page: one per fact, with its source."""

from __future__ import annotations

from typing import Any

from core.facts.reader import LABELS
from core.language.figures import format_number
from core.language.money import Rounding
from core.values.facts import Fact, PerLevel, SchoolFacts


def _shown(fact: Fact) -> str:
    value = fact.value
    if fact.name == "tuition":
        return f"{format_number(value[1])} 元"
    if fact.name == "weeks_per_level":
        return f"{format_number(value)} 周"
    if fact.name in ("lessons_per_level", "lessons_per_week", "over_half", "free_transfer"):
        return f"{format_number(value)} 课时"
    if fact.name in ("fee_minimum", "textbook_fee", "late_transfer_fee"):
        return f"{format_number(value)} 元"
    if fact.name == "fee_rate":
        return f"{format_number(value * 100)}%"
    if fact.name == "transfer_fee":
        return f"从第 {value[0]} 次起每次 {format_number(value[1])} 元"
    if fact.name == "fee_rule":
        return f"{value[0]}按 {value[1]} 计"
    if fact.name == "service_hours":
        return f"每天 {value[0] // 60}:{value[0] % 60:02d}–{value[1] // 60}:{value[1] % 60:02d}"
    if fact.name == "retention_days":
        return f"{format_number(value)} 天"
    if isinstance(value, Rounding):
        return value.described
    if isinstance(value, tuple):
        return " = ".join(value) if fact.name == "refund_formula" else "，".join(map(str, value))
    return "有" if value is True else str(value)


def fact_rows(facts: SchoolFacts) -> list[dict[str, Any]]:
    """{name, label, value, shown, file, section, sentence} per fact, levels and tuition first."""
    rows: list[dict[str, Any]] = []
    for level in facts.levels:
        rows.append({"name": f"level:{level.number}", "label": f"第 {level.number} 级的名称", "value":
                     {"number": level.number, "name": level.name, "aliases": list(level.aliases)},
                     "shown": "、".join((level.name, *level.aliases)), **level.source.to_dict()})
    for fact in facts.tuition:
        number = fact.value[0]
        rows.append({"name": f"tuition:{number}", "label": f"{facts.level_name(number)}的学费", "value": fact.value[1],
                     "shown": _shown(fact), **fact.source.to_dict()})
    for name in LABELS:
        if name in ("levels", "tuition"):
            continue
        fact = getattr(facts, name)
        if isinstance(fact, PerLevel):
            rows += _per_level_rows(facts, name, fact)
            continue
        if fact is None:
            continue
        value = fact.value
        plain = value.described if isinstance(value, Rounding) else list(value) if isinstance(value, tuple) else value
        rows.append({"name": name, "label": LABELS[name], "value": plain, "shown": _shown(fact), **fact.source.to_dict()})
    return rows


def _per_level_rows(facts: SchoolFacts, name: str, found: PerLevel) -> list[dict[str, Any]]:
    """A per-level fact: the value for every level (`name`), then each level's own (`name:N`, 「卓越级：24 课时」)."""
    rows: list[dict[str, Any]] = []
    if found.common is not None and found.common.value is not None:
        rows.append({"name": name, "label": LABELS[name], "value": found.common.value, "shown": _shown(found.common),
                     **found.common.source.to_dict()})
    for number, fact in found.own:
        rows.append({"name": f"{name}:{number}", "label": f"{facts.level_name(number)}的{LABELS[name].removeprefix('每级')}", "level": number,
                     "value": fact.value, "shown": _shown(fact), **fact.source.to_dict()})
    return rows


def missing_rows(facts: SchoolFacts) -> list[dict[str, str]]:
    return [{"name": m.name, "label": m.label, "expected": m.expected} for m in facts.missing]
