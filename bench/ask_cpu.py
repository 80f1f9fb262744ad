"""Where one consultant's ask spends its CPU, with no approved answers and with many: what bench.load multiplies.

Run from the repository root:  .venv/bin/python -m bench.ask_cpu [--approved N] [--questions N] [--postgres-url URL]
(default: SQLite in a temporary folder; with --postgres-url, or XIAOE_TEST_DATABASE_URL, also a fresh schema of that
PostgreSQL database, dropped afterwards).

One signed-in consultant in this process, as bench.load's: for each question of the load test's sets, the page's
reads (bench/page_profile.py's calls), the ask through the one `Assistant` (offline answerer), the queue write;
CPU time (`time.process_time`) per part, averaged. Measured twice — on an empty database, then after every answered
question of the sets was queued and approved (up to --approved): the reuse step checks every approved answer near a
question, so this is the cost that grows as the school approves answers. Each row asks the sets once in a fresh
assistant (its caches cold) and once more (warm).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.load import ROOT, ask, load_questions, postgres_schema, sign_in_everyone
from bench.load_profile import PageReads, page_calls
from core.assistant import open_assistant
from core.settings import Settings
from core.stores import db as core_db
from core.stores.accounts import AccountStore
from core.stores.glossary import GlossaryStore
from core.stores.review import Filters, ReviewStore
from core.stores.schemas import SCHEMAS
from core.stores.sessions import SessionStore
from core.values import Problem


def measure(settings: Settings, url: str, questions: list[str], calls: dict[str, int], token: str) -> dict[str, float]:
    """Mean CPU milliseconds per ask for each part, the sets asked once cold and once warm."""
    db = core_db.open_database(url)
    store, accounts = ReviewStore(db), AccountStore(db)
    reads = PageReads(calls, accounts, SessionStore(accounts), GlossaryStore(db), settings, token)
    assistant = open_assistant(settings, with_model=False)
    parts: dict[str, list[float]] = {"reads": [], "answer": [], "write": [], "cold": [], "warm": []}
    for round_name in ("cold", "warm"):
        for question in questions:
            started = time.process_time()
            reads()
            read = time.process_time()
            outcome = ask(assistant, question)
            answered = time.process_time()
            store.record(outcome)
            done = time.process_time()
            parts[round_name].append(done - started)
            if round_name == "warm":
                parts["reads"].append(read - started)
                parts["answer"].append(answered - read)
                parts["write"].append(done - answered)
    return {name: statistics.mean(values) * 1000 for name, values in parts.items()}


def approve_answers(settings: Settings, url: str, questions: list[str], limit: int) -> int:
    """Queue every answered question and approve each, as consultants would; how many were approved."""
    db = core_db.open_database(url)
    store = ReviewStore(db)
    assistant = open_assistant(settings, with_model=False)
    for question in questions:
        outcome = ask(assistant, question)
        if not outcome.answer.refused:
            store.enqueue(outcome.answer, origin="manual", fingerprint="ask-cpu", flagged_by="压测",
                          extra_reasons=(Problem("manual", "压测标记"),))
    approved = 0
    while approved < limit:
        page = store.list(Filters(status="pending"), limit=50)
        if not page.items:
            break
        for item in page.items[:limit - approved]:
            store.decide(item.id, action="approve", reviewer="压测顾问", expected_version=item.version, note="压测")
            approved += 1
    return approved


def run(engine: str, url: str, folder: Path, args, questions: list[str], calls: dict[str, int]) -> list[tuple]:
    settings = Settings.from_env({"XIAOE_DATA_DIR": str(folder / engine), "XIAOE_CORPUS_DIR": str(ROOT / "corpus"),
                                  "XIAOE_DATABASE_URL": url})
    database = core_db.open_database(url)
    for schema in SCHEMAS:
        database.migrate(schema)
    (token,) = sign_in_everyone(url, 1)
    rows = [(engine, 0, measure(settings, url, questions, calls, token))]
    approved = approve_answers(settings, url, questions, args.approved)
    rows.append((engine, approved, measure(settings, url, questions, calls, token)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description="一名顾问一次提问的 CPU：没有已审答案时和有很多已审答案时")
    parser.add_argument("--approved", type=int, default=400, help="最多通过多少条已审答案，默认 400")
    parser.add_argument("--questions", type=int, default=0, help="只用题集的前 N 题（默认全部）")
    parser.add_argument("--postgres-url", default=os.environ.get("XIAOE_TEST_DATABASE_URL", ""),
                        help="也在这个 PostgreSQL 上测（postgresql+psycopg://…）；默认取 XIAOE_TEST_DATABASE_URL")
    args = parser.parse_args()
    if not 0 <= args.approved <= 5000 or args.questions < 0:
        parser.error("--approved 须在 0~5000，--questions 不能是负数")
    questions, calls = load_questions(), page_calls()
    questions = questions[:args.questions] if args.questions else questions
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        rows += run("sqlite", f"sqlite:///{Path(folder) / 'ask-cpu.sqlite3'}", Path(folder), args, questions, calls)
        if args.postgres_url:
            url, drop = postgres_schema(args.postgres_url)
            try:
                rows += run("postgresql", url, Path(folder), args, questions, calls)
            finally:
                drop()
    print(f"\n每问 CPU（毫秒，time.process_time，{len(questions)} 题各问一遍；页面读库按真实页面：{calls}）")
    print("数据库 | 已审答案 | 首遍（冷） | 再一遍（热） | 其中页面读库 | 作答 | 写队列")
    for engine, approved, m in rows:
        print(f"{engine} | {approved} | {m['cold']:.1f} | {m['warm']:.1f} | {m['reads']:.1f} | {m['answer']:.1f} | "
              f"{m['write']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
