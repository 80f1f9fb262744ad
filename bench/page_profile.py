"""What one signed-in Ask rerun asks of the database: the store calls and the statements per table, measured on the real page.

    .venv/bin/python -m bench.page_profile [--json]

Runs the router in Streamlit's AppTest with sign-in on (SQLite in a temporary folder), signs a consultant in,
asks once to warm the caches, then counts, for one more ask: the calls the page makes into the stores (saved
defaults through `resolve_defaults`, session resumes, "any account?", glossary loads) and every statement
by the table it reads or writes. bench/load.py replays exactly these calls for each simulated ask, so the
load test pays what the page pays; the table says where an ask's round trips go.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "退费怎么算？"
TABLE = re.compile(r"\b(?:FROM|JOIN|UPDATE|INTO)\s+\"?(\w+)", re.IGNORECASE)


def profile() -> dict:
    """{"calls": {store call: count}, "statements": {table: count}, "total": n} for one signed-in Ask rerun."""
    folder = Path(tempfile.mkdtemp(prefix="xiaoe-page-profile-"))
    saved = dict(os.environ)
    try:
        shutil.copytree(ROOT / "corpus", folder / "corpus")
        for name in [n for n in os.environ if n.startswith("XIAOE_")]:
            del os.environ[name]
        os.environ.update({"XIAOE_CORPUS_DIR": str(folder / "corpus"), "XIAOE_DATA_DIR": str(folder / "data"),
                           "XIAOE_AUTH": "on"})
        return _measure()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(folder, ignore_errors=True)


def measured() -> dict:
    """`profile()` in a fresh process (AppTest leaves threads and caches behind; a forking caller must have none)."""
    done = subprocess.run([sys.executable, "-m", "bench.page_profile", "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"bench.page_profile failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _measure() -> dict:
    from argon2 import PasswordHasher
    from sqlalchemy import event
    from streamlit.testing.v1 import AppTest

    import ui.state
    from core.settings import Settings
    from core.stores.accounts import AccountStore
    from core.stores.db import open_database
    from core.stores.glossary import GlossaryStore
    from core.stores.sessions import SessionStore

    db = open_database(Settings.from_env().db_url)
    password = "correct horse 42"
    AccountStore(db, hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)).add(
        "amy", password, actor="bench")
    router = str(ROOT / "streamlit_app.py")
    at = AppTest.from_file(router, default_timeout=60).run()
    at.text_input(key="login_username").set_value("amy")
    at.text_input(key="login_password").set_value(password)
    at.button(key="login_submit").click().run()
    token = at.session_state["auth_token"]
    at = AppTest.from_file(router, default_timeout=60)
    at.session_state["auth_token"] = token
    at.run()
    at.text_input(key="question").set_value("口语课一共有几级？")
    at.button(key="ask").click().run()  # warm caches, as a running console has

    calls: collections.Counter = collections.Counter()
    statements: collections.Counter = collections.Counter()

    def counted(name: str, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    any_account = "has_accounts" if hasattr(AccountStore, "has_accounts") else "count"  # count(): before 39db7ae
    # The saved defaults are read once per run by the router (ui.state.resolve_run → resolve_defaults).
    patches = [(ui.state, "resolve_defaults", "settings"), (SessionStore, "resume", "resume"),
               (AccountStore, any_account, "has_accounts"), (GlossaryStore, "load", "glossary")]
    originals = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    for owner, attr, name in patches:
        setattr(owner, attr, counted(name, getattr(owner, attr)))

    def seen(conn, cursor, statement, parameters, context, executemany) -> None:
        found = TABLE.search(statement)
        statements[found.group(1) if found else "(other)"] += 1

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        at.text_input(key="question").set_value(QUESTION)
        at.button(key="ask").click().run()
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
        for owner, attr, original in originals:
            setattr(owner, attr, original)
    if at.exception:
        raise RuntimeError(f"the Ask page failed: {at.exception}")
    return {"calls": {name: calls[name] for _, _, name in patches}, "statements": dict(statements.most_common()),
            "total": sum(statements.values())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object (bench/load.py)")
    args = parser.parse_args()
    result = profile()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    print(f"One signed-in Ask rerun ({QUESTION}): {result['total']} statements")
    print("| store call | per rerun |\n|---|---|")
    for name, count in result["calls"].items():
        print(f"| {name} | {count} |")
    print("| table | statements |\n|---|---|")
    for table, count in result["statements"].items():
        print(f"| {table} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
