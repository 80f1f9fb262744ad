"""After the documents change: suspend the approved answers they no longer back, resume the ones they back again.

Run by the stores right after a corpus version is recorded (core.stores.corpus_admin.CorpusAdmin.save: an edit,
an upload, a restore; core.serving.holder after core.stores.corpus_sync recorded a file edited on the server), never
on the read path, so asking, `xiaoe eval` and the benches only read. The corpus is the database's (its newest
versions), so the result is the same whichever instance saved, and every instance sees it at once.

An answer is stale when a chunk it cites is not, by content hash, among the chunks of the newest texts (cut as the
index cuts them; a file the database has never recorded counts as unchanged), or when a sentence saying what it says changed since it was approved (core.reuse.drift): the
question the stale guard asks (core.reuse.guards.stale_detail), which also keeps a stale answer not suspended yet
(a crash between the save and this step) from being served. A stale answer in use is suspended and its item goes
back to 资料已更新; a suspended answer that is no longer stale (the content came back) is resumed together with its
item — only while nobody acted on the item since: an item a consultant rejected or is reworking stays where they
left it, with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from core.corpus.loader import DEFAULT_CHUNKING, make_splitter, split_pieces
from core.errors import StoreError
from core.retrieval.hashes import sha256_text
from core.reuse.drift import related_change
from core.reuse.guards import stale_detail
from core.stores.approved import ApprovedStore
from core.stores.corpus_versions import version_log
from core.stores.db import Database
from core.stores.review import STALE_REASON, ReviewStore
from core.stores.roles import SYSTEM_ACTOR
from core.values import ApprovedAnswer, Problem
from core.values.reuse import ACTIVE, SUSPENDED, SUSPENDED_NOTE

STALE_CODE = STALE_REASON
STALE_LABEL = "资料已更新"
RESUMED_NOTE = "所引资料和通过时说的又一致了（恢复了旧版本或改回了原句），恢复使用。"


@dataclass(frozen=True)
class AnswerRefresh:
    """What one pass did: the approved answers it suspended and the ones it resumed (ids)."""

    suspended: tuple[int, ...] = ()
    resumed: tuple[int, ...] = ()


def refresh_answers(db: Database, *, chunking: tuple[int, int] = DEFAULT_CHUNKING) -> AnswerRefresh:
    """Suspend every approved answer in use that the newest corpus no longer backs, resume every suspended one it
    backs again. `chunking`: (chunk_size, chunk_overlap) of the index, so content hashes compare with its chunks."""
    answers = ApprovedStore(db).in_force()
    if not answers:
        return AnswerRefresh()
    log = version_log(db)
    newest = log.newest()
    hashes = corpus_chunk_hashes(newest, chunking)
    suspended, resumed = [], []
    for answer in answers:
        recorded = replace(answer, citations=tuple(c for c in answer.citations if c.source in newest))
        why = stale_detail(recorded, hashes, related_change(answer.text, log.changes_since(answer.approved_at)))
        if why and answer.status == ACTIVE and suspend_stale(db, answer, why):
            suspended.append(answer.id)
        elif not why and answer.status == SUSPENDED and resume_backed(db, answer):
            resumed.append(answer.id)
    return AnswerRefresh(tuple(suspended), tuple(resumed))


def corpus_chunk_hashes(texts: Mapping[str, str], chunking: tuple[int, int]) -> frozenset[str]:
    """The content hash of every chunk of `texts` (source → text), cut as the index cuts them."""
    splitter = make_splitter(*chunking)
    return frozenset(sha256_text(text) for source, body in texts.items()
                     for text, _ in split_pieces(source, body, splitter))


def suspend_stale(db: Database, answer: ApprovedAnswer, changed: str) -> bool:
    """Stop serving an approved answer the documents no longer back (`changed`: what changed, a cited chunk or a
    sentence saying the same thing), and send its item back to 资料已更新 for re-approval; True if this call
    suspended it (another instance may have done it first)."""
    if not ApprovedStore(db).suspend(answer.id, reason=f"{SUSPENDED_NOTE}{changed}", actor=SYSTEM_ACTOR,
                                     expected_version=answer.version):
        return False
    if answer.item_id is None:
        return True
    store = ReviewStore(db)
    try:
        item = store.get(answer.item_id)
    except StoreError:
        return True
    if item.status != "pending":
        message = f"{STALE_LABEL}：已审答案 #{answer.id} 已暂停使用（{changed}），请按新资料重新通过。"
        store.bulk_decide({item.id: item.version}, action="reopen", reviewer=SYSTEM_ACTOR, note=message,
                          add_reason=Problem(STALE_CODE, message))
    return True


def resume_backed(db: Database, answer: ApprovedAnswer) -> bool:
    """Resume a suspended answer the documents back again, with its item: a 资料已更新 item nobody acted on since
    goes back to 已通过 first (ReviewStore.clear_stale), an item already back there is fine; an item someone
    rejected or reopened keeps the answer suspended. True if the answer is served again."""
    if answer.item_id is not None:
        store = ReviewStore(db)
        try:
            item = store.get(answer.item_id)
        except StoreError:
            item = None
        if item is not None and item.status != "approved":
            stale = item.status == "pending" and any(p.code == STALE_CODE for p in item.reasons)
            if not stale or not store.clear_stale(item.id, expected_version=item.version, actor=SYSTEM_ACTOR,
                                                  note=f"已审答案 #{answer.id}：{RESUMED_NOTE}"):
                return False
    return ApprovedStore(db).resume(answer.id, reason=RESUMED_NOTE, actor=SYSTEM_ACTOR,
                                    expected_version=answer.version)
