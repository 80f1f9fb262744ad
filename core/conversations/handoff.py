"""转人工 as the documents say: a student's 「人工」「转人工」 hands the conversation to a person; outside the service
hours the student is told when a person will answer.

The words are data (core/data/followup_words.txt: handoff, handoff_polite). The service hours and the retention are
school facts (core.facts: 「人工服务时间为每天 9:00–21:00」「对话记录保存 90 天」); XIAOE_SERVICE_HOURS and
XIAOE_RETENTION_DAYS override them when set. Plain functions of the text, the facts, the settings and a moment.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from core.conversations.words import words
from core.errors import ConfigError
from core.facts.reader import parse_hours
from core.settings import Settings
from core.values.facts import SchoolFacts

_PUNCT_RE = re.compile(r"[\s，,。.！!？?~～、…]+")


def asks_for_person(message: str) -> bool:
    """The message is a request for a person and nothing else: 「人工」「转人工」「我要人工！」「帮我转人工客服吧」."""
    bare = _PUNCT_RE.sub("", message or "").lower()
    polite = words("handoff_polite")
    changed = True
    while changed and bare not in words("handoff"):
        changed = False
        for word in polite:
            if bare.startswith(word) and bare[len(word):]:
                bare, changed = bare[len(word):], True
                break
            if bare.endswith(word) and bare[:-len(word)]:
                bare, changed = bare[:-len(word)], True
                break
    return bare in words("handoff")


def hours_in_force(facts: SchoolFacts, settings: Settings) -> tuple[int, int] | None:
    """The service hours (minutes after midnight): XIAOE_SERVICE_HOURS, else the documents' sentence, else None."""
    if settings.service_hours:
        hours = parse_hours(settings.service_hours)
        if hours is None:
            raise ConfigError(f"XIAOE_SERVICE_HOURS（{settings.service_hours}）要写成「9:00-21:00」这样的起止时间。")
        return hours
    return facts.service_hours.value if facts.service_hours is not None else None


def retention_in_force(facts: SchoolFacts, settings: Settings) -> int | None:
    """Days conversation records are kept: XIAOE_RETENTION_DAYS, else the documents' sentence, else None."""
    if settings.retention_days:
        return settings.retention_days
    return int(facts.retention_days.value) if facts.retention_days is not None else None


def _clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def hours_text(hours: tuple[int, int]) -> str:
    return f"每天 {_clock(hours[0])}–{_clock(hours[1])}"


def after_hours(hours: tuple[int, int] | None, moment: datetime, settings: Settings) -> str:
    """The sentence telling the student when a person will answer, or "" within the hours (or with no hours known)."""
    if hours is None:
        return ""
    local = moment.astimezone(settings.service_zone)
    minute = local.hour * 60 + local.minute
    start, end = hours
    if start <= minute < end:
        return ""
    day = "今天" if minute < start else "明天"
    opening = (local + timedelta(days=0 if minute < start else 1)).replace(hour=start // 60, minute=start % 60)
    when = f"{day}（{opening.month} 月 {opening.day} 日）{_clock(start)} 以后"
    return settings.after_hours_text.format(hours=hours_text(hours), next=when)


def handoff_reply(settings: Settings, facts: SchoolFacts, moment: datetime) -> str:
    """The configured handoff text, and outside the service hours when a person will answer."""
    late = after_hours(hours_in_force(facts, settings), moment, settings)
    return settings.handoff_text + (late if late else "")
