"""资料已更新 by chunk: a save re-queues an approved item only when a chunk it cited (a refusal: a candidate)
changed in content; restoring the version that makes the cited text identical clears it again. The save does it
itself (CorpusAdmin.save → core.stores.stale.refresh_after_save): its result says what followed."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from core.corpus.loader import make_splitter, split_pieces
from core.stores.approved import ApprovedStore
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.stores.stale import AfterSave
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
    """A candidate as the index made it: the chunk of the file holding `text`, with its offsets."""
    body = (corpus / source).read_text(encoding="utf-8")
    content, meta = next((c, m) for c, m in split_pieces(source, body, make_splitter()) if text in c)
    assert meta["heading"] == heading
    return Hit(rank=rank, source=source, heading=heading, chunk=meta["chunk"], start=meta["start"], end=meta["end"],
               text=content, score=0.5 if passed else 0.01, passed=passed)


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
    levels = chunk(corpus, LEVELS, "问：口语课一共有几级？", "五、常见问题", 1)
    ids = {
        "fee": approved(store, "手续费怎么算？", "最低 50 元 [1]", (fee, half)),  # cites [1] = FEE only
        # a refusal: HALF was a candidate below the threshold
        "refusal": approved(store, "雅思保过班多少钱？", "这件事资料里没写", (replace(half, passed=False),), refused=True),
        "levels": approved(store, "口语课几级？", "四级 [1]", (levels,)),
    }
    return store, ids


def edit(admin, old: str, new: str) -> AfterSave:
    """Save the edit; what followed it."""
    text, sha = admin.read(REFUND)
    assert old in text
    result = admin.save(ADMIN, REFUND, text.replace(old, new), expected_sha256=sha)
    assert result.after_error == ""
    return result.after


def statuses(store, ids) -> dict[str, str]:
    return {name: store.get(i).status for name, i in ids.items()}


def test_stale_chunks_an_edit_no_item_cites_requeues_nothing(admin, items):
    store, ids = items
    after = edit(admin, SCOPE, "本制度适用于启明英语全部课程的学员。")
    assert (after.reopened, after.cleared) == ((), ())
    assert set(statuses(store, ids).values()) == {"approved"}


def test_stale_chunks_an_edited_cited_chunk_requeues_exactly_its_items(admin, items):
    store, ids = items
    assert edit(admin, "单笔最低 50 元", "单笔最低 60 元").reopened == (ids["fee"],)
    assert statuses(store, ids) == {"fee": "pending", "refusal": "approved", "levels": "approved"}
    item = store.get(ids["fee"])
    assert item.note == "核对过，没问题" and item.reviewer == "amy"  # the decision's note is not overwritten
    assert len(item.system_notes) == 1 and "三、退费计算口径" in item.system_notes[0]
    assert [i.id for i in store.list(Filters(status="pending", lane="stale")).items] == [ids["fee"]]


def test_stale_chunks_an_edited_candidate_requeues_the_refusal(admin, items):
    store, ids = items
    assert edit(admin, "不再受理退费申请", "原则上不再受理退费申请").reopened == (ids["refusal"],)  # the fee answer cites [1] only, not the second passed chunk
    assert statuses(store, ids) == {"fee": "approved", "refusal": "pending", "levels": "approved"}


def test_stale_chunks_restoring_the_cited_text_clears_the_stale_state(admin, items):
    store, ids = items
    edit(admin, "单笔最低 50 元", "单笔最低 60 元")
    first = admin.history(REFUND)[-1]  # 第 1 版: the text the item was approved against
    after = admin.restore(ADMIN, first.id).after
    # its approved answer, suspended by the edit, resumes and takes the item back with it
    assert (after.reopened, after.cleared) == ((), ())
    assert after.answers.resumed == (ApprovedStore(admin.db).for_item(ids["fee"]).id,)
    item = store.get(ids["fee"])
    assert (item.status, item.system_notes, item.note) == ("approved", (), "核对过，没问题")
    assert store.list(Filters(lane="stale")).total == 0
    assert [e.action for e in store.events(ids["fee"])][-2:] == ["reopen", "unstale"]


def test_stale_chunks_export_keeps_the_decision_note_and_the_system_note_apart(admin, items, tmp_path):
    import csv

    from core.stores.review_export import HEADER

    store, ids = items
    edit(admin, "单笔最低 50 元", "单笔最低 60 元")
    target = tmp_path / "队列.csv"
    store.export(target, Filters(status="pending"))
    with open(target, encoding="utf-8-sig", newline="") as handle:
        (row,) = [dict(zip(HEADER, r)) for r in list(csv.reader(handle))[1:]]
    assert row["备注"] == "核对过，没问题"
    assert row["系统备注"].startswith("资料已更新") and row["次数"] == "1"
