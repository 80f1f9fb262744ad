"""Did the documents change, since an answer was approved, in a sentence that says what the answer says?

The stale guard's content hashes only see the chunks an approved answer cites. A school writes one fact in
several places (a section and its FAQ: 「每课时 45 分钟」 in 二、课时安排 and in 五、常见问题), so an edit to the
other place leaves the cited chunk identical while the documents now disagree with the answer; serving it then
would hand a student a policy the school has changed. Here every sentence that a save added or removed since
the approval is compared with the approved text: a changed sentence is related when, for some clause of the
answer (split at ，。；：…, at least MIN_CLAUSE_PAIRS character pairs), at least RELATED_SHARE of the clause's
character pairs (core.checks.cited_sentence.bigrams) are in the sentence. 「每课时 45 分钟」 against the edited
「每一级都是 16 课时，每课时 45 分钟。」 shares every pair; 「人工服务时间为每天 9:00–21:00」 against an edit to
「因病或工作调动，可以申请保留学籍」 shares none.

RELATED_SHARE was picked by a rule written before looking (`python -m bench.reuse_drift`): on the development
reuse sets (reuse_dev, reuse_set, reuse_set_v2: every row whose edit is not in a cited chunk counts), each
stale row the check would miss costs 5 and each paraphrase it would suspend costs 1; of the cheapest values the
lowest is kept (when in doubt, ask a consultant again rather than serve).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from core.checks.cited_sentence import bigrams, sentences

RELATED_SHARE = 0.35
MIN_CLAUSE_PAIRS = 3
_CLAUSE = re.compile(r"[，,。；;：:！？!?、\n（）()]+")
MAX_SHOWN = 40


def _split(old: str | None, new: str | None) -> tuple[list[str], list[str]]:
    """(removed, added): the sentences only the old text has, and only the new one has, whitespace-trimmed."""
    before = [old[a:b].strip() for a, b in sentences(old)] if old else []
    after = [new[a:b].strip() for a, b in sentences(new)] if new else []
    kept_before, kept_after = set(before), set(after)
    return ([s for s in dict.fromkeys(before) if s not in kept_after],
            [s for s in dict.fromkeys(after) if s not in kept_before])


def changed_sentences(old: str | None, new: str | None) -> tuple[str, ...]:
    """The sentences only one of the two texts has (removed first, then added)."""
    removed, added = _split(old, new)
    return tuple(dict.fromkeys(removed + added))


def relatedness(sentence: str, answer: str) -> float:
    """The largest share of one answer clause's character pairs found in `sentence` (0 when no clause is long
    enough to say anything)."""
    found = bigrams(sentence)
    best = 0.0
    for clause in _CLAUSE.split(answer):
        pairs = bigrams(clause)
        if len(pairs) >= MIN_CLAUSE_PAIRS:
            best = max(best, len(pairs & found) / len(pairs))
    return best


def related_change(answer: str, changes: Mapping[str, tuple[str | None, str | None]],
                   share: float = RELATED_SHARE) -> str:
    """「「file」：「sentence…」」 for the first changed sentence related to `answer`, or "" when none is.
    `changes`: source → (its text when the answer was approved, its text now; None when absent)."""
    for source in sorted(changes):
        removed, added = _split(*changes[source])
        for sentence in removed + added:
            if relatedness(sentence, answer) < share:
                continue
            if sentence in added:
                return f"「{source}」里新写了与这条答案说同一件事的句子：「{_shown(sentence)}」"
            now = max(added, key=lambda a: len(bigrams(a) & bigrams(sentence)), default=None)
            if now is not None and len(bigrams(now) & bigrams(sentence)) * 2 >= len(bigrams(sentence)):
                return f"「{source}」里与这条答案说同一件事的句子改了：「{_shown(sentence)}」→「{_shown(now)}」"
            return f"「{source}」里与这条答案说同一件事的句子删掉了：「{_shown(sentence)}」"
    return ""


def _shown(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SHOWN else sentence[:MAX_SHOWN] + "…"
