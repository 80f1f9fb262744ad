"""What the race tests share: each process of the start-up race opens every store on one fresh database (see
tests/stores/test_db.py); `MeetBefore` and `race` make two threads meet inside their transactions.
"""

from __future__ import annotations

import re
import tempfile
import threading
from pathlib import Path

from sqlalchemy import event

from core.errors import StoreError
from core.stores.accounts import AccountStore
from core.stores.audit import ensure
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.defaults import DefaultsStore
from core.stores.glossary import GlossaryStore
from core.stores.question_sets import QuestionSetStore
from core.stores.review import ReviewStore
from core.stores.sessions import SessionStore


def open_every_store(url: str) -> str:
    """"ok", or the Chinese message the store raised (the test collects them)."""
    try:
        db = Database(url)
        ensure(db)
        ReviewStore(db)
        accounts = AccountStore(db)
        SessionStore(accounts)
        GlossaryStore(db)
        DefaultsStore(db)
        QuestionSetStore(db)
        with tempfile.TemporaryDirectory() as folder:
            CorpusAdmin(db, Path(folder)).history("x.md")
        db.dispose()
    except StoreError as error:
        return str(error)
    except Exception as error:  # noqa: BLE001 - the parent test reports it; a crash here would only time out
        return f"{type(error).__name__}: {error}"
    return "ok"


# --- meeting points inside transactions ---------------------------------------------------------------

class MeetBefore:
    """Two threads meet just before each first sends a statement matching `pattern` (an engine event).

    On code that reads and then writes without a lock both threads get there with what they read, and
    the race is lost every time. On code that locks first the second thread waits on the lock instead,
    so the first waits here only `timeout` seconds (the barrier breaks) and goes on: the test then sees
    the serialised outcome. Use as a context manager around the racing calls.
    """

    def __init__(self, engine, pattern: str, *, parties: int = 2, timeout: float = 1.5) -> None:
        self.engine, self.pattern = engine, re.compile(pattern, re.IGNORECASE)
        self.barrier = threading.Barrier(parties, timeout=timeout)
        self.local = threading.local()
        self.met = 0

    def _before(self, conn, cursor, statement, parameters, context, executemany) -> None:
        if getattr(self.local, "done", False) or not self.pattern.search(statement):
            return
        self.local.done = True
        try:
            self.barrier.wait()
            self.met += 1
        except threading.BrokenBarrierError:
            pass  # the other thread is held by a lock: the fixed behaviour

    def __enter__(self) -> MeetBefore:
        event.listen(self.engine, "before_cursor_execute", self._before)
        return self

    def __exit__(self, *_exc) -> None:
        event.remove(self.engine, "before_cursor_execute", self._before)


def race(*calls):
    """Run the calls in threads started together; each outcome is its return value or the exception it raised."""
    outcomes: list[object] = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = calls[i]()
        except Exception as error:  # noqa: BLE001 - the test inspects whatever each call raised
            outcomes[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes
