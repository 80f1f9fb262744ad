"""资料已更新 by chunk: a save re-queues an approved item only when a chunk it cited (a refusal: a candidate)
changed in content; restoring the version that makes the cited text identical clears it again."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.stores.stale import refresh_after_save
from core.values import Hit, Problem, RAGAnswer
from tests.auth_helpers import Clock
from tests.paths import CORPUS
from tests.stores.test_corpus_admin import ADMIN

REFUND = "02-退费与转班制度.md"
LEVELS = "01-口语课分级说明.md"
FEE = "手续费为 实付学费 ×（剩余课时 ÷ 总课时）的 5%，单笔最低 50 元。"  # 三、退费计算口径
HALF = "已上课时超过总课时的一半（即超过 8 课时）后，不再受理退费申请。"  # 四、不予退费的情形
SCOPE = "本制度适用于启明英语全部口语课学员。"  # 一、适用范围: no item cites it


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    return folder


@pytest.fixture
def admin(database_url, corpus):
    db = Database(database_url)
    yield CorpusAdmin(db, corpus, now=Clock())
    db.dispose()


def chunk(corpus, source: str, text: str, heading: str, rank: int, passed: bool = True) -> Hit:
    """A candidate as the index made it: `text` verbatim from the file, with its offsets."""
    body = (corpus / source).read_text(encoding="utf-8")
    start = body.index(text)
    return Hit(rank=rank, source=source, heading=heading, chunk=rank, start=start, end=start + len(text), text=text,
               score=0.5 if passed else 0.01, passed=passed)


def approved(store: ReviewStore, question: str, text: str, candidates: tuple[Hit, ...], *, refused: bool = False,
             note: str = "核对过，没问题") -> int:
    answer = RAGAnswer(question=question, text=text, hits=tuple(h for h in candidates if h.passed),
                       candidates=candidates, threshold=0.2, k=len(candidates), refused=refused,
                       model_called=not refused,
                       problems=(Problem("refused", "资料外的词") if refused else Problem("manual", "请核对"),))
    item_id = store.enqueue(answer, origin="refusal" if refused else "manual", flagged_by="amy", fingerprint="f")
    store.decide(item_id, action="approve", reviewer="amy", expected_version=1, note=note)
    return item_id


@pytest.fixture
def items(admin, corpus):
    store = ReviewStore(admin.db)
    fee = chunk(corpus, REFUND, FEE, "三、退费计算口径", 1)
    half = chunk(corpus, REFUND, HALF, "四、不予退费的情形", 2)
    levels = chunk(corpus, LEVELS, "问：口语课一共有几级？", "七、常见问题", 1)
    ids = {
        "fee": approved(store, "手续费怎么算？", "最低 50 元 [1]", (fee, half)),  # cites [1] = FEE only
        # a refusal: HALF was a candidate below the threshold
        "refusal": approved(store, "雅思保过班多少钱？", "这件事资料里没写", (replace(half, passed=False),), refused=True),
        "levels": approved(store, "口语课几级？", "四级 [1]", (levels,)),
    }
    return store, ids


def edit(admin, old: str, new: str) -> None:
    text, sha = admin.read(REFUND)
    assert old in text
    admin.save(ADMIN, REFUND, text.replace(old, new), expected_sha256=sha)


def statuses(store, ids) -> dict[str, str]:
    return {name: store.get(i).status for name, i in ids.items()}


def test_stale_chunks_an_edit_no_item_cites_requeues_nothing(admin, items):
    store, ids = items
    edit(admin, SCOPE, "本制度适用于启明英语全部课程的学员。")
    reopened, cleared = refresh_after_save(admin, REFUND, "王校长（boss）")
    assert (reopened, cleared) == ([], [])
    assert set(statuses(store, ids).values()) == {"approved"}


def test_stale_chunks_an_edited_cited_chunk_requeues_exactly_its_items(admin, items):
    store, ids = items
    edit(admin, "单笔最低 50 元", "单笔最低 60 元")
    reopened, _ = refresh_after_save(admin, REFUND, "王校长（boss）")
    assert reopened == [ids["fee"]]
    assert statuses(store, ids) == {"fee": "pending", "refusal": "approved", "levels": "approved"}
    item = store.get(ids["fee"])
    assert item.note == "核对过，没问题" and item.reviewer == "amy"  # the decision's note is not overwritten
    assert len(item.system_notes) == 1 and "三、退费计算口径" in item.system_notes[0]
    assert [i.id for i in store.list(Filters(status="pending", lane="stale")).items] == [ids["fee"]]


def test_stale_chunks_an_edited_candidate_requeues_the_refusal(admin, items):
    store, ids = items
    edit(admin, "不再受理退费申请", "原则上不再受理退费申请")
    reopened, _ = refresh_after_save(admin, REFUND, "boss")
    assert reopened == [ids["refusal"]]  # the fee answer cites [1] only, not the second passed chunk
    assert statuses(store, ids) == {"fee": "approved", "refusal": "pending", "levels": "approved"}


def test_stale_chunks_restoring_the_cited_text_clears_the_stale_state(admin, items):
    store, ids = items
    edit(admin, "单笔最低 50 元", "单笔最低 60 元")
    refresh_after_save(admin, REFUND, "boss")
    first = admin.history(REFUND)[-1]  # 第 1 版: the text the item was approved against
    admin.restore(ADMIN, first.id)
    reopened, cleared = refresh_after_save(admin, REFUND, "boss")
    assert (reopened, cleared) == ([], [ids["fee"]])
    item = store.get(ids["fee"])
    assert (item.status, item.system_notes, item.note) == ("approved", (), "核对过，没问题")
    assert store.list(Filters(lane="stale")).total == 0
    assert [e.action for e in store.events(ids["fee"])][-2:] == ["reopen", "unstale"]


def test_stale_chunks_export_keeps_the_decision_note_and_the_system_note_apart(admin, items, tmp_path):
    import csv

    from core.stores.review_export import HEADER

    store, ids = items
    edit(admin, "单笔最低 50 元", "单笔最低 60 元")
    refresh_after_save(admin, REFUND, "boss")
    target = tmp_path / "队列.csv"
    store.export(target, Filters(status="pending"))
    with open(target, encoding="utf-8-sig", newline="") as handle:
        (row,) = [dict(zip(HEADER, r)) for r in list(csv.reader(handle))[1:]]
    assert row["备注"] == "核对过，没问题"
    assert row["系统备注"].startswith("资料已更新") and row["次数"] == "1"
