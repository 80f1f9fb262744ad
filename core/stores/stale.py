"""资料已更新: approved review items whose cited files changed go back to 待复核, with the diff that did it.

`requeue_stale` runs after a corpus save on this instance; `stale_changes` gives the Review page each
cited file's diff from the version in force when the item was queued to the newest one.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.checks.references import extract_refs
from core.corpus.diff import DiffRow, side_by_side
from core.errors import StoreError
from core.stores.approved import ApprovedStore
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from core.stores.roles import SYSTEM_ACTOR
from core.values import ApprovedAnswer, Problem

STALE_CODE = "stale_corpus"
STALE_LABEL = "资料已更新"


def cited_sources(answer: str, candidates) -> set[str]:
    """Sources an answer cites: [n] is the n-th passed candidate; no [n] at all means every passed one."""
    passed = [h for h in candidates if h.passed]
    cited = {passed[n - 1].source for n in extract_refs(answer) if 1 <= n <= len(passed)}
    return cited or {h.source for h in passed}


def requeue_stale(db: Database, changed_sources: set[str], actor: str) -> list[int]:
    """Send approved review items that cite a changed file back to 待复核; returns their ids.

    Each is reopened through ReviewStore's public API with the reason `stale_corpus` (lane
    资料已更新) naming its files. An item someone decided meanwhile is skipped, not overwritten.
    """
    if not changed_sources:
        return []
    store = ReviewStore(db)
    stale: dict[int, tuple[int, list[str]]] = {}
    for item in store.iter_items(Filters(status="approved"), with_candidates=True):
        files = sorted(cited_sources(item.corrected_answer or item.answer, item.candidates) & set(changed_sources))
        if files:
            stale[item.id] = (item.version, files)
    reopened: list[int] = []
    for item_id, (version, files) in stale.items():  # one reason per item, naming its own files
        message = f"{STALE_LABEL}：所引资料「{'、'.join(files)}」在通过后被修改，请按新资料重新复核。"
        result = store.bulk_decide({item_id: version}, action="reopen", reviewer=actor, note=message,
                                   add_reason=Problem(STALE_CODE, message))
        reopened.extend(result.decided)
    return reopened


@dataclass(frozen=True)
class StaleChange:
    """One cited file of a 资料已更新 item: the version its answer was approved against and the newest."""

    source: str
    old_version: int
    new_version: int
    rows: tuple[DiffRow, ...]


def stale_changes(admin, item) -> tuple[StaleChange, ...]:
    """For a queue item reopened because cited files changed: each file's diff from the version in
    force when the item was queued to the newest version. `admin` is a core.stores.corpus_admin.CorpusAdmin."""
    changes = []
    for source in sorted(cited_sources(item.corrected_answer or item.answer, item.candidates)):
        versions = admin.history(source)  # newest first
        if len(versions) < 2:
            continue
        newest = versions[0]
        before = [v for v in versions if v.at <= item.created_at]
        old = before[0] if before else versions[-1]
        if old.version != newest.version:
            changes.append(StaleChange(source, old.version, newest.version, side_by_side(old.content, newest.content)))
    return tuple(changes)




def suspend_stale(db: Database, answer: ApprovedAnswer, changed: str) -> bool:
    """Stop serving an approved answer whose cited chunk changed, and send its item back to 资料已更新 for
    re-approval; True if this call suspended it (another instance may have done it first)."""
    if not ApprovedStore(db).suspend(answer.id, reason=f"所引资料已修改：{changed}", actor=SYSTEM_ACTOR,
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
        message = f"{STALE_LABEL}：已审答案 #{answer.id} 所引的「{changed}」已修改，已暂停使用，请按新资料重新通过。"
        store.bulk_decide({item.id: item.version}, action="reopen", reviewer=SYSTEM_ACTOR, note=message,
                          add_reason=Problem(STALE_CODE, message))
    return True
