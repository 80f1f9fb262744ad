"""core.evaluation.from_reviews: 50 decided items of the real chain → one new set version that evaluates, links each
question back to its item and adds nothing when added again; the per-decision rules; admins only."""

from __future__ import annotations

import json

import pytest

from core.answerability.glossary import load_starter
from core.assistant import build_assistant
from core.cli import main
from core.errors import AuthError
from core.evaluation.from_reviews import ANSWERABLE, NEAR_MISS, add_items, draft_of, key_phrase
from core.evaluation.metrics import GOOD_OUTCOMES, evaluate_at, evaluate_set
from core.retrieval.store import load_or_build
from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.question_sets import QuestionSetStore, corpus_catalog, load_default_set
from core.stores.review import ReviewStore
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

SET = "复核题集"


@pytest.fixture
def chain(tmp_path, monkeypatch):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path / "data"))
    settings = Settings.from_env().with_(reuse="off")
    assistant = build_assistant(settings, load_or_build(settings), load_starter())
    db = Database(settings.db_url)
    yield assistant, db
    db.dispose()


def decided_items(assistant, queue: ReviewStore, n: int = 50):
    """The first n default-set questions answered by the real chain, queued and decided: answers approved,
    refusals approved (every other one) or marked 预期拒答."""
    ids = []
    for i, labelled in enumerate(load_default_set().questions[:n]):
        answer = assistant.ask(labelled.question)
        item_id = queue.enqueue(answer, origin="refusal" if answer.refused else "manual",
                                fingerprint=assistant.fingerprint, flagged_by="测试")
        item = queue.get(item_id)
        action = "expect" if answer.refused and i % 2 else "approve"
        queue.decide(item_id, action=action, reviewer="王老师", expected_version=item.version)
        ids.append(item_id)
    return [queue.get(i) for i in ids]


def test_fifty_decided_items_become_one_set_version_that_evaluates(chain, capsys, tmp_path):
    assistant, db = chain
    queue, sets = ReviewStore(db), QuestionSetStore(db)
    items = decided_items(assistant, queue)
    files, sections = corpus_catalog(assistant.index)
    result = add_items(sets, SET, items, author="王校长", known_files=files, known_sections=sections)
    assert result.version is not None and result.version.version == 1
    assert [v.version for v in sets.versions(SET)] == [1]
    stored = sets.load(SET).questions
    assert len(stored) == len(result.added) == 50 - len(result.skipped) - len(result.duplicates) > 40
    by_id = {item.id: item for item in items}
    for q in stored.questions:
        assert by_id[q.item_id].question == q.question and q.reviewer == "王老师" and q.reviewed_at
        assert q.should_refuse == (by_id[q.item_id].origin == "refusal")
    # Decided at the knobs they were answered with, every question is judged the way its reviewer decided it.
    evaluation = evaluate_at(evaluate_set(assistant, stored), assistant.knobs)
    assert set(evaluation.outcomes) <= GOOD_OUTCOMES
    path = tmp_path / "set.csv"
    path.write_text(stored.to_csv(), encoding="utf-8")
    assert main(["eval", str(path), "--json", "--no-reuse"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["total"] == len(stored)

    again = add_items(sets, SET, items, author="王校长", known_files=files, known_sections=sections)
    assert again.version is None and again.added == () and len(again.duplicates) == len(stored)
    assert [v.version for v in sets.versions(SET)] == [1]


def test_each_decision_becomes_its_kind(chain):
    assistant, db = chain
    queue = ReviewStore(db)
    items = decided_items(assistant, queue, n=50)
    kinds = {draft_of(i).kind for i in items}
    assert kinds == {ANSWERABLE, NEAR_MISS}
    for item in items:
        draft = draft_of(item)
        if item.expected is not None or (item.status == "approved" and draft.kind == NEAR_MISS):
            assert draft.question.should_refuse
        if draft.kind == ANSWERABLE:
            q = draft.question
            assert q.expected and q.section and q.key_phrase and q.key_phrase in item.answer


def test_a_rejection_without_a_correction_is_skipped_and_with_one_is_answerable(chain):
    assistant, db = chain
    queue = ReviewStore(db)
    answer = assistant.ask("退费怎么算？")
    plain = queue.enqueue(answer, origin="manual", flagged_by="测试")
    queue.decide(plain, action="reject", reviewer="王老师", expected_version=queue.get(plain).version, note="不对")
    assert draft_of(queue.get(plain)).question is None
    assert "写出正确回答" in draft_of(queue.get(plain)).note
    fixed = queue.enqueue(assistant.ask("保留学籍最长多久？"), origin="manual", flagged_by="测试")
    queue.decide(fixed, action="reject", reviewer="王老师", expected_version=queue.get(fixed).version, note="改写",
                 corrected_answer="因病或工作调动可以申请保留学籍，最长保留 6 个月 [1]。", confirmed=True)
    draft = draft_of(queue.get(fixed))
    assert draft.kind == ANSWERABLE and draft.question.expected == "02-退费与转班制度.md"
    assert "最长保留 6 个月" in draft.question.key_phrase


def test_a_pending_item_is_not_added(chain):
    assistant, db = chain
    queue = ReviewStore(db)
    item = queue.get(queue.enqueue(assistant.ask("退费怎么算？"), origin="manual", flagged_by="测试"))
    assert draft_of(item).question is None and "还没有复核" in draft_of(item).note


def test_only_an_admin_saves_a_set_version(chain):
    assistant, db = chain
    accounts = AccountStore(db, hasher=FAST_HASHER)
    add_staff(accounts)
    signer = SessionStore(accounts)
    queue, sets = ReviewStore(db), QuestionSetStore(db)
    items = decided_items(assistant, queue, n=5)
    consultant = signer.sign_in("amy", PASSWORD)
    with pytest.raises(AuthError, match="顾问"):
        add_items(sets, SET, items, author="amy", authorize=signer.guard(consultant.token))
    assert SET not in sets.names()
    admin = signer.sign_in("boss", PASSWORD)
    assert add_items(sets, SET, items, author="boss", authorize=signer.guard(admin.token)).version.version == 1


@pytest.mark.parametrize("text, chunk, expected", [
    ("保留学籍最长 6 个月 [1]。", "因病或工作调动，可以申请保留学籍，最长保留 6 个月。", "6 个月"),
    ("开课 7 天内可全额退费 [2]", "开课 7 天内可全额退费，之后按比例。", "开课 7 天内可全额退费"),
    ("完全不同的话", "资料里的原文", ""),
])
def test_key_phrase_is_the_longest_shared_stretch(text, chunk, expected):
    assert key_phrase(text, chunk) == expected
