"""资料已更新: approved review items whose cited chunks changed go back to 待复核, with the diff that did it.

`refresh_after_save` is what follows every corpus save (core.stores.corpus_admin.CorpusAdmin.save calls it):
`requeue_stale` reopens only items whose cited chunk text (a refusal: a candidate's) is no longer in the saved
file; core.stores.answer_refresh suspends the approved answers the documents no longer back and resumes, with
their items, the ones they back again; `clear_restored` returns the other 资料已更新 items whose cited text is
identical again. `stale_changes` gives the Review page each cited file's diff from the version in force when the
item was queued to the newest one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from core.checks.references import extract_refs
from core.corpus.diff import DiffRow, side_by_side
from core.corpus.loader import DEFAULT_CHUNKING
from core.errors import CorpusError
from core.stores.answer_refresh import STALE_CODE, STALE_LABEL, AnswerRefresh, refresh_answers
from core.stores.approved import ApprovedStore
from core.stores.contradictions import ContradictionStore
from core.stores.db import Database
from core.stores.review import Filters, ReviewItem, ReviewStore
from core.values import Contradiction, Hit, Problem
from core.values.reuse import SUSPENDED


def cited_sources(answer: str, candidates) -> set[str]:
    """Sources an answer cites: [n] is the n-th passed candidate; no [n] at all means every passed one."""
    passed = [h for h in candidates if h.passed]
    cited = {passed[n - 1].source for n in extract_refs(answer) if 1 <= n <= len(passed)}
    return cited or {h.source for h in passed}


def cited_chunks(item: ReviewItem) -> tuple[Hit, ...]:
    """The chunks an item's decision rests on: for an answer the passed chunks its [n] cite (all passed ones
    when it cites none); for a refusal every candidate, since a change to any of them may make it answerable."""
    if item.origin == "refusal" or any(p.code == "refused" for p in item.reasons):
        return item.candidates
    passed = [h for h in item.candidates if h.passed]
    refs = extract_refs(item.corrected_answer or item.answer)
    cited = [passed[n - 1] for n in dict.fromkeys(refs) if 1 <= n <= len(passed)]
    return tuple(cited or passed)


def changed_chunks(item: ReviewItem, texts: Mapping[str, str | None]) -> tuple[Hit, ...]:
    """The cited chunks whose text is no longer in their file's current text (`texts`: source → text, None
    for a file that is gone). Chunks of files not in `texts` are taken as unchanged: a move of the chunk
    inside its file, or an edit elsewhere in the file, changes nothing a reviewer approved."""
    return tuple(h for h in cited_chunks(item) if h.source in texts
                 and ((text := texts[h.source]) is None or h.text not in text))


def requeue_stale(db: Database, saved: Mapping[str, str | None], actor: str) -> list[int]:
    """Send approved items back to 待复核 when a chunk they cite (a refusal: a candidate) changed in content
    in one of the `saved` files (source → its new text); returns their ids.

    Each is reopened through ReviewStore's public API with the reason `stale_corpus` (lane 资料已更新) naming
    its files and sections; the decision's own note stays on the item. An item someone decided meanwhile
    is skipped, not overwritten.
    """
    if not saved:
        return []
    store = ReviewStore(db)
    stale: dict[int, tuple[int, tuple[Hit, ...]]] = {}
    for item in store.iter_items(Filters(status="approved"), with_candidates=True):
        if changed := changed_chunks(item, saved):
            stale[item.id] = (item.version, changed)
    reopened: list[int] = []
    for item_id, (version, changed) in stale.items():  # one reason per item, naming its own files
        places = "、".join(dict.fromkeys(f"{h.source}（{h.heading or '文首'}）" for h in changed))
        message = f"{STALE_LABEL}：所引资料「{places}」的内容在通过后被修改，请按新资料重新复核。"
        result = store.bulk_decide({item_id: version}, action="reopen", reviewer=actor, note=message,
                                   add_reason=Problem(STALE_CODE, message))
        reopened.extend(result.decided)
    return reopened


@dataclass(frozen=True)
class AfterSave:
    """What followed one save: items reopened and cleared, approved answers suspended and resumed (ids)."""

    reopened: tuple[int, ...] = ()
    cleared: tuple[int, ...] = ()
    answers: AnswerRefresh = AnswerRefresh()
    contradictions: tuple[Contradiction, ...] = ()  # sentences still stating a rule the save changed (recorded)

    def describe(self) -> str:
        """The Chinese sentences the Sources page adds to its 「已保存」 message ("" when nothing followed)."""
        parts = []
        if self.reopened:
            parts.append(f"{len(self.reopened)} 条所引片段内容有改动的已通过条目已回到「待复核」（资料已更新）。")
        if self.answers.suspended:
            parts.append(f"{len(self.answers.suspended)} 条已审答案所说的内容在资料里改了，已暂停使用，等顾问按新资料重新通过。")
        if self.answers.resumed:
            parts.append(f"{len(self.answers.resumed)} 条暂停的已审答案所引内容又和通过时一致，已恢复使用，条目回到原来的状态。")
        if self.cleared:
            parts.append(f"{len(self.cleared)} 条「资料已更新」的条目所引内容已和通过时相同，已恢复原来的状态。")
        if self.contradictions:
            parts.append(f"资料里还有 {len(self.contradictions)} 句写着改之前的规定（见下面「资料前后矛盾」）；"
                         "改好之前，引用它们的回答会标出「资料前后矛盾」。")
        return " ".join(parts)


def refresh_after_save(admin, source: str, actor: str, *, chunking: tuple[int, int] = DEFAULT_CHUNKING) -> AfterSave:
    """After `source` was saved through `admin` (a core.stores.corpus_admin.CorpusAdmin): reopen the approved
    items whose cited chunks changed, suspend or resume approved answers (core.stores.answer_refresh), and clear
    the 资料已更新 items whose cited text is identical again."""
    def read(name: str) -> str | None:
        try:
            return admin.read(name)[0]
        except CorpusError:  # the file is gone or unreadable: its chunks count as changed
            return None

    reopened = requeue_stale(admin.db, {source: read(source)}, actor)
    answers = refresh_answers(admin.db, chunking=chunking)
    cleared = clear_restored(admin.db, read, actor)
    found = _contradictions(admin, source)
    ContradictionStore(admin.db).record(found, actor=actor)
    return AfterSave(tuple(reopened), tuple(cleared), answers, found)


def _contradictions(admin, source: str) -> tuple[Contradiction, ...]:
    """What the newest version of `source` left stating the rules it changed from the version before."""
    versions = admin.history(source)  # newest first
    if len(versions) < 2:
        return ()
    return admin.still_stating(source, versions[0].content, old=versions[1].content)


def clear_restored(db: Database, read: Callable[[str], str | None], actor: str) -> list[int]:
    """资料已更新 items whose cited chunks are all back in their files (`read(source)` → the current text, None
    when the file is gone), typically after 恢复为第 n 版: each returns to the status it had; returns their ids.
    An item whose approved answer is still suspended stays: its answer may rest on a sentence elsewhere that is
    still changed (core.reuse.drift), and core.stores.answer_refresh resumes the two together."""
    store, approved = ReviewStore(db), ApprovedStore(db)
    texts: dict[str, str | None] = {}
    cleared = []
    for item in list(store.iter_items(Filters(status="pending", reason=STALE_CODE), with_candidates=True)):
        answer = approved.for_item(item.id)
        if answer is not None and answer.status == SUSPENDED:
            continue
        for source in {h.source for h in cited_chunks(item)} - texts.keys():
            texts[source] = read(source)
        if changed_chunks(item, texts):
            continue
        if store.clear_stale(item.id, expected_version=item.version, actor=actor,
                             note="所引资料的内容已和通过时完全相同（恢复了旧版本），撤销「资料已更新」。"):
            cleared.append(item.id)
    return cleared


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

