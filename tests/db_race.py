"""What each process of the start-up race does: open every store on one fresh database (see tests/stores/test_db.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

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
