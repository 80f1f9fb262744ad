"""Load on the student service over real HTTP: simulated students against one and two instances, on SQLite and
PostgreSQL, offline answerer; then an audit of what the database and the App's webhook received.

Run from the repository root (loopback only; every run stops by itself):
    python -m bench.service_load --students 200 --seconds 30 --think 1.5
    python -m bench.service_load --postgres-url postgresql+psycopg://postgres@127.0.0.1:5432/xiaoe_bench
Without --postgres-url (or XIAOE_TEST_DATABASE_URL) only the SQLite rows are measured. Each row starts fresh: an
SQLite file in a temporary folder or a new PostgreSQL schema (dropped afterwards), one key (policy `flagged`, a
webhook to a local receiver), N `xiaoe serve` instances; requests alternate between them.

Each student waits a think time drawn from an exponential with mean --think, then sends a message: 30% one of a
few popular questions (the repeats reuse approved answers once a consultant released one), the rest drawn from the
labelled student sets; 5% of requests are retried at once with the same client_msg_id (a replay). One consultant
thread releases held answers as they come (core.exchanges.release, as the queue page does). Printed: messages per
second (new messages answered, over the window from the clients' first possible send to the last answer; a student
whose next think time would end after --seconds stops sending, rather than idling the window longer), latency
p50/p95/max per status, errors, and the audit — lost exchanges (a 200 whose message is not in the database),
duplicated exchanges (two rows for one client_msg_id), replays that answered differently, double deliveries (a
released message POSTed with 2xx under two delivery ids, or an exchange with two outbox rows).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from core.errors import XiaoEError
from core.evaluation.calibration import SETS_DIR
from core.exchanges.release import decide_and_send
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.db import Database
from core.stores.exchange_schema import exchanges, outbox
from core.stores.review import Filters, ReviewStore
from tests.service.harness import Receiver, Service, make_key, start_receiver, start_service

QUESTION_SETS = ("student_questions.csv", "student_questions_v2.csv", "student_heldout_v10.csv",
                 "student_heldout_v9.csv")
POPULAR = ("口语课一共有几级？", "每节课多长时间", "退费多久能到账？", "可以跳级吗", "教材费多少钱",
           "每班最多几个人", "开课前退费能全退吗", "人工客服几点上班")
TARGET_RATE = 100.0
TARGET_P95_MS = 150.0


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    sent: dict[tuple[str, str], str] = field(default_factory=dict)  # (user, client_msg_id) → message_id
    replay_mismatch: int = 0
    new_messages: int = 0
    replays: int = 0


def questions() -> list[str]:
    found: list[str] = []
    for name in QUESTION_SETS:
        with (SETS_DIR / name).open(encoding="utf-8") as handle:
            found.extend(row["question"] for row in csv.DictReader(handle))
    return found


async def student(name: str, clients: list[httpx.AsyncClient], pool: list[str], tally: Tally, deadline: float,
                  think: float, rng: random.Random) -> None:
    """One student's messages, through their own client to each instance."""
    conversation = None
    turn = 0
    while True:
        # A think time that would end after the deadline ends this student's messages now: sleeping it out would
        # stretch the measured window with students who send nothing (and lower the rate by a quarter at 1.5 s).
        wait = rng.expovariate(1 / think) if think > 0 else 0
        if time.monotonic() + wait >= deadline:
            return
        await asyncio.sleep(wait)
        turn += 1
        query = rng.choice(POPULAR) if rng.random() < 0.3 else rng.choice(pool)
        body = {"user": name, "conversation_id": conversation, "client_msg_id": f"{name}-{turn}", "query": query}
        tries = 2 if rng.random() < 0.05 else 1
        first_id = None
        for attempt in range(tries):
            client = clients[(turn + attempt) % len(clients)]
            started = time.perf_counter()
            try:
                reply = await client.post("/v1/chat-messages", json=body)
            except httpx.HTTPError as error:
                tally.errors[type(error).__name__] += 1
                continue
            ms = (time.perf_counter() - started) * 1000
            if reply.status_code != 200:
                tally.errors[f"HTTP {reply.status_code}"] += 1
                continue
            data = reply.json()
            tally.latencies[data["status"] + (" (重放)" if attempt else "")].append(ms)
            if attempt == 0:
                tally.new_messages += 1
                first_id = data["message_id"]
                tally.sent[(name, body["client_msg_id"])] = first_id
                conversation = data["conversation_id"]
            else:
                tally.replays += 1
                if first_id is not None and data["message_id"] != first_id:
                    tally.replay_mismatch += 1


