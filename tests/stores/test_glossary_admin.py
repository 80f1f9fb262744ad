"""Glossary changes by role (admins edit, consultants propose), proposals unused until approved, CSV round-trip, impact."""

from __future__ import annotations

import pytest

from core.answerability.glossary import Glossary, GlossaryEntry, expand_query
from core.errors import AuthError, InvalidGlossary
from core.evaluation.glossary_impact import glossary_impact
from core.sets.format import LabelledQuestion
from core.settings import Settings
from core.stores.db import Database
from core.stores.glossary_admin import GlossaryAdmin
from core.stores.roles import User

ADMIN = User("boss", "王校长", "admin")
CONSULTANT = User("amy", "顾问 Amy", "consultant")


@pytest.fixture
def glossary(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'glossary.sqlite3'}")
    admin = GlossaryAdmin(db)
    for entry in admin.load().entries:
        admin.remove(ADMIN, entry.term, entry.synonym)
    yield admin
    db.dispose()


@pytest.mark.parametrize("change", [
    lambda g: g.add(CONSULTANT, "学费", "价钱"),
    lambda g: g.remove(CONSULTANT, "学费", "价钱"),
    lambda g: g.edit(CONSULTANT, ("学费", "价钱"), ("学费", "价格")),
    lambda g: g.import_csv(CONSULTANT, "标准词,同义词\n学费,价钱\n"),
    lambda g: g.approve(CONSULTANT, 1),
    lambda g: g.add(None, "学费", "价钱"),
])
def test_glossary_admin_refuses_a_consultant_in_core(glossary, change):
    with pytest.raises(AuthError):
        change(glossary)
    assert len(glossary.load()) == 0


def test_glossary_admin_consultant_proposal_is_unused_until_an_admin_approves(glossary):
    submitted = glossary.submit(CONSULTANT, "火星文", "扣")
    assert submitted.proposal_id is not None and "批准之前" in submitted.message
    assert expand_query("扣是什么意思", glossary.load()) == "扣是什么意思"  # what the gate reads
    assert [p.who for p in glossary.proposals()] == ["顾问 Amy（amy）"]
    glossary.approve(ADMIN, submitted.proposal_id)
    assert expand_query("扣是什么意思", glossary.load()) == "扣是什么意思 火星文"
    assert glossary.proposals() == ()
    with pytest.raises(InvalidGlossary, match="已经被.*批准了"):
        glossary.approve(ADMIN, submitted.proposal_id)


def test_glossary_admin_rejected_proposal_never_reaches_the_glossary(glossary):
    proposal = glossary.propose(CONSULTANT, "学费", "价钱").proposal_id
    assert glossary.propose(CONSULTANT, "学费", " 价钱 ").proposal_id == proposal  # the same proposal twice
    glossary.reject(ADMIN, proposal)
    assert len(glossary.load()) == 0 and glossary.proposals("rejected")[0].decided_by == "王校长（boss）"


def test_glossary_admin_submit_by_an_admin_adds_at_once(glossary):
    assert glossary.submit(ADMIN, "学费", "价钱").proposal_id is None
    assert [(e.term, e.synonym, e.who) for e in glossary.load().entries] == [("学费", "价钱", "王校长（boss）")]


def test_glossary_admin_edit_replaces_in_one_step_and_search_finds_it(glossary):
    glossary.add(ADMIN, "学费", "价钱")
    glossary.edit(ADMIN, ("学费", "价钱"), ("学费", "价格"))
    assert [(e.term, e.synonym) for e in glossary.search("价")] == [("学费", "价格")]
    assert [c.action for c in glossary.store.changes()][:2] == ["add", "remove"]
    with pytest.raises(InvalidGlossary):
        glossary.edit(ADMIN, ("学费", "价钱"), ("学费", "费用"))  # gone already


def test_glossary_admin_csv_round_trip_keeps_formula_like_words(glossary, tmp_path):
    for term, synonym in [("学费", "价钱"), ("加课", "＋课"), ("公式", "=1+1"), ("保留学籍", "休学")]:
        glossary.add(ADMIN, term, synonym)
    exported = glossary.store.export_csv()
    text = exported.decode("utf-8-sig")
    assert "'＋课" in text and "'=1+1" in text  # Excel-safe as the queue export
    other = GlossaryAdmin(Database(f"sqlite:///{tmp_path / 'other.sqlite3'}"))
    for entry in other.load().entries:
        other.remove(ADMIN, entry.term, entry.synonym)
    assert other.import_csv(ADMIN, exported) == 4
    assert {(e.term, e.synonym) for e in other.load().entries} == {(e.term, e.synonym) for e in glossary.load().entries}


def test_glossary_impact_counts_the_labelled_question_an_entry_changes(corpus_index):
    glossary = Glossary((GlossaryEntry("分级测试", "入学测试"), GlossaryEntry("学费", "价钱")))
    rows = [LabelledQuestion(question="报名前有入学测试吗？", expected="01-口语课分级说明.md",
                             section="四、分级测试与报读方式", key_phrase="免费的分级测试", line=2),
            LabelledQuestion(question="口语课一共几级？", expected="01-口语课分级说明.md", section="",
                             key_phrase="级", line=3)]
    impacts = {(i.term, i.synonym): i.changed for i in
               glossary_impact(glossary, rows, corpus_index, settings=Settings())}
    assert impacts == {("分级测试", "入学测试"): ("报名前有入学测试吗？",), ("学费", "价钱"): ()}


def test_glossary_admin_import_names_the_pairs_it_skipped(glossary):
    glossary.add(ADMIN, "退费", "退钱")
    report = glossary.import_report(ADMIN, "标准词,同义词\n退费,退钱\n学费,价码几何\n")
    assert (report.added, report.skipped) == (1, ("退钱 → 退费",))
