"""#16 item 9: a corpus save killed with SIGKILL at any point leaves no unrecorded change and no orphan file.

A child process saves one file over and over and is killed (a) at fixed points of the save,
injected by wrapping the file-system calls it makes, and (b) after a random delay, a bounded
number of times. After each kill, start-up recovery (core.stores.corpus_sync) runs, and then every
file on disk must be exactly the newest version the database recorded, no temporary file may
remain, and the recorded content must be one the child meant to write.
"""

from __future__ import annotations

import hashlib
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from core.stores.corpus_admin import CorpusAdmin
from core.stores.corpus_sync import sync_corpus
from core.stores.db import Database
from tests.paths import ROOT

NAME = "02-退费与转班制度.md"
RANDOM_KILLS = 6

CHILD = textwrap.dedent("""
    import os, signal, sys
    from core.stores.corpus_admin import CorpusAdmin
    from core.stores.db import Database
    from core.stores.roles import User

    mode = {mode!r}
    real = {{"fsync": os.fsync, "replace": os.replace}}

    def die(*_):
        os.kill(os.getpid(), signal.SIGKILL)

    if mode == "fsync":          # the new bytes are written, nothing is durable yet
        os.fsync = lambda fd: die()
    elif mode == "replace":      # the temporary file is complete, the rename has not happened
        os.replace = lambda src, dst: die()
    elif mode == "replaced":     # the rename has happened, whatever comes after it has not
        def replaced(src, dst):
            real["replace"](src, dst)
            die()
        os.replace = replaced
    admin = CorpusAdmin(Database({url!r}), {folder!r})
    user = User("boss", "王校长", "admin")
    print("ready", flush=True)
    for number in range(1, 100000):
        admin.save(user, {name!r}, f"# 退费\\n\\n第 {{number}} 版：退费在 {{number}} 个工作日内办理。\\n" * 200)
""")


def _kill_mid_save(db_url: str, folder: Path, mode: str, delay_s: float | None) -> int:
    script = CHILD.format(mode=mode, url=db_url, folder=str(folder), name=NAME)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)  # `python -c` imports from its working directory: this checkout
    try:
        if delay_s is None:
            child.wait(timeout=60)
        else:
            assert child.stdout.readline().strip() == "ready", child.stderr.read()
            time.sleep(delay_s)
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode


def _assert_consistent(db: Database, folder: Path) -> None:
    leftovers = sorted(p.name for p in folder.iterdir() if p.name.startswith("."))
    assert leftovers == [], f"orphan temporary files after recovery: {leftovers}"
    admin = CorpusAdmin(db, folder)
    for path in sorted(folder.glob("*.md"), key=lambda p: (p.name != NAME, p.name)):
        history = admin.history(path.name)
        assert history, f"{path.name} is on disk but has no version row"
        on_disk = hashlib.sha256(path.read_bytes()).hexdigest()
        assert on_disk == history[0].sha256, f"{path.name} on disk is not the newest recorded version"
        assert history[0].action == "baseline" or "个工作日内办理" in history[0].content


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / NAME).write_text("# 退费\n\n原文。\n", encoding="utf-8")
    (folder / "01-口语课分级说明.md").write_text("# 分级\n\n共八级。\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("mode", ["fsync", "replace", "replaced"])
def test_corpus_crash_at_each_step_of_a_save_is_recovered(tmp_path, corpus, mode):
    url = f"sqlite:///{tmp_path / 'xiaoe.sqlite3'}"
    assert _kill_mid_save(url, corpus, mode, None) == -signal.SIGKILL
    db = Database(url)
    sync_corpus(db, corpus)  # what every instance does at start-up
    _assert_consistent(db, corpus)


def test_corpus_random_kills_mid_save_are_recovered(tmp_path, corpus):
    url = f"sqlite:///{tmp_path / 'xiaoe.sqlite3'}"
    rng = random.Random(20)
    for _ in range(RANDOM_KILLS):
        _kill_mid_save(url, corpus, "none", rng.uniform(0.05, 0.4))
        db = Database(url)
        sync_corpus(db, corpus)
        _assert_consistent(db, corpus)
        db.dispose()