def consultant(database_url: str, stop: threading.Event, released: list[int]) -> None:
    """Release held answers as they arrive, the way a consultant on the queue page does."""
    db = Database(database_url)
    review = ReviewStore(db)
    settings = Settings()
    while not stop.is_set():
        for item in review.list(Filters(status="pending", lane="held"), limit=20).items:
            try:
                decide_and_send(review, settings, item.id, action="approve", reviewer="压测顾问",
                                expected_version=item.version)
                released.append(item.id)
            except XiaoEError:
                pass
        stop.wait(0.2)
    db.dispose()


@dataclass
class Row:
    engine: str
    instances: int
    seconds: float
    tally: Tally
    audit: dict[str, int]
    released: int


def run(engine: str, url: str, instances: int, args, data_dir: Path, folder: Path, pool: list[str]) -> Row:
    receiver: Receiver = start_receiver()
    secret = make_key(url, "bench", release="flagged", webhook=receiver.url)[0]
    env = {"XIAOE_DATA_DIR": str(data_dir), "XIAOE_RATE_USER_PER_MINUTE": "0", "XIAOE_RATE_KEY_PER_MINUTE": "0",
           **({"XIAOE_SERVICE_THREADS": str(args.threads)} if args.threads else {})}
    started: list[Service] = [start_service(folder / f"{engine}-{instances}", url, env, workers=args.workers)
                              for _ in range(instances)]
    tally, stop, released = Tally(), threading.Event(), []
    worker = threading.Thread(target=consultant, args=(url, stop, released), daemon=True)
    worker.start()
    rng = random.Random(f"{engine}-{instances}")
    window: list[float] = []  # when the first student could send, and when the last answer came back

    async def crowd() -> None:
        # Each student's own client (its own connection to each instance), all sharing one TLS context: httpx builds
        # a context per client otherwise, and 200 of them cost seconds of CPU inside the measured window, on the
        # same cores as the service. (One client shared by the crowd was slower: its pool serves 200 at once badly.)
        context = httpx.create_ssl_context(trust_env=False)
        # Idle connections are dropped after 2 s, before uvicorn's 5 s keep-alive timeout: with both at 5 s a student
        # who thought about 5 s could send on a connection the service was closing that instant (httpx ReadError).
        limits = httpx.Limits(keepalive_expiry=2.0)
        clients = [[httpx.AsyncClient(base_url=s.url, timeout=30, trust_env=False, verify=context, limits=limits,
                                      headers={"Authorization": f"Bearer {secret}"}) for s in started]
                   for _ in range(args.students)]
        window.append(time.monotonic())  # the clients are built: the measured window starts
        deadline = window[0] + args.seconds
        try:
            await asyncio.gather(*(student(f"s{n}", clients[n], pool, tally, deadline, args.think,
                                           random.Random(rng.random())) for n in range(args.students)))
            window.append(time.monotonic())
        finally:
            for client in (c for mine in clients for c in mine):
                await client.aclose()

    asyncio.run(crowd())
    elapsed = window[1] - window[0]  # --seconds of sending and the last answers in flight
    stop.set()
    worker.join()
    time.sleep(3)  # the webhook worker's last rounds
    for service in started:
        service.stop()
    audit = audit_of(url, tally, receiver)
    receiver.close()
    return Row(engine, instances, elapsed, tally, audit, len(released))


