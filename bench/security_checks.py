"""Security figures for docs/accounts.md: one line per item of issue #29, parallel sign-ins, and the model deadline.

    .venv/bin/python -m bench.security_checks [--attempts 40] [--drip 2] [--timeout 3] [--only-29] [--only-41]

0. Issue #29 (round 3): one measured line per item (bench/security_round3.py), and issue #41 (round 4): one per
   finding fixed on the hardening branch (bench/security_round4.py), on SQLite and, with
   XIAOE_TEST_DATABASE_URL, PostgreSQL too where storage is involved.
1. Parallel sign-ins: `--attempts` threads start together on one user name (all wrong but the
   last, which waits until the fifth password has been checked); the table shows how many
   passwords were checked, whether the right one got in, and the wall time, from one known address
   (locked for 10 minutes) and from an unknown source (the name waits 1 s, 2 s … instead). SQLite always;
   PostgreSQL too when XIAOE_TEST_DATABASE_URL names a database (a fresh schema is used and dropped).
2. Model deadline: a local OpenAI-compatible server sends one piece every `--drip` seconds of a
   long answer; with XIAOE_LLM_TIMEOUT=`--timeout`, how long the API (Pipeline.answer) and the CLI
   (`python -m core ask`, a subprocess) take to give up, and what they say.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from bench.security_round3 import lines  # noqa: E402
from bench.security_round4 import lines as lines_41  # noqa: E402
from core.errors import AccountLocked, AuthError, ModelError  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.stores.accounts import AccountStore  # noqa: E402
from core.stores.db import Database  # noqa: E402
from core.stores.sessions import MAX_FAILURES, SessionStore  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.security.helpers import CountingHasher  # noqa: E402

PASSWORD = "correct horse 42"
QUESTION = "口语课一共有几级？"  # answered by the gate (the longer one with 每级 is now refused before any model call)


def parallel_sign_ins(url: str, attempts: int, source: str | None = "203.0.113.9") -> tuple[int, str, float]:
    hasher = CountingHasher()
    db = Database(url, busy_timeout_ms=60_000)
    store = AccountStore(db, hasher=hasher)
    store.add("amy", PASSWORD, actor="bench")
    hasher.checked = 0
    signer = SessionStore(store)
    barrier = threading.Barrier(attempts)
    outcome: dict[str, str] = {}

    def attempt(n: int) -> None:
        barrier.wait()
        right = n == attempts - 1
        if right:
            hasher.reached(MAX_FAILURES).wait(timeout=60)
        try:
            signer.sign_in("amy", PASSWORD if right else f"wrong {n}", source=source)
            if right:
                outcome["right"] = "signed in"
        except AccountLocked as error:
            if right:
                outcome["right"] = "refused (must wait)" if "秒后再试" in str(error) else "refused (locked)"
        except AuthError:
            if right:
                outcome["right"] = "refused (bad credentials)"

    start = time.perf_counter()
    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    db.dispose()
    return hasher.checked, outcome.get("right", "?"), elapsed


def pg_schema_url(base: str) -> tuple[str, str]:
    schema = f"bench_{secrets.token_hex(4)}"
    with create_engine(base).begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False), schema


def drop_schema(base: str, schema: str) -> None:
    with create_engine(base).begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))


def deadline_api(settings: Settings) -> tuple[float, float, str]:
    from core.assistant import open_assistant

    assistant = open_assistant(settings)  # index, decision and model (langchain-openai import) outside the clock
    start = time.perf_counter()
    gate = assistant.gate(assistant.retrieve(QUESTION))
    model_start = time.perf_counter()
    try:
        "".join(assistant.stream(gate))
        said = "answered (no deadline)"
    except ModelError as error:
        said = f"ModelError kind={error.kind}"
    end = time.perf_counter()
    return end - start, end - model_start, said


def deadline_cli(env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "core", "ask", QUESTION], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    said = "timeout message" if "秒内没有答完" in done.stderr else f"exit {done.returncode}"
    return elapsed, said


def fresh_databases() -> list[tuple[str, object]]:
    """(engine name, a context manager factory yielding the URL of a fresh empty database) for each engine at hand."""
    @contextlib.contextmanager
    def sqlite():
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/bench.sqlite3"

    engines = [("SQLite", sqlite)]
    base = os.environ.get("XIAOE_TEST_DATABASE_URL", "")
    if base:
        @contextlib.contextmanager
        def postgresql():
            url, schema = pg_schema_url(base)
            try:
                yield url
            finally:
                from core.stores import db as core_db

                cached = core_db._databases.pop(url, None)
                if cached is not None:
                    cached.dispose()
                drop_schema(base, schema)
        engines.append(("PostgreSQL", postgresql))
    return engines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=40)
    parser.add_argument("--drip", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--only-29", action="store_true", help="only the issue #29 lines")
    parser.add_argument("--only-41", action="store_true", help="only the issue #41 lines")
    args = parser.parse_args()

    if not args.only_41:
        print("## Issue #29 (round 3): one line per item")
        for line in lines(fresh_databases()):
            print(line)
    if not args.only_29:
        print("## Issue #41 (round 4): one line per finding fixed here")
        for line in lines_41(fresh_databases(), base_url=os.environ.get("XIAOE_TEST_DATABASE_URL", "")):
            print(line)
    if args.only_29 or args.only_41:
        return
    print()

    print(f"## Parallel sign-ins: {args.attempts} at once, {args.attempts - 1} wrong, 1 right (after the 5th check)")
    print("| engine | source | passwords checked | right password | wall time (s) |")
    print("|---|---|---|---|---|")
    for engine, fresh in fresh_databases():
        for label, source in (("one address", "203.0.113.9"), ("unknown (waits, no lock)", None)):
            with fresh() as url:
                checked, right, elapsed = parallel_sign_ins(url, args.attempts, source)
            print(f"| {engine} | {label} | {checked} | {right} | {elapsed:.2f} |")
    print()
    print(f"## Model deadline: one piece every {args.drip:g} s, XIAOE_LLM_TIMEOUT={args.timeout:g}")
    print("| path | whole call (s) | of which the model call (s) | outcome |")
    print("|---|---|---|---|")
    server = FakeOpenAI(reply="口语课一共四级[1]。" * 40, drip=args.drip, stream_piece=4)
    try:
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "XIAOE_DATA_DIR": folder, "XIAOE_LLM_BASE_URL": server.base_url,
                   "XIAOE_LLM_MODEL": "fake-chat", "XIAOE_LLM_API_KEY": "sk-bench-0123456789abcdef",
                   "XIAOE_LLM_TIMEOUT": f"{args.timeout:g}", "XIAOE_LLM_MAX_RETRIES": "0",
                   "XIAOE_MIN_SCORE": "0.05", "NO_PROXY": "127.0.0.1,localhost"}
            env.pop("XIAOE_DATABASE_URL", None)
            settings = Settings.from_env(env)
            whole, model, said = deadline_api(settings)
            print(f"| API (Assistant: retrieve + gate, then stream) | {whole:.2f} | {model:.2f} | {said} |")
            offline = {k: v for k, v in env.items() if not k.startswith("XIAOE_LLM_")}
            deadline_cli(offline)  # builds and caches the index, so the next two runs compare like with like
            baseline, _ = deadline_cli(offline)
            elapsed, said = deadline_cli(env)
            print(f"| CLI (python -m core ask, whole process) | {elapsed:.2f} | ≈ {elapsed - baseline:.2f} "
                  f"(minus the same command offline, {baseline:.2f} s) | {said} |")
            probe = "import time; t = time.perf_counter(); import langchain_openai; print(time.perf_counter() - t)"
            imported = float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                            check=True).stdout)
            print(f"| (importing langchain-openai in a new process, part of the CLI's model run) | {imported:.2f} | "
                  "— | — |")
    finally:
        server.close()


if __name__ == "__main__":
    main()
