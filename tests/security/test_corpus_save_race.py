"""#16 item 17: two admins saving the same corpus file in the same instant: one version is recorded, and
the slower gets the conflict message, not 数据库出错（IntegrityError）.

Both editors start from the same version; a clock that waits for both threads makes them read
the file's state before either records a version, every round, on every engine.
"""

from __future__ import annotations

import threading

import pytest

from core.clock import utcnow
from core.errors import ConflictError
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.roles import User
from tests.corpus_db import database_urls, resolve

NAME = "02-退费与转班制度.md"
ROUNDS = 5


class MeetingClock:
    """utcnow, but each thread's first call waits until both threads have made theirs."""

    def __init__(self) -> None:
        self.barrier = threading.Barrier(2, timeout=10)
        self.local = threading.local()

    def __call__(self):
        if not getattr(self.local, "met", False):
            self.local.met = True
            self.barrier.wait()
        return utcnow()


@pytest.mark.parametrize("db_url", database_urls())
def test_corpus_save_race_slower_admin_gets_the_conflict_message(tmp_path, db_url):
    db_url = resolve(db_url, tmp_path)
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / NAME).write_text("# 退费\n\n原文。\n", encoding="utf-8")
    db = Database(db_url)
    for round_number in range(ROUNDS):
        clock = MeetingClock()
        admins = [CorpusAdmin(db, folder, now=clock) for _ in range(2)]
        _, start = admins[0].read(NAME)
        outcomes: list[object] = [None, None]

        def save(i: int, round_number=round_number) -> None:
            try:
                outcomes[i] = admins[i].save(User(f"admin{i}", f"管理员{i}", "admin"), NAME,
                                             f"# 退费\n\n第 {round_number} 轮，管理员 {i} 的版本。\n",
                                             expected_sha256=start)
            except Exception as error:  # noqa: BLE001 - the test inspects whatever each save raised
                outcomes[i] = error

        threads = [threading.Thread(target=save, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        errors = [o for o in outcomes if isinstance(o, Exception)]
        assert len(errors) == 1, outcomes
        assert isinstance(errors[0], ConflictError), f"{type(errors[0]).__name__}: {errors[0]}"
        assert "已被修改" in str(errors[0])
        text, _ = admins[0].read(NAME)
        assert f"第 {round_number} 轮" in text  # the winner's version is the file's newest
    db.dispose()
