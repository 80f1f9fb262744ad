"""#16 failure 2, the rest of the state-changing calls: corpus saves and restores, glossary edits, imports,
proposals and approvals, and question-set saves re-check the session inside their own transaction.

A session signed out (or an account disabled) after the page was drawn cannot save anything:
the call raises SessionExpired and nothing is written. Each case fails on code that checked the
session only when the page started.
"""

from __future__ import annotations

import pytest

from core.errors import SessionExpired
from core.sets.format import LabelledQuestion, QuestionSet
from core.stores.accounts import AccountStore
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.glossary import GlossaryStore
from core.stores.glossary_admin import GlossaryAdmin
from core.stores.question_sets import QuestionSetStore
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff


@pytest.fixture
def staff(db_url, tmp_path):
    """(database, accounts, sessions, a signed-in admin's token, the admin user, corpus folder)."""
    db = Database(db_url)
    accounts = AccountStore(db, hasher=FAST_HASHER)
    add_staff(accounts)
    accounts.add("chief", PASSWORD, actor="test", role="admin")  # so that boss is not the last admin
    signer = SessionStore(accounts)
    session = signer.sign_in("boss", PASSWORD)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# 一\n口语课一共四级。\n", encoding="utf-8")
    yield db, accounts, signer, session.token, session.user, corpus
    db.dispose()


def stale(accounts: AccountStore, signer: SessionStore, token: str, how: str) -> None:
    if how == "disable":
        accounts.set_disabled("boss", True, actor="test")
    else:
        signer.sign_out(token)


@pytest.mark.parametrize("how", ["disable", "sign_out"])
def test_a_stale_session_cannot_save_a_corpus_file(staff, how):
    db, accounts, signer, token, user, corpus = staff
    admin = CorpusAdmin(db, corpus)
    stale(accounts, signer, token, how)
    with pytest.raises(SessionExpired):
        admin.save(user, "a.md", "# 一\n口语课一共六级。\n", authorize=signer.guard(token))
    assert "四级" in (corpus / "a.md").read_text(encoding="utf-8")
    assert admin.history("a.md") == ()


@pytest.mark.parametrize("how", ["disable", "sign_out"])
@pytest.mark.parametrize("change", ["add", "edit", "remove", "import", "propose", "approve"])
def test_a_stale_session_cannot_change_the_glossary(staff, how, change):
    db, accounts, signer, token, user, _ = staff
    store, admin = GlossaryStore(db), GlossaryAdmin(db)
    store.add("学费", "甲乙丙", who="test")
    proposal = admin.propose(user, "退费", "丁戊己").proposal_id
    before = (store.load().entries, store.changes(), admin.proposals())
    stale(accounts, signer, token, how)
    guard = signer.guard(token)
    calls = {"add": lambda: admin.add(user, "转班", "庚辛壬", authorize=guard),
             "edit": lambda: admin.edit(user, ("学费", "甲乙丙"), ("学费", "甲乙"), authorize=guard),
             "remove": lambda: admin.remove(user, "学费", "甲乙丙", authorize=guard),
             "import": lambda: admin.import_csv(user, "标准词,同义词\n转班,庚辛壬\n", authorize=guard),
             "propose": lambda: admin.propose(user, "转班", "癸子丑", authorize=guard),
             "approve": lambda: admin.approve(user, proposal, authorize=guard)}
    with pytest.raises(SessionExpired):
        calls[change]()
    assert (store.load().entries, store.changes(), admin.proposals()) == before


@pytest.mark.parametrize("how", ["disable", "sign_out"])
def test_a_stale_session_cannot_save_a_question_set(staff, how):
    db, accounts, signer, token, user, _ = staff
    sets = QuestionSetStore(db)
    stale(accounts, signer, token, how)
    with pytest.raises(SessionExpired):
        sets.save("我的题集", QuestionSet((LabelledQuestion("口语课几级？", "a.md", line=2),)), author=user.label,
                  authorize=signer.guard(token))
    assert "我的题集" not in sets.names()


def test_a_live_session_saves(staff):
    db, _, signer, token, user, corpus = staff
    result = CorpusAdmin(db, corpus).save(user, "a.md", "# 一\n口语课一共四级，每级 16 课时。\n",
                                          authorize=signer.guard(token))
    assert result.changed and "16 课时" in (corpus / "a.md").read_text(encoding="utf-8")
    assert GlossaryAdmin(db).add(user, "转班", "庚辛壬", authorize=signer.guard(token)).synonym == "庚辛壬"
