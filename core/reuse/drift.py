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

The documents ask it of themselves too (`still_stating`): when a save changes a sentence (「开课前申请退费的，学费全额
退还。」 gets a 100 元 fee), every other sentence of the documents is compared with the old one the same way, as the
approved answer was — with one more condition, that the related clause still holds something the save dropped
(「学费全额退还」: 全额 is in no sentence the save wrote; numbers count whole, so 「3600 元」 and 「4200 元」 share nothing). The FAQ line 「答：可以，开课前申请退费，学费全额退还。」 then still
states the old rule and is listed before the save is confirmed; 「开课后申请退费的，按剩余课时计算」 shares the clause
「申请退费的」 with it but nothing the edit dropped, and is not.

RELATED_SHARE was picked by a rule written before looking (`python -m bench.reuse_drift`): on the development
reuse sets (reuse_dev, reuse_set, reuse_set_v2: every row whose edit is not in a cited chunk counts), each
stale row the check would miss costs 5 and each paraphrase it would suspend costs 1; of the cheapest values the
lowest is kept (when in doubt, ask a consultant again rather than serve).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from core.checks.cited_sentence import bigrams, sentences
from core.checks.references import extract_refs
from core.corpus.loader import split_sections
from core.values import Contradiction, Hit

RELATED_SHARE = 0.35
MIN_CLAUSE_PAIRS = 3
_CLAUSE = re.compile(r"[，,。；;：:！？!?、\n（）()]+")
MAX_SHOWN = 40
_ASKING = ("？", "?")
_UNIT = re.compile(r"\d+(?:\.\d+)?|[^\s\W_]")  # a number, or one character (spaces, punctuation left out)


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


def _clauses(answer: str) -> list[tuple[str, set[str]]]:
    """Each clause of `answer` long enough to say anything, with its character pairs."""
    return [(clause, pairs) for clause in _CLAUSE.split(answer) if len(pairs := bigrams(clause)) >= MIN_CLAUSE_PAIRS]


def relatedness(sentence: str, answer: str) -> float:
    """The largest share of one answer clause's character pairs found in `sentence` (0 when no clause is long
    enough to say anything)."""
    found = bigrams(sentence)
    return max((len(pairs & found) / len(pairs) for _clause, pairs in _clauses(answer)), default=0.0)


def _units(text: str) -> set[str]:
    """Pairs of neighbouring units, a number being one unit (「3600 元」 → 「3600元」): what a rule says, where
    `bigrams` would let 「3600 元」 and 「4200 元」 share 「00」 and 「0元」."""
    units = _UNIT.findall(text.lower())
    return {units[i] + units[i + 1] for i in range(len(units) - 1)}


def _counterpart(sentence: str, added: list[str]) -> str | None:
    """The added sentence that is `sentence` edited (sharing at least half its pairs, the most of any), or None
    when it was deleted."""
    now = max(added, key=lambda a: len(bigrams(a) & bigrams(sentence)), default=None)
    if now is not None and len(bigrams(now) & bigrams(sentence)) * 2 >= len(bigrams(sentence)):
        return now
    return None


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
            if (now := _counterpart(sentence, added)) is not None:
                return f"「{source}」里与这条答案说同一件事的句子改了：「{_shown(sentence)}」→「{_shown(now)}」"
            return f"「{source}」里与这条答案说同一件事的句子删掉了：「{_shown(sentence)}」"
    return ""


def still_stating(changes: Mapping[str, tuple[str | None, str | None]], texts: Mapping[str, str],
                  share: float = RELATED_SHARE) -> tuple[Contradiction, ...]:
    """The sentences of `texts` (source → the documents' text after the save) that still state a rule the save
    changed: for each sentence the save removed (`changes`: source → (old text, new text)), every other sentence with
    a clause related to it as `related_change` relates an answer (at least `share` of the clause's pairs in the old
    sentence) that also holds a pair of units (`_units`) the old sentence had and no sentence the save wrote has.
    Sentences the save itself wrote, headings and questions are left out."""
    found: dict[tuple[str, str, str], Contradiction] = {}
    written = {source: set(_split(*pair)[1]) for source, pair in changes.items()}
    for changed in sorted(changes):
        removed, added = _split(*changes[changed])
        wrote = set().union(*map(_units, added))
        for old in removed:
            new = _counterpart(old, added) or ""
            before, dropped = bigrams(old), _units(old) - wrote  # what it said that nothing the save wrote says
            if not dropped:
                continue
            for source in sorted(texts):
                text, sections = texts[source], None
                for start, end in sentences(text):
                    sentence = text[start:end].strip()
                    if (sentence in written.get(source, ()) or sentence.startswith("#") or sentence.endswith(_ASKING)
                            or (source, sentence, old) in found):
                        continue  # what the save wrote, a heading or a question (neither states a rule), or known
                    if any(len(pairs & before) >= share * len(pairs) and _units(clause) & dropped
                           for clause, pairs in _clauses(sentence)):
                        sections = sections or split_sections(text)
                        heading = next((s.heading for s in sections if s.start <= start < s.end), "")
                        found[source, sentence, old] = Contradiction(source, heading, sentence, changed, old, new)
    return tuple(found.values())


def _shown(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SHOWN else sentence[:MAX_SHOWN] + "…"


def cited_contradictions(text: str, hits: Sequence[Hit], found: Sequence[Contradiction],
                         share: float = RELATED_SHARE) -> tuple[Contradiction, ...]:
    """Of `found` (the documents' open contradictions), those an answer rests on: the sentence is in a chunk the
    answer cites (its [n] → hits[n-1]) and the answer says what the sentence says, as `related_change` relates an
    approved answer to a change (a clause of the answer with at least `share` of its pairs in the sentence); or the
    answer cites the changed sentence as it was before the save (an index that has not caught up yet) and says it."""
    cited = [hits[n - 1] for n in extract_refs(text) if 1 <= n <= len(hits)]
    return tuple(c for c in found
                 if (any(h.source == c.source and c.sentence in h.text for h in cited)
                     and relatedness(c.sentence, text) >= share)
                 # an instance whose index has not caught up with the save still cites the changed sentence as it was
                 or (c.old and any(h.source == c.changed_source and c.old in h.text for h in cited)
                     and relatedness(c.old, text) >= share))
