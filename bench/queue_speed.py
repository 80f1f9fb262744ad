"""How fast is the review queue with 100,000 items in SQLite? Prints a table against the targets.

Run from the repository root: `.venv/bin/python bench/queue_speed.py [--items N]`.
Measures: one filtered page (50 rows) with a status filter and a text search, the counts row,
enqueue rate (one transaction per batch, and one transaction per item) and a full CSV export.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update  # noqa: E402

from core.stores.db import Database  # noqa: E402
from core.stores.review import Filters, ReviewStore  # noqa: E402
from core.stores.review_schema import review_items  # noqa: E402
from core.values import Hit, Problem, RAGAnswer

TOPICS = ["退费规则", "转班手续", "口语课分级", "课时安排", "优惠活动", "请假补课", "外教资质", "教材费用",
          "试听课", "续费折扣"]
PROBLEMS = [Problem("bad_ref", "引用了不存在的编号 [7]，本次只提供了 1~3", (20, 23)),
            Problem("no_refs", "通篇没有标注任何出处编号"),
            Problem("unsupported_number", "数字“80%”在资料里找不到", (8, 11))]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=30)
        return self.now


def make_answer(i: int) -> RAGAnswer:
    topic = TOPICS[i % len(TOPICS)]
    hits = tuple(Hit(rank=r, source=f"0{r}-资料.md", heading=f"{topic}·第{r}节", chunk=i % 40 + r,
                     start=r * 100, end=r * 100 + 90, text=f"{topic}的规定第{r}条：" + "内容" * 40,
                     score=0.5 - r * 0.1, passed=r == 1) for r in (1, 2, 3))
    return RAGAnswer(question=f"学员{i}问：{topic}具体是怎样的？第{i % 97}期班可以吗？",
                     text=f"关于{topic}，开课 7 天内可退 80% [7]。" + "具体以合同为准。" * 8, hits=hits[:1],
                     candidates=hits, threshold=0.2, k=3, refused=False, model_called=True,
                     problems=(PROBLEMS[i % 3],) + ((PROBLEMS[1],) if i % 7 == 0 else ()))


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    """Median wall time in seconds over `repeat` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite:///{Path(tmp) / 'queue.sqlite3'}")
        store = ReviewStore(db, clock=Clock())
        batch = 5_000
        total = args.items - 1_000
        filled, start = 0, time.perf_counter()
        while filled < total:
            n = min(batch, total - filled)
            store.enqueue_many([make_answer(filled + j) for j in range(n)], fingerprint="bench")
            filled += n
        batched_rate = total / (time.perf_counter() - start)
        one_time, _ = timed(lambda: [store.enqueue(make_answer(total + j), fingerprint="bench")
                                     for j in range(1_000)])
        single_rate = 1_000 / one_time
        with db.transaction() as conn:  # setup only: spread decisions so the status filter means something
            conn.execute(update(review_items).where(review_items.c.id % 3 == 0).values(status="approved"))
            conn.execute(update(review_items).where(review_items.c.id % 5 == 0).values(status="rejected"))

        pending_search = Filters(status="pending", search="转班")
        list_time, page = timed(lambda: store.list(pending_search, limit=50), repeat=5)
        list_status_time, _ = timed(lambda: store.list(Filters(status="pending"), limit=50), repeat=5)
        miss_time, _ = timed(lambda: store.list(Filters(status="pending", search="没有这个词"), limit=50), repeat=5)
        lane_time, _ = timed(lambda: store.list(Filters(status="pending", lane="number"), limit=50), repeat=5)
        deep_time, _ = timed(lambda: store.list(Filters(status="pending"), offset=40_000, limit=50), repeat=5)
        counts_time, counts = timed(store.counts, repeat=5)
        export_time, exported = timed(lambda: store.export_csv(Path(tmp) / "export.csv"))

        rows = [
            ("列表：待复核 + 搜索「转班」，50 条", f"{list_time * 1000:.0f} ms", "≤ 200 ms", list_time <= 0.2),
            ("列表：待复核 + 搜索无结果（扫全表）", f"{miss_time * 1000:.0f} ms", "≤ 200 ms", miss_time <= 0.2),
            ("列表：仅待复核，50 条", f"{list_status_time * 1000:.0f} ms", "≤ 200 ms", list_status_time <= 0.2),
            ("列表：待复核 + 通道「数字无出处」", f"{lane_time * 1000:.0f} ms", "≤ 200 ms", lane_time <= 0.2),
            ("列表：待复核，第 801 页", f"{deep_time * 1000:.0f} ms", "≤ 200 ms", deep_time <= 0.2),
            ("计数（按状态、按通道）", f"{counts_time * 1000:.0f} ms", "≤ 200 ms", counts_time <= 0.2),
            ("入队：每批 5000 条一个事务", f"{batched_rate:,.0f} 条/秒", "≥ 500 条/秒", batched_rate >= 500),
            ("入队：每条一个事务", f"{single_rate:,.0f} 条/秒", "≥ 500 条/秒", single_rate >= 500),
            (f"导出 CSV：{exported:,} 条", f"{export_time:.1f} s", "≤ 10 s", export_time <= 10),
        ]
        print(f"复核队列性能（SQLite，{args.items:,} 条；搜索命中 {page.total:,} 条；"
              f"待复核 {counts.status('pending'):,} 条）")
        print("| 项目 | 实测 | 目标 | 结果 |")
        print("|---|---|---|---|")
        for name, measured, target, ok in rows:
            print(f"| {name} | {measured} | {target} | {'达标' if ok else '未达标'} |")
        db.dispose()


if __name__ == "__main__":
    main()
