"""The one home of time: now in UTC, a stored moment as aware UTC, and a moment in the reader's local time.

SQLite hands datetimes back without their zone (every store writes UTC), PostgreSQL with it; every store,
page and command goes through these three, so no comparison mixes naive and aware values.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def as_utc(moment: datetime) -> datetime: ...
@overload
def as_utc(moment: None) -> None: ...
def as_utc(moment: datetime | None) -> datetime | None:
    """`moment` as aware UTC: a naive value is taken to be UTC (as the stores wrote it), an aware one converted."""
    if moment is None:
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def local(moment: datetime) -> datetime:
    """`moment` in this machine's local time zone, for display."""
    return as_utc(moment).astimezone()
