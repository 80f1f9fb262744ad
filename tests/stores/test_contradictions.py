"""Documents that contradict themselves (#40), through the real save and the one Assistant, on both engines: changing
a rule sentence in a copy of the corpus lists the FAQ sentence that still states the old rule before the save and in
its result; an answer citing that sentence is flagged (lane 资料已更新, both sentences in the reason) on every instance
until the sentence is fixed, the old rule is restored, or an admin dismisses it."""

from __future__ import annotations

import pytest

from core.assistant import open_assistant
from core.retrieval.store import load_or_build
from core.stores.contradictions import ContradictionStore
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import open_database
from core.stores.review import Filters, ReviewStore
from core.values.contradictions import CONTRADICTED_CODE
from tests.test_reuse_chain import ADMIN, instance

REFUND = "02-退费与转班制度.md"
RULE = "开课前申请退费的，学费全额退还。"
FEE_RULE = "开课前申请退费的，扣除 100 元手续费后退还其余学费。"
FAQ = "答：可以，开课前申请退费，学费全额退还。"
ASKED = "还没开课呢 报名了可以全额退款吗"


@pytest.fixture
def one(tmp_path, database_url):
    return instance(tmp_path, "a", database_url)


def save(settings, old: str, new: str):
    admin = CorpusAdmin(open_database(settings.db_url), settings.corpus_dir)
    text, sha = admin.read(REFUND)
    assert text.count(old) == 1
    result = admin.save(ADMIN, REFUND, text.replace(old, new), expected_sha256=sha)
    assert result.after_error == ""
    load_or_build(settings)
    return result


def flags(settings) -> list[str]:
    outcome = open_assistant(settings, with_model=False).respond(ASKED)
    return [p.message for p in outcome.problems if p.code == CONTRADICTED_CODE]


def test_contradictions_the_save_reports_the_faq_line_and_an_answer_citing_it_is_flagged_until_fixed(one):
    outcome = open_assistant(one, with_model=False).respond(ASKED)
    assert "学费全额退还[1]" in outcome.answer.text and not outcome.problems  # green before the change

    admin = CorpusAdmin(open_database(one.db_url), one.corpus_dir)
    text, _sha = admin.read(REFUND)
    (preview,) = admin.still_stating(REFUND, text.replace(RULE, FEE_RULE))  # listed before the save is confirmed
    assert (preview.source, preview.heading, preview.sentence) == (REFUND, "七、常见问题", FAQ)
    result = save(one, RULE, FEE_RULE)
    assert result.after.contradictions == (preview,)
    assert "1 句写着改之前的规定" in result.after.describe()

    outcome = open_assistant(one, with_model=False).respond(ASKED)
    assert "学费全额退还[1]" in outcome.answer.text  # still answered from the FAQ line, but no longer green
    (flag,) = [p.message for p in outcome.problems if p.code == CONTRADICTED_CODE]
    assert FAQ in flag and FEE_RULE in flag and RULE in flag  # both sentences shown
    review = ReviewStore(open_database(one.db_url))
    item_id = review.record(outcome)
    assert [i.id for i in review.list(Filters(lane="stale", status="pending")).items] == [item_id]

    save(one, FAQ, "答：可以，开课前申请退费，扣除 100 元手续费后退还其余学费。")  # the FAQ is fixed
    assert flags(one) == []
    assert ContradictionStore(open_database(one.db_url)).open() == ()


def test_contradictions_another_instance_flags_it_before_its_own_folder_has_the_edit(tmp_path, database_url):
    a, b = instance(tmp_path, "a", database_url), instance(tmp_path, "b", database_url)
    save(a, RULE, FEE_RULE)
    assert RULE in (b.corpus_dir / REFUND).read_text(encoding="utf-8")  # B has neither synced nor rebuilt
    assert len(flags(b)) == 1


def test_contradictions_restoring_the_old_rule_ends_the_flag(one):
    save(one, RULE, FEE_RULE)
    assert len(flags(one)) == 1
    admin = CorpusAdmin(open_database(one.db_url), one.corpus_dir)
    admin.restore(ADMIN, admin.history(REFUND)[-1].id)
    load_or_build(one)
    assert flags(one) == []


def test_contradictions_an_admin_dismisses_one_that_is_no_contradiction(one):
    save(one, RULE, FEE_RULE)
    store = ContradictionStore(open_database(one.db_url))
    (recorded,) = store.open()
    store.dismiss(ADMIN, recorded.id)
    assert store.open() == () and flags(one) == []
    with pytest.raises(Exception, match="没有找到"):
        store.dismiss(ADMIN, recorded.id)
