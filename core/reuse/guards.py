"""The guards an approved answer must pass to be served for a new question, checked in order (core.values.reuse.GUARDS).

1. retired — the answer is not retired by an admin;
2. stale — it is not suspended (the store suspends an answer the documents no longer back when a version is
   saved: core.stores.answer_refresh, which asks `stale_detail` as this guard does), every chunk it cites is, by
   content hash, in the corpus served now, and no sentence saying what the answer says changed anywhere in the
   documents since it was approved (core.reuse.drift; the caller passes what it found as `drift`);
3. no_passing — the gate keeps at least one chunk at the threshold for the new question (a question the
   documents cannot even reach is not answered by an old answer);
4. chunks — every cited chunk is among the new question's retrieved candidates;
5. case — the student's own case is the same (core.reuse.case): amounts, lessons, level, started, which time;
6. match — the new question asks for nothing the approved question did not ask and the answer does not state
   (time, way, amount …: an answer stating 「4800 元」 gives an amount), is not a yes/no question where the approved
   one asked for a quantity (time, amount, headcount, count), does not ask the opposite (「不能做哪些事」 against
   「能回答哪些问题」), and the approved question — or a wording a consultant
   linked to it as the same question (ApprovedStore.link_question) — and the answer mention enough of its terms
   (core.reuse.match) to reach the reuse threshold
   (calibrated by `python -m core calibrate`, core/data/calibration.json).
The first guard that fails is the reason; a near match that failed only at `case` is what the page offers as
「相似已审答案（情况不同：…）」. Nothing here writes, and neither does the caller: an answer found stale here and not
yet suspended (a file edited on the server, not yet recorded) is simply not served.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from core.case import ALL_KINDS, KindSet
from core.reuse.case import differences
from core.reuse.match import Scoring, asks_opposite, asks_other, asks_yes_no_instead, mentioned_text, scoring
from core.values import ApprovedAnswer, Gate, GuardResult, Retrieval, Term
from core.values.facts import NO_FACTS, SchoolFacts
from core.values.reuse import ACTIVE, SUSPENDED, SUSPENDED_NOTE


def check(answer: ApprovedAnswer, approved_terms: Sequence[Term], retrieval: Retrieval, gate: Gate,
          corpus_hashes: Collection[str], candidate_hashes: Collection[str], threshold: float,
          drift: str = "", facts: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS,
          scored: Scoring | None = None) -> GuardResult:
    """The guards for one approved answer against one new question, in order. The similarity is the closest of the
    approved question (with its terms' glossary forms, `approved_terms`) and every wording a consultant linked to it
    (ApprovedAnswer.phrasings; by its own words only); what is asked (amount, yes/no …) and the student's case are
    always the approved question's, so a linked wording lacking 「多少」 cannot let 「能打折吗」 through. `facts`: the
    school's (its level names are the case guard's, and no match of words). `scored`: the new question's
    `scoring(retrieval.terms, facts)` when the caller checks many answers against it (read once, not per answer)."""
    if scored is None:
        scored = scoring(retrieval.terms, facts)
    scores = {q: scored.of(mentioned_text(q, answer.text, approved_terms if q == answer.question else ()))
              for q in answer.phrasings}  # a linked wording counts by its own words: no glossary forms (钱 → 学费)
    closest = max(answer.phrasings, key=lambda q: scores[q])  # ties keep the approved question
    score, wording = scores[closest], closest if closest != answer.question else ""

    def stop(name: str, detail: str = "") -> GuardResult:
        return GuardResult(answer, score, name, detail, wording)

    if answer.status == SUSPENDED:
        return stop("stale", answer.suspended_because.removeprefix(SUSPENDED_NOTE) or answer.status_label)
    if answer.status != ACTIVE:
        return stop("retired", answer.status_label)
    if stale := stale_detail(answer, corpus_hashes, drift):
        return stop("stale", stale)
    if not gate.hits:
        return stop("no_passing", gate.reason)
    missing = [c for c in answer.citations if c.sha256 not in candidate_hashes]
    if missing:
        return stop("chunks", "、".join(f"{c.source} · {c.heading or '文首'}" for c in missing))
    differ = differences(retrieval.question, answer.question, facts, kinds)
    if differ:
        return stop("case", "；".join(differ))
    other = asks_other(retrieval.question, answer.question, answer.text)
    if other:
        return stop("match", f"这个问题还问了{'、'.join(sorted(other))}")
    instead = asks_yes_no_instead(retrieval.question, answer.question)
    if instead:
        return stop("match", f"已审问题问的是{'、'.join(sorted(instead))}，这个问题问的是能不能、是不是")
    if asks_opposite(retrieval.question, answer.question):
        return stop("match", "一个问能做的，一个问不能做的（不能、不会、不给……），问的是相反的事")
    if score < threshold:
        return stop("match", f"相似度 {score:.2f} < {threshold:.2f}")
    return GuardResult(answer, score, wording=wording)


def stale_detail(answer: ApprovedAnswer, corpus_hashes: Collection[str], drift: str = "") -> str:
    """Why the documents no longer back `answer` ("" when they do): a chunk it cites is not, by content hash, in
    `corpus_hashes`, else `drift` (core.reuse.drift.related_change). The stale guard and the store's suspension
    (core.stores.answer_refresh) both ask this, so they never disagree."""
    changed = [c for c in answer.citations if c.sha256 not in corpus_hashes]
    if changed:
        return "所引的" + "、".join(f"「{c.source} · {c.heading or '文首'}」" for c in changed) + "已修改"
    return drift


def pick(results: Sequence[GuardResult]) -> GuardResult | None:
    """The answer to serve: the most similar one that passed every guard (the newest on a tie), or None."""
    return max((r for r in results if r.served), key=lambda r: (r.similarity, r.answer.id), default=None)