def audit_of(url: str, tally: Tally, receiver: Receiver) -> dict[str, int]:
    db = Database(url)
    with db.read() as conn:
        rows = conn.execute(select(exchanges.c.user, exchanges.c.client_msg_id, exchanges.c.message_id)).all()
        per_exchange = conn.execute(select(outbox.c.exchange_id, func.count()).where(outbox.c.exchange_id.isnot(None))
                                    .group_by(outbox.c.exchange_id)).all()
    db.dispose()
    stored = Counter((r.user, r.client_msg_id) for r in rows)
    ids = {(r.user, r.client_msg_id): r.message_id for r in rows}
    delivered = Counter(p["body"]["message"]["message_id"] for p in receiver.posts if p["status"] == 200)
    delivery_ids: dict[str, set[str]] = defaultdict(set)
    for p in receiver.posts:
        delivery_ids[p["body"]["message"]["message_id"]].add(p["body"]["delivery_id"])
    return {"lost": sum(1 for k, v in tally.sent.items() if ids.get(k) != v),
            "duplicated": sum(c - 1 for c in stored.values() if c > 1),
            "replay_mismatch": tally.replay_mismatch,
            "double_release": sum(c - 1 for _, c in per_exchange if c > 1),
            "double_delivery": sum(1 for m in delivered if len(delivery_ids[m]) > 1),
            "webhook_posts": len(receiver.posts), "delivered": len(delivered)}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def print_rows(rows: list[Row], args) -> None:
    print(f"\n学员 {args.students} 人，每人思考时间均值 {args.think} 秒，30% 常见问题、5% 重试；每行 {args.seconds} 秒；"
          f"每台实例 {args.workers} 个工作进程、"
          f"{args.threads or '默认'} 个作答线程；离线答题器")
    print("| 数据库 | 实例 | 新消息/秒 | 全部 p50 ms | 全部 p95 ms | 最大 ms | 错误 | 丢失 | 重复 | 重放不一致 | 重复放行 | 重复推送 | 放行/推送 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        every = [ms for values in r.tally.latencies.values() for ms in values]
        a = r.audit
        print(f"| {r.engine} | {r.instances} | {r.tally.new_messages / r.seconds:.1f} | {statistics.median(every):.0f} | "
              f"{percentile(every, 0.95):.0f} | {max(every):.0f} | {sum(r.tally.errors.values())} | {a['lost']} | "
              f"{a['duplicated']} | {a['replay_mismatch']} | {a['double_release']} | {a['double_delivery']} | "
              f"{r.released}/{a['delivered']} |")
    print("\n按状态（ms）：")
    print("| 数据库 | 实例 | 状态 | 条数 | p50 | p95 | 最大 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        for status, values in sorted(r.tally.latencies.items()):
            print(f"| {r.engine} | {r.instances} | {status} | {len(values)} | {statistics.median(values):.0f} | "
                  f"{percentile(values, 0.95):.0f} | {max(values):.0f} |")
    for r in rows:
        if r.tally.errors:
            print(f"{r.engine} × {r.instances} 错误：{dict(r.tally.errors)}")
    best = [r for r in rows if r.engine == "sqlite"]
    for r in best:
        every = [ms for values in r.tally.latencies.values() for ms in values]
        rate, p95 = r.tally.new_messages / r.seconds, percentile(every, 0.95)
        verdict = "达到" if rate >= TARGET_RATE and p95 <= TARGET_P95_MS else "未达到"
        print(f"目标（SQLite，{r.instances} 个实例）：≥ {TARGET_RATE:.0f} 条/秒且 p95 ≤ {TARGET_P95_MS:.0f} ms —— "
              f"{verdict}（{rate:.1f} 条/秒，p95 {p95:.0f} ms）")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="学员服务压测（真实 HTTP）")
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think", type=float, default=1.5, help="思考时间均值（秒）")
    parser.add_argument("--instances", default="1,2")
    parser.add_argument("--workers", type=int, default=1, help="每台实例的工作进程数（xiaoe serve --workers）")
    parser.add_argument("--threads", type=int, default=0,
                        help="每个工作进程同时作答的线程数（XIAOE_SERVICE_THREADS；默认用服务的设置）")
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--postgres-url", default=os.environ.get("XIAOE_TEST_DATABASE_URL", ""))
    args = parser.parse_args(argv)
    pool = questions()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        data_dir = folder / "data"
        load_or_build(Settings(data_dir=data_dir))
        for engine in args.engines.split(","):
            for instances in (int(n) for n in args.instances.split(",")):
                if engine == "sqlite":
                    url = f"sqlite:///{folder / f'bench-{instances}.sqlite3'}"
                    rows.append(run(engine, url, instances, args, data_dir, folder, pool))
                elif engine == "postgresql" and args.postgres_url:
                    with postgres_schema(args.postgres_url) as url:
                        rows.append(run(engine, url, instances, args, data_dir, folder, pool))
                elif engine == "postgresql":
                    print("没有 --postgres-url（或 XIAOE_TEST_DATABASE_URL）：跳过 PostgreSQL。", file=sys.stderr)
    print_rows(rows, args)
    return 0


class postgres_schema:
    """A fresh schema on the server for one row, dropped afterwards."""

    def __init__(self, base: str) -> None:
        self.base, self.schema = base, f"bench_{uuid.uuid4().hex[:12]}"
        self.server = create_engine(base, poolclass=NullPool, isolation_level="AUTOCOMMIT")

    def __enter__(self) -> str:
        with self.server.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
        return make_url(self.base).update_query_dict({"options": f"-csearch_path={self.schema}"}) \
            .render_as_string(hide_password=False)

    def __exit__(self, *_exc) -> None:
        with self.server.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{self.schema}" CASCADE'))
        self.server.dispose()


if __name__ == "__main__":
    sys.exit(main())
