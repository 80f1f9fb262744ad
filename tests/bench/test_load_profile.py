"""bench/load_profile.py: the probe counts what the load test reports per ask, and the page's reads replay as measured."""

from __future__ import annotations

from bench.load_profile import AskTally, PageReads, Probe, p95
from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.glossary import GlossaryStore
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff


def test_load_profile_probe_counts_the_replayed_page_reads(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    accounts = AccountStore(db, hasher=FAST_HASHER)
    add_staff(accounts)
    sessions = SessionStore(accounts)
    token = sessions.sign_in("amy", PASSWORD).token
    settings = Settings(data_dir=tmp_path, database_url=db.url)
    reads = PageReads({"has_accounts": 1, "resume": 2, "settings": 0, "glossary": 1}, accounts, sessions,
                      GlossaryStore(db), settings, token)
    reads()  # warm: the first "any account?" is the only one that reads
    probe = Probe(db.engine)
    reads()
    statements, transactions, db_s, pool_s = probe.reading()
    assert (statements, transactions) == (3, 3)  # two resumes (one query each) and the glossary
    assert db_s > 0 and pool_s > 0
    db.dispose()


def test_load_profile_tallies_merge_and_p95_needs_twenty_values():
    a, b = AskTally(total=[1.0] * 10), AskTally(total=[2.0] * 10, reads=[3.0])
    a.add(b)
    assert len(a.total) == 20 and a.reads == [3.0] and p95(a.total) == 2.0
