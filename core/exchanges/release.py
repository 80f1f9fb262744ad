"""What a consultant's decision on a queue item sends the students waiting on it, and the check that runs just before.

On a 待发送 (held) item: 通过 sends the draft, 通过 with a correction sends the correction (checked like any
correction), 驳回 sends a standard reply instead (驳回 never means silence), 转人工 sends the handoff notice and
stops 小E answering the conversation. On an item students already got an answer or a refusal for (a refusal, a
学生反馈 dislike, an answer the grader let through), only a correction is sent. Before anything with citations goes
out, the cited passages are compared with the documents as they are now: one that changed while the student waited
sends the item to 资料已更新 instead, and nothing is sent.
"""

from __future__ import annotations

from core.checks.approval import citable
from core.checks.references import extract_refs
from core.errors import InvalidReview
from core.settings import Settings
from core.stores.corpus_versions import changes_since
from core.stores.outbox import Send, answers_students
from core.stores.review import Filters, ReviewItem, ReviewStore
from core.stores.roles import Authorize
from core.values import Hit, Problem
from core.values.exchanges import ANSWERED, HANDED_OFF, Citation

STALE_CODE = "stale_corpus"


def send_for(item: ReviewItem, action: str, *, corrected: str | None, reply: str | None,
             settings: Settings) -> Send | None:
    """The message `action` on `item` releases, or None when it releases nothing."""
    correction = (corrected or "").strip()
    if action == "handoff":
        if item.origin != "held":
            raise InvalidReview("只有「待发送」里的条目可以转人工：学员已经收到回答的会话，请在「对话」页处理。")
        return Send(settings.handoff_text, (), HANDED_OFF, only_held=True, hand_off=True)
    if correction and action in ("approve", "reject"):
        return Send(correction, cited(item, correction))
    if item.origin != "held":
        return None
    if action == "approve":
        return Send(item.answer, cited(item, item.answer), only_held=True)
    if action == "reject":
        text = (reply or "").strip() or settings.standard_replies[0]
        return Send(text, (), ANSWERED, only_held=True)
    return None


def cited(item: ReviewItem, text: str) -> tuple[Citation, ...]:
    """The [n] of `text` as the student sees them, resolved to the item's chunks."""
    hits = citable(item.candidates)
    return tuple(Citation(n, hits[n - 1].source, hits[n - 1].heading) for n in extract_refs(text)
                 if 1 <= n <= len(hits))


def changed_since(review: ReviewStore, item: ReviewItem, text: str) -> tuple[Hit, ...]:
    """The chunks `text` cites whose content is no longer in their file's newest version (recorded by any instance
    since the item was queued)."""
    hits = citable(item.candidates)
    chunks = [hits[n - 1] for n in extract_refs(text) if 1 <= n <= len(hits)]
    if not chunks:
        return ()
    newest = {source: new for source, (_old, new) in changes_since(review.db, item.created_at).items()}
    return tuple(h for h in chunks if h.source in newest and h.text not in newest[h.source])


def decide_and_send(review: ReviewStore, settings: Settings, item_id: int, *, action: str, reviewer: str,
                    expected_version: int, note: str | None = None, corrected: str | None = None,
                    reply: str | None = None, authorize: Authorize | None = None, confirmed: bool = False,
                    view: Filters | None = None) -> ReviewItem:
    """Decide a queue item and release what the decision sends, in one transaction (ReviewStore.decide with `send`).
    A cited passage that changed since the item was queued stops the send: the item joins 资料已更新 and
    InvalidReview says so."""
    item = review.get(item_id)
    if action == "handoff" and item.origin != "held":
        raise InvalidReview("只有「待发送」里的条目可以转人工：学员已经收到回答的会话，请在「对话」页处理。")
    send = send_for(item, action, corrected=corrected, reply=reply, settings=settings) \
        if answers_students(review.db, item_id) else None
    if send is not None and send.citations:
        changed = changed_since(review, item, send.text)
        if changed:
            places = "、".join(dict.fromkeys(f"{h.source}（{h.heading or '文首'}）" for h in changed))
            message = f"资料已更新：所引资料「{places}」在学员等待期间被修改，回答没有发出；请按新资料修改后再发送。"
            review.add_reason(item_id, Problem(STALE_CODE, message), expected_version=expected_version)
            raise InvalidReview(message)
    return review.decide(item_id, action=action, reviewer=reviewer, expected_version=expected_version, note=note,
                         corrected_answer=corrected, authorize=authorize, confirmed=confirmed, view=view, send=send)
