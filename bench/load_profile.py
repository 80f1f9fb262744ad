"""Where a simulated ask's time goes in bench/load.py: the page's database reads, the answer, the queue write;
statements, transactions, time inside the database driver and time waiting for a pooled connection.

`Probe` hangs SQLAlchemy events on one consultant process's engine; `PageReads` replays, before every ask,
the store calls a signed-in Ask rerun makes (measured on the real page by bench/page_profile.py), so the
load test pays what the console pays per question.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from sqlalchemy import event


class Probe:
    """Counters on one engine: statements, transactions begun, seconds in the driver, seconds waiting for the pool."""

    def __init__(self, engine) -> None:
        self.statements = self.transactions = 0
        self.db_s = self.pool_s = 0.0
        self._started: dict[int, float] = {}
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)
        event.listen(engine, "begin", self._begin)
        pool = engine.pool
        connect = pool.connect

        def timed_connect():
            start = time.perf_counter()
            try:
                return connect()
            finally:
                self.pool_s += time.perf_counter() - start
        pool.connect = timed_connect  # the pool's checkout, including any wait for a free connection

    def _before(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.statements += 1
        self._started[id(cursor)] = time.perf_counter()

    def _after(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.db_s += time.perf_counter() - self._started.pop(id(cursor), time.perf_counter())

    def _begin(self, conn) -> None:
        self.transactions += 1

    def reading(self) -> tuple[int, int, float, float]:
        return self.statements, self.transactions, self.db_s, self.pool_s


def page_calls() -> dict[str, int]:
    """The store calls of one signed-in Ask rerun, measured on the real page (in a subprocess: no threads before fork)."""
    from bench.page_profile import measured

    return measured()["calls"]


@dataclass
class PageReads:
    """Replays a rerun's reads: has any account, resume the session, settings with the saved defaults, the glossary."""

    calls: dict[str, int]
    accounts: object
    sessions: object
    glossary: object
    settings: object
    token: str

    def __call__(self) -> None:
        from core.stores.defaults import effective_settings

        any_account = getattr(self.accounts, "has_accounts", None) or self.accounts.count  # count(): before 39db7ae
        for _ in range(self.calls.get("has_accounts", 0)):
            any_account()
        for _ in range(self.calls.get("resume", 0)):
            self.sessions.resume(self.token)
        for _ in range(self.calls.get("settings", 0)):
            effective_settings(self.settings)
        for _ in range(self.calls.get("glossary", 0)):
            self.glossary.load()


@dataclass
class AskTally:
    """Per-ask figures of one process (milliseconds and counts), merged in the parent."""

    total: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    answer: list[float] = field(default_factory=list)
    write: list[float] = field(default_factory=list)
    db: list[float] = field(default_factory=list)
    pool: list[float] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)
    transactions: list[int] = field(default_factory=list)

    def add(self, other: AskTally) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(other, name))


def p50(values) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) >= 20 else float("nan")


def print_profile(rows: list[dict], calls: dict[str, int]) -> None:
    """Where an ask's time goes, per engine and crowd size (medians, and p95 where the tail matters)."""
    reads = "、".join(f"{name} ×{count}" for name, count in calls.items())
    print(f"\n一次提问的时间花在哪里（每次提问先重放提问页一次重跑的读库：{reads}；由 bench/page_profile.py 在真实页面上量出）")
    header = ("数据库", "每问读设置", "顾问", "语句/问", "事务/问", "页面读库 p50/p95", "作答 p50/p95", "写队列 p50/p95",
              "其中在驱动里 p50/p95", "等连接池 p95", "总计 p50/p95")
    print(" | ".join(header))
    for r in rows:
        t: AskTally = r["tally"]
        print(" | ".join(str(v) for v in (
            r["engine"], r["settings_reads"], r["consultants"], f"{p50(t.statements):.0f}", f"{p50(t.transactions):.0f}",
            f"{p50(t.reads):.1f} / {p95(t.reads):.0f}", f"{p50(t.answer):.1f} / {p95(t.answer):.0f}",
            f"{p50(t.write):.1f} / {p95(t.write):.0f}", f"{p50(t.db):.1f} / {p95(t.db):.0f}", f"{p95(t.pool):.2f}",
            f"{p50(t.total):.0f} / {p95(t.total):.0f}")))
    print("（毫秒。每名顾问一个进程、一个连接池（SQLAlchemy QueuePool，5+10），进程是单线程的，所以池里只用到一个连接；"
          "「在驱动里」是 SQL 语句从发出到返回的时间，包括在数据库那边排队等 CPU。）")
