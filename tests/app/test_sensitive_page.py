"""The 敏感词 page through AppTest: an admin adds a word, imports the starter list, exports the CSV; each change is
in the audit log, and the student desk answers a message holding the word with the configured reply."""

from __future__ import annotations

import csv
import io

from core.settings import Settings
from core.stores import audit
from core.stores.db import open_database
from core.stores.sensitive_words import SensitiveStore


def test_sensitive_page_adds_imports_and_exports(open_page, app_env):
    at = open_page("app_pages/sensitive.py")
    at.text_input(key="sensitive_word").set_value("=代写论文")
    at.text_input(key="sensitive_category").set_value("作弊")
    at.button(key="sensitive_add_button").click().run()
    assert not at.exception
    at.button(key="sensitive_starter").click().run()
    assert not at.exception
    db = open_database(Settings.load(data_dir=app_env.data).db_url)
    store = SensitiveStore(db)
    words = {e.word: e for e in store.entries()}
    assert words["=代写论文"].category == "作弊" and words["大麻烦"].kind == "whitelist"
    assert store.matcher().find("能帮我代考吗") and not store.matcher().find("这是个大麻烦")
    rows = list(csv.reader(io.StringIO(store.export_csv().decode("utf-8-sig"))))
    assert rows[0] == ["word", "category", "kind"] and ["'=代写论文", "作弊", "word"] in rows  # formula-safe
    assert [e.action for e in audit.recent(db)].count("sensitive_add") == len(words)


def test_sensitive_store_import_skips_bad_rows_and_round_trips(app_env):
    from core.stores.roles import User

    admin = User("admin", "admin", "admin")
    store = SensitiveStore(open_database(Settings.load(data_dir=app_env.data).db_url))
    done = store.import_csv(admin, "word,category,kind\n赌博,违法,word\n,空,word\n网赌,违法,奇怪\n'=x,作弊,敏感词\n"
                            .encode())
    assert (done.added, done.updated, len(done.skipped)) == (2, 0, 2) and "第 3 行" in done.skipped[0]
    again = store.import_csv(admin, store.export_csv())
    assert (again.added, again.updated) == (0, 0)
    store.remove(admin, "赌博")
    assert [e.word for e in store.entries()] == ["=x"]
