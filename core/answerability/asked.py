"""The gate's rule `asked_attribute`: an answer must carry what is asked about the question's subject.

A question asking for an amount, a duration, a year … (core.case.asked, the kinds a sentence's form can show) is
answered only by a sentence that states that kind (「4200 元」, 「7 个工作日」, 「2015 年」) and is about the
question's subject: where the sentence stands — its FAQ question, its lead, its paragraph and the chunk's heading —
holds at least SUBJECT_SHARE of the subject's weight. The subject is the question's content words the corpus knows,
less the words that ask (多少钱, 退到哪里); of a question of several clauses, the asking clause's words count too,
and the better share wins. A word the corpus never uses is the absent-word signal's business, not this rule's.
A duration or an amount is asked of something on each side of the asking word (「保留学籍的申请多久能批下来」: what
happens — 批下来 — to what — 保留学籍的申请): with the rule `asked_sides` on, a sentence stating it must also hold
each side's main word (`asking_sides`, `Subject.holds_sides`), so a review time stated for refunds does not answer
how long a 保留学籍 takes.

「保过班多少钱」: the passing chunks state amounts (「每次收取 100 元转班手续费」) but none holds enough of 保 and 班
around it, so the gate refuses with 「资料里没有写“保过班价格”」. 「启明英语是哪一年成立的」: no passing sentence
states a year at all. 「退款多久能到账」: 「款项在 7 个工作日内原路退回」 under 「退款多久能到账？」 qualifies.

Knob-free: the shares are measured once per candidate at retrieval time (`AskedCheck`), and a prefix of passing
chunks misses a kind when none of its chunks holds a qualifying sentence (`missing`). The offline answerer
chooses among the related sentences those stating the kind asked (core.answering.choose); a model's answer is
checked against the same kinds (core.checks.asked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from core.answerability.credit import credit
from core.case.asked import (
    ASKING_WORDS,
    COMPARING_WORDS,
    PLACE_WORDS,
    REPEAT_ANSWERS,
    REPEAT_WORDS,
    RULE_WORDS,
    TOPIC_WORDS,
    Asked,
    alternatives,
    asked_kind,
    compared,
    per_unit,
    states,
    states_address,
    states_counted,
    states_rate,
)
from core.case.words import said
from core.conversations.subjects import nominal
from core.conversations.words import slot_groups
from core.corpus.sentences import Sentence, reference_sentences
from core.language.lexicon import lexicon
from core.language.text import normalize
from core.language.words import RETRIEVAL_QUESTION_WORDS
from core.values import Hit, Term

RULE_NAME = "asked_attribute"
REASON_CODE = "not_asked_attribute"
# A qualifying sentence's surroundings hold at least half the subject's weight (the even split: not tuned on a set;
# bench.asked_ablation prints what other shares would do).
SUBJECT_SHARE = 0.5
# Question words inside a term (退到哪里, 收多少, 留多久) make it part of the asking, not of the subject.
_ASKING_PARTS = tuple(sorted({w for w in RETRIEVAL_QUESTION_WORDS if w not in ("吗", "呢")} | ASKING_WORDS,
                             key=len, reverse=True))
_CLAUSE_RE = re.compile(r"[，,。！!？?；;\s]+")


# The student's-case word lists (core/data/case_words.txt) a rule said with none of their words holds for every one
# of: the course's stage (开课前 / 开课后), the channel a thing is done through (App / 前台) and the class type
# (线上班 / 线下班).
SCOPES = (("before", "after"), ("channel",), ("class_type",))
# The scopes a subject word is held in by a sentence naming none of their words (Subject.share): the class type only —
# a channel so held would let 「人工服务时间为每天 9:00–21:00」 answer 「App 几点关门」.
SUBJECT_SCOPES = (("class_type",),)


def _scope(text: str) -> tuple[str, ...] | None:
    """The scope (SCOPES) whose words `text` names, None when it names none."""
    return next((scope for scope in SCOPES if any(said(text, name) for name in scope)), None)


@dataclass(frozen=True)
class Subject:
    """What a question is about, as the gate's terms say it: the subject word sets to try (the asking clause's,
    then the whole question's) and the words a refusal names (「保过班」, 「成立」)."""

    sets: tuple[tuple[Term, ...], ...]
    named: str
    # the specific words before and after the asking word, whose main word each a sentence stating a duration or an
    # amount must hold (`asking_sides`; empty when the rule asked_sides is off or no SIDED_KINDS is asked)
    sides: tuple[tuple[Term, ...], ...] = ()

    def share(self, context: str, *, whole: bool = False) -> float:
        """The best share of one subject set's weight that `context` (normalised) holds, each word weighted as the
        offline answerer weighs it: weight × specificity (a word most chunks use, such as 课时, says little);
        `whole`: of the whole question's set only (the last), not the asking clause's."""
        best = 0.0
        for terms in self.sets[-1:] if whole else self.sets:
            total = sum(t.weight * t.specificity for t in terms)
            if total <= 0:
                return 1.0  # nothing to be about: the kind alone decides
            # a class type held by a sentence naming none: only when the question names one (「线上班和线下班哪个报的人多」
            # compares them, which no rule said for both answers)
            named = [_scope(t.typed or t.text) for t in terms]
            single = {scope for scope in SUBJECT_SCOPES if named.count(scope) == 1}
            best = max(best, sum(t.weight * t.specificity * _held_in_scope(t, context, single) for t in terms) / total)
        return best

    def holds_sides(self, context: str) -> bool:
        """Whether `context` (normalised) holds each side's main word — its heaviest by weight × specificity —
        at least SUBJECT_SHARE of it (graded, as `share` counts): 保留学籍 of 「保留学籍的申请交上去」, not 交上去.
        A course stage (开课后) or a channel (App) as the main word is held too by a context naming no word of its
        scope (SCOPES): a rule said for no stage holds at every stage, one said for no channel through every channel
        (「开课后退费多久能到账」 and 「在App申请退费多久到账」 are answered by 「审核通过后 7 个工作日内原路退回」)."""
        def held(side: tuple[Term, ...]) -> bool:
            main = max(side, key=lambda t: t.weight * t.specificity)
            return credit(main, [context], graded=True) >= SUBJECT_SHARE or _unscoped(main, context, SCOPES)

        return all(held(side) for side in self.sides)


def _held_in_scope(term: Term, context: str, scopes: Collection[tuple[str, ...]]) -> float:
    """`credit` of `term` in `context`, full for a class type (one of `scopes`: SUBJECT_SCOPES the question names one
    word of) the context says nothing of: a rule said for no class type holds for each (「每周上 2 课时，八周结课」
    answers 「线下班一期上几周」)."""
    found = credit(term, [context], graded=True)
    return found if found >= 1.0 or not _unscoped(term, context, scopes) else 1.0


def _unscoped(term: Term, context: str, scopes: Collection[tuple[str, ...]]) -> bool:
    """Whether `term` names a word of one of `scopes` (SCOPES) and `context` names no word of that scope: a rule said
    for no course stage, channel or class type holds for each one."""
    scope = _scope(term.typed or term.text)
    return scope is not None and scope in scopes and not any(said(context, name) for name in scope)


def _subject_word(term: Term, asking: Sequence[str]) -> Term | None:
    """The term as a subject word: None when it is only asking (多少钱) or part of the words that asked (课时 of
    几课时, 块钱 of 几块钱); a glossary form without a question word when the typed word holds one (人工几点 →
    人工服务时间)."""
    text = normalize(term.text)
    if text in ASKING_WORDS or any(text in word for word in asking):
        return None
    if not any(part in text for part in _ASKING_PARTS):
        return term
    forms = tuple(f for f in term.forms[1:] if not any(part in normalize(f) for part in _ASKING_PARTS))
    return replace(term, text=forms[0], forms=forms) if forms else None


Binder = Callable[[str, Sequence[Term], Asked], tuple[tuple[Term, ...], ...]]


def subject_of(question: str, terms: Sequence[Term], asked: Asked, binders: Sequence[Binder] = ()) -> Subject:
    """The subject of `question` (see the module doc); `binders` (the rules of the stage `bind` switched on) say
    which groups of its words a qualifying sentence must hold besides the share."""
    said = [w for w in (*asked.words, *asked.topic_words) if w]
    whole = tuple(w for w in (_subject_word(t, said) for t in terms if t.weight > 0 and not t.is_number and t.known)
                  if w)
    words = [asked.word(name) for name in asked.checkable]
    clauses = [c for c in _CLAUSE_RE.split(question) if c]
    asking = [c for c in clauses if any(w and w in normalize(c) for w in words)]
    # An elliptical asking clause (「扣不扣手续费？扣多少」) asks about what the clause before it names.
    asking += [clauses[i - 1] for i, c in enumerate(clauses) if c in asking and i and _bare(c, terms, words)]
    inside = tuple(t for t in whole if any(normalize(t.typed or t.text) in normalize(c) for c in asking))
    sets = (inside, whole) if inside and inside != whole else (whole,)
    sides = tuple(side for binder in binders for side in binder(question, whole, asked))
    # an asking clause naming nothing of its own (「…，手续费多少」) is named by its first side (保留学籍)
    named = _named(question, terms, asked) or next(
        (t.typed or t.text for side in sides[:1] for t in side[:1]), "")
    return Subject(sets=sets, named=named, sides=sides)


# The kinds asked of something on each side of the asking word: a duration of what happens to what (「转人工之后
# 要等多久才有人回」), an amount of what is paid for what (「教材弄丢了再补一本要花多少钱」), a person of what is done
# to what (「退费申请是谁来审核」: 「学员本人可以在 App 内提交退费申请」 says who applies, not who reviews). A clock time
# or a year is asked of one event, said in the documents' own words (「几点上班」 is answered by 「人工服务时间为
# 9:00–21:00」).
SIDED_KINDS = ("duration", "amount", "person", "place", "during", "frequency")
# A side's word counts when its specificity (idf over that of a word in one chunk) is at least half, the even split
# as SUBJECT_SHARE — in the shipped 26 chunks, a word in at most 5 of them: 钱 or 课, which many chunks use, says
# nothing of which matter a sentence is about.
SPECIFIC = 0.5


# The matters a student asks about (退费, 转班, 保留学籍 …: core/data/followup_words.txt's slot.matter): one named in the
# clause just before an asking clause naming none is a side of what that clause asks.
MATTERS = tuple(normalize(m) for m in dict(slot_groups()).get("matter", ()))
# 「X 的话，…」「X 以后，…」: X is the condition or the time the next clause is asked under
CONDITION_ENDS = ("的话", "以后", "之后")
# 「要是 X，…」「如果 X，…」: the same, said before X
CONDITION_WORDS = ("要是", "如果", "假如", "万一")


def asking_sides(question: str, subject: Sequence[Term], asked: Asked) -> tuple[tuple[Term, ...], ...]:
    """The rule asked_sides: the subject's specific words before and after the word asking a duration, an amount, a
    place, a person, a frequency or what holds during something (SIDED_KINDS), in its clause; each non-empty side's main
    word must be held by a qualifying sentence's surroundings (Subject.holds_sides). A frequency's after side is the
    word done, however common (「多久开一期新班」: 开; 「每周上 2 课时」 says how often one 上, not how often one 开).

    Fixes 「保留学籍的申请一般多久能批下来」 (「提交申请后 3 个工作日内完成审核」 is under a refund question: 审核 is
    there, 保留学籍 is not) and 「学费一般多久调一次价」 (no duration sentence says 调). Must not break
    「审核通过了 钱多久能到账啊」 (钱 is a word most chunks use: its side is empty) or 「退费多久能到账」. A clause ending in
    的话, 以后 or 之后 (CONDITION_ENDS), or holding 要是, 如果 … (CONDITION_WORDS), just before the asking clause is a
    third side, the condition it is asked under
    (「申请保留学籍的话，审核要多久啊」: 「最长保留 6 个月」 is no review's duration, 「3 个工作日内完成审核」 a refund's);
    so is a matter (MATTERS) named in the clause just before an asking clause naming none (「办保留学籍要不要交钱呀，
    手续费多少」: the 100 元 fee is a transfer's). A place is asked of both sides too (SIDED_KINDS)."""
    kind = next((name for name in asked.checkable if name in SIDED_KINDS and asked.word(name)), "")
    word = asked.word(kind) if kind else ""
    clauses = [normalize(c) for c in _CLAUSE_RE.split(question) if c]
    i = next((i for i, c in enumerate(clauses) if word and word in c), -1)
    if i < 0:
        return ()
    clause = clauses[i]
    at = clause.find(word)

    def specific_in(text: str) -> list[tuple[int, Term]]:
        return [(text.find(typed), t) for t in subject
                if t.specificity >= SPECIFIC and (typed := normalize(t.typed or t.text)) and typed in text]

    placed = specific_in(clause)
    before = tuple(t for found, t in placed if found < at)
    after = tuple(t for found, t in placed if found >= at + len(word))
    if kind == "frequency":  # 「多久开一期新班」: how often what is done — the word done, however common (开, not 上)
        done = sorted(((found, t) for t in subject if (found := clause.find(normalize(t.typed or t.text))) >= at + len(word)),
                      key=lambda placed_term: placed_term[0])
        after = (done[0][1],) if done else after
    # the condition the question is asked under is a side too (「申请保留学籍的话，审核要多久」: the leave's review)
    held = {t for _, t in placed}
    before_clause = clauses[i - 1] if i > 0 else ""
    condition: tuple[Term, ...] = ()
    if before_clause.endswith(CONDITION_ENDS) or any(w in before_clause for w in CONDITION_WORDS):
        condition = tuple(t for _, t in specific_in(before_clause) if t not in held)
    elif not any(m in clause for m in MATTERS):
        # a matter named in the clause before (「办保留学籍要不要交钱呀，手续费多少」) is what the asking clause asks of
        named = [m for m in MATTERS if m in before_clause]
        condition = tuple(t for _, t in specific_in(before_clause)
                          if t not in held and any(normalize(t.typed or t.text) in m for m in named))
    return tuple(side for side in (condition, before, after) if side)


def asked_repeat(question: str, subject: Sequence[Term], asked: Asked) -> tuple[tuple[Term, ...], ...]:
    """The rule asked_repeat: a price asked of another time (「再测一回要多少钱」「第二次收多少」: REPEAT_WORDS) is
    stated only by a sentence whose surroundings speak of that time (REPEAT_ANSWERS: 「从第二次起，每次收取 100 元」),
    as one side a qualifying sentence must hold (Subject.holds_sides).

    Fixes 「分级测试想再测一回，第二次收多少钱」: 「报名前可以做一次免费的分级测试」 states an amount (免费) for the one
    test, not for another. Must not break 「第二次转班要交钱吗」 or 「再转一次班收多少」: 「从第二次起，每次收取 100 元转班
    手续费」 speaks of the second time."""
    if "amount" not in asked.checkable or not REPEAT_ANSWERS:
        return ()
    folded = normalize(question)
    if not any(word in folded for word in REPEAT_WORDS):
        return ()
    return ((Term(REPEAT_ANSWERS[0], 1.0, REPEAT_ANSWERS, True),),)


def _bare(clause: str, terms: Sequence[Term], words: Sequence[str]) -> bool:
    """Whether an asking clause names nothing but its asking words (「扣多少」)."""
    rest = normalize(clause)
    for word in words:
        rest = rest.replace(word, "") if word else rest
    return not any(normalize(t.typed or t.text) in rest for t in terms if t.weight > 0)


def _named(question: str, terms: Sequence[Term], asked: Asked) -> str:
    """The question's words the asked kind is about, as typed: the terms right after the asking word in its clause
    (哪一年成立 → 成立), else those before it (保过班多少钱 → 保过班), spanning the characters between them."""
    word = next((asked.word(name) for name in asked.checkable if asked.word(name)), "")
    text = next((normalize(c) for c in _CLAUSE_RE.split(question) if word and word in normalize(c)), "")
    at = text.find(word) if word else -1
    if at < 0:
        return ""
    spans = []
    for t in terms:
        typed = normalize(t.typed or t.text)
        if typed and typed not in ASKING_WORDS and (found := text.find(typed)) >= 0:
            spans.append((found, found + len(typed)))
    after = [s for s in spans if s[0] >= at + len(word)]
    before = [s for s in spans if s[1] <= at]
    if "during" in asked.checkable and before and after:  # 「保留学籍期间还能申请转班」: both things
        return text[min(s[0] for s in before):max(s[1] for s in after)]
    if after:
        first = min(after)
        return text[first[0]:first[1]]
    if before:
        return text[min(s[0] for s in before):max(s[1] for s in before)]
    return ""


@dataclass(frozen=True)
class AskedCheck:
    """What one question asks that a sentence must carry, measured on each ranked candidate: `shares[i][k]` is the
    best subject share of a sentence of candidate i stating `kinds[k]` (0 when none states it)."""

    asked: Asked
    subject: Subject
    kinds: tuple[str, ...]
    shares: tuple[tuple[float, ...], ...]
    # the same about the whole question's subject, not the asking clause's (what the rule asked_rank ranks by)
    whole: tuple[tuple[float, ...], ...] = ()
    own_case: bool = False  # it asks a computation of the student's own case (any amount carries: COMPUTED_KINDS)
    choice: str = ""  # the options of a choice written out, as a refusal names them (「线上还是校区」)
    thing: str = ""  # what 「有没有 X」 asks about, as typed (「学习报告」)
    compared: str = ""  # a comparison written out, as a refusal names it (「教材跟新概念比」)

    def missing(self, passing: int) -> str:
        """The first kind (registry order) no sentence of the first `passing` candidates carries about the subject;
        "" when each is carried (or nothing checkable is asked)."""
        for k, name in enumerate(self.kinds):
            if not any(row[k] >= SUBJECT_SHARE for row in self.shares[:passing]):
                return name
        return ""

    def reason(self, name: str) -> str:
        """「资料里没有写“成立年份”」: what the documents do not state, in the consultant's words."""
        named = {"choice": self.choice, "exists": self.thing, "compare": self.compared}.get(name, self.subject.named)
        return f"资料里没有写“{asked_kind(name).missing(named)}”"


# A candidate holding no sentence that carries what is asked ranks at this share of its ranking score, when some
# candidate holds one (the rule asked_rank): the even split, as RERANK_BASE (core.answerability.decision); not tuned.
ASKED_BASE = 0.5
# Kinds a sentence carries by naming something, not by stating a value (「有没有 X」: any sentence naming X; a choice:
# any sentence naming an option): too weak a sign to reorder the candidates by.
UNRANKED_KINDS = ("exists", "choice", "compare")


def rank_by_asked(ranked: Sequence[Hit], check: AskedCheck) -> tuple[tuple[Hit, ...], AskedCheck]:
    """The rule asked_rank: the candidates holding no sentence that carries every kind asked about the whole
    question's subject (`AskedCheck.whole`: not only the asking clause's) rank at their ranking score × ASKED_BASE,
    so one that holds such a sentence moves above those scoring less than twice its score; the threshold still
    compares the score the order follows. When none or all of them carry it, nothing moves; nor for a computation of
    the student's own case (any amount carries it: the rule's sentences, not a stated amount, answer it) or a kind
    carried by naming (UNRANKED_KINDS).

    Fixes 「三级多少课时」: the chunks naming 三级 (the tuition list, the levels) rank above 「每一级都是 16 课时」, which
    is about 三级 too (SchoolFacts.every_level) but does not name it, so it fell outside the first k and the gate
    refused with 「资料里没有写“三级课时数”」. Must not break 「保过班多少钱」: no candidate states a price of 保过班,
    so nothing moves and the gate refuses as before."""
    if check.own_case or any(kind in UNRANKED_KINDS for kind in check.kinds):
        return tuple(ranked), check
    carries = [bool(row) and all(share >= SUBJECT_SHARE for share in row) for row in check.whole]
    if all(carries) or not any(carries):
        return tuple(ranked), check
    scored = [replace(hit, asked=True) if carried else replace(hit, value=hit.value * ASKED_BASE, asked=False)
              for hit, carried in zip(ranked, carries)]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].value, i))
    moved = tuple(replace(scored[i], rank=r) for r, i in enumerate(order, start=1))
    return moved, replace(check, shares=tuple(check.shares[i] for i in order),
                          whole=tuple(check.whole[i] for i in order))


Search = Callable[[str], Sequence[Hit]]


def every_level_rescored(question: str, hits: Sequence[Hit], search: Search, asked: Asked,
                         every_level: tuple[tuple[str, ...], str]) -> tuple[Hit, ...]:
    """The rule every_level: a chunk holding a sentence that states one value for every level (SchoolFacts.every_level:
    「每一级都是 16 课时」) is scored, for a question naming a level and asking the kind that sentence states, as if it
    named that level too: its retrieval score is the better of its own and the one it gets for the question without
    the levels it names (`every_level`: (those sentences, the question so read); `search`, the same retrieval). The
    other candidates keep their scores; the union's best, as many as `hits`, come back best first.

    Fixes 「流利级多少课时」: the chunks naming 流利级 (the tuition list, the levels, the FAQ listing the levels)
    outscored 「每一级都是 16 课时」, which names no level, so it fell outside the first k and the gate refused with
    「资料里没有写“流利级课时数”」. Must not break 「学完商务级能帮忙推荐工作吗」: it asks no kind the every-level
    sentences state, so nothing is searched again and the gate refuses as before."""
    common, unleveled = every_level
    if not common or unleveled == question or not unleveled.strip():
        return tuple(hits)
    kinds = asked.checkable
    if not any(states(sentence, kind, asked.word(kind)) for sentence in common for kind in kinds):
        return tuple(hits)
    found = {(h.source, h.chunk): h for h in hits}
    for hit in search(unleveled):
        key = (hit.source, hit.chunk)
        if any(sentence in hit.text for sentence in common) and hit.score > (found[key].score if key in found else 0.0):
            found[key] = hit
    order = sorted(found.values(), key=lambda h: -h.score)[:len(hits)]
    return tuple(replace(hit, rank=r) for r, hit in enumerate(order, start=1))


def check_asked(question: str, terms: Sequence[Term], asked: Asked, ranked: Sequence[Hit], *,
                own_case: bool = False, binders: Sequence[Binder] = (),
                every_level: tuple[tuple[str, ...], str] = ((), "")) -> AskedCheck | None:
    """The candidates measured for what `question` asks; None when it asks nothing a sentence's form can show.
    A question asking a computation of the student's own case (`own_case`: a refund, a transfer's fee, a level
    difference) asks for an amount worked out from a rule, not one a sentence states about its words: any passing
    sentence stating an amount (COMPUTED_KINDS) carries it.

    Fixes 「启明英语是哪一年成立的」 (no passing sentence states a year) and 「小班多少钱一节」 (the amounts stated
    are for levels, not for 小班). Must not break 「退款多久能到账」: 「审核通过后 7 个工作日内原路退回」 under
    「退款多久能到账？」 carries the duration.
    """
    options = _options(question, terms) if "choice" in asked else ()
    thing, things = _thing(question, terms, asked.word("exists")) if "exists" in asked else ("", ())
    sides = _compared(question, terms, normalize(every_level[1])) if "compare" in asked else None
    kinds = tuple(k for k in asked.checkable if k != "exists" or thing) + (("choice",) if options else ()) + \
        (("compare",) if sides is not None else ())
    if not kinds:
        return None
    subject = subject_of(question, terms, asked, binders)
    computed = frozenset(COMPUTED_KINDS) if own_case else frozenset()
    # Where a place itself is (「校区在哪」): only an address says it, not a sentence naming the place (到校区前台…).
    address = "place" in kinds and any(normalize(t.text) in PLACE_WORDS for t in subject.sets[0])
    # A price per lesson, per month … (「一节课多少钱」): only a price stated per that unit says it.
    unit = per_unit(question) if "amount" in kinds and not own_case else ""

    def carries(text: str, name: str) -> bool:
        if name == "exists":  # 「有没有 X」 is answered by a sentence naming X (with its FAQ question and lead)
            return any(t.known and credit(t, [normalize(text)]) >= 1.0 for t in things)
        if name == "choice":  # a choice written out is answered by a sentence naming one of its options
            return any(credit(option, [normalize(text)]) >= 1.0 for option in options)
        if name == "compare":  # 「X 跟 Y 比」: a sentence comparing the two, each named by a word the documents have
            folded = normalize(text)
            return sides is not None and any(w in folded for w in COMPARING_WORDS) and all(
                side and all(t.known for t in side) and any(credit(t, [folded]) >= 1.0 for t in side)
                for side in sides[:2])
        if name == "amount" and unit:
            return states_rate(text, unit)
        if name == "count" and asked.counted:  # 「开了几个校区」: a figure of 校区, not any count
            return states_counted(text, asked.counted)
        return states_address(text) if name == "place" and address else states(text, name, asked.word(name))

    common = frozenset(map(normalize, every_level[0]))
    levels = normalize(every_level[1])

    def where(sentence: Sentence, hit: Hit, stem: bool = True) -> str:
        """`surroundings`, and where the levels are named when the sentence states one value for every level
        (「每一级都是 16 课时」 is about 三级 too)."""
        around = surroundings(sentence, hit, stem=stem)
        return f"{around}\n{levels}" if levels and normalize(sentence.text) in common else around

    # a choice is about what the question asks it of, not about its options (「分级测试是去校区考还是在App上做」: a
    # sentence naming App and 校区 for a refund holds the options, not 分级测试): `_chosen_of`
    chosen_of = _chosen_of(subject, options)
    measured = [_candidate_shares(hit, kinds, subject, computed | {"exists"}, carries, where, chosen_of)
                for hit in ranked]
    return AskedCheck(asked=asked, subject=subject, kinds=kinds, shares=tuple(m[0] for m in measured),
                      whole=tuple(m[1] for m in measured), own_case=own_case,
                      choice="还是".join(option.typed or option.text for option in options), thing=thing,
                      compared=sides[2] if sides is not None else "")


def _thing(question: str, terms: Sequence[Term], word: str) -> tuple[str, tuple[Term, ...]]:
    """What 「有没有 X」 asks about: the content words of X, the rest of the asking clause after the word (or, when
    the word ends its clause — 「寒假班有没有」 — the clause before it), with X as typed; ("", ()) when X holds none
    or names a rule (RULE_WORDS: 「有没有时间限制」)."""
    for clause in _CLAUSE_RE.split(question):
        folded = normalize(clause)
        at = folded.find(word) if word else -1
        if at < 0:
            continue
        thing = folded[at + len(word):] or folded[:at]
        if any(rule in thing for rule in RULE_WORDS):  # 「有没有时间限制」 asks for a rule, which any sentence may state
            return "", ()
        found = tuple(t for t in terms if t.weight > 0 and not t.is_number
                      and (typed := normalize(t.typed or t.text)) and typed in thing)
        return (thing, found) if found else ("", ())
    return "", ()


# jieba's tags of words naming a place (s: 网上, 家里), a position (f: 当面) or a kind (b: 二级)
_THING_TAGS = ("s", "f", "b")


def _names_thing(term: Term) -> bool:
    """A term naming a thing of two characters or more (校区, App, 网上, 分级测试), not a verb or one character (报,
    高)."""
    word = term.typed or term.text
    return len(word) >= 2 and (nominal(word) or lexicon().tags.get(word) in _THING_TAGS)


def _chosen_of(subject: Subject, options: Sequence[Term]) -> Subject:
    """What a choice between two things is asked of: the subject without the options, when both options and something
    left name things (「分级测试是去校区考还是在App上做」 → 分级测试); else the subject (「线下班贵还是线上班贵」: the options
    are what is asked about; 「都是16课时吗还是越高越多」: no two things to choose between)."""
    if len(options) != 2 or not all(_names_thing(option) for option in options):
        return subject
    sets = tuple(tuple(t for t in terms if t not in options) for terms in subject.sets)
    if not any(_names_thing(t) for t in sets[-1]):
        return subject
    return Subject(sets=sets, named=subject.named)


def _options(question: str, terms: Sequence[Term]) -> tuple[Term, ...]:
    """The two options of a choice written out, as terms: the last content word before 还是 and the first after it
    (「分级测试是线上做还是要去校区做」 → 线上, 校区); () when either side has none."""
    found = alternatives(question)
    if found is None:
        return ()
    before, after = (normalize(side) for side in found)

    def at(side: str, other: str, last: bool) -> Term | None:
        """The content word of `side` nearest 还是 that `other` does not say too (「一起交还是分开交」: 一起, 分开)."""
        placed = [(side.rfind(w) if last else side.find(w), t) for t in terms if t.weight > 0 and t.known
                  for w in [normalize(t.typed or t.text)] if w and w in side and w not in other]
        # a thing named is the option, not the verb done to it (「分级测试是去校区考还是在App上做」: 校区, App; not 考), and
        # what the question is about is said before its 是 (「教材是一起交还是分开交」: 教材 is no option)
        start = side.rfind("是") + 1 if last else 0
        placed = [p for p in placed if p[0] >= start and nominal(p[1].typed or p[1].text)] or placed
        return (max(placed, key=lambda p: p[0]) if last else min(placed, key=lambda p: p[0]))[1] if placed else None

    first, second = at(before, after, last=True), at(after, before, last=False)
    if first is None or second is None or first == second or not (_names_thing(first) and _names_thing(second)):
        return ()  # 「是直接报三级，还是一二级也得先补上」 chooses between two courses of action, not two things named
    return first, second


# What a question asks and asks about (多少钱, 价格 …), longest first: a side of a comparison naming only these names no
# thing to compare.
_ASKED_ABOUT_RE = re.compile("|".join(map(re.escape, sorted(ASKING_WORDS | TOPIC_WORDS, key=len, reverse=True))))


def _compared(question: str, terms: Sequence[Term], levels: str = "",
              ) -> tuple[tuple[Term, ...], tuple[Term, ...], str] | None:
    """The words of each thing a comparison written out compares (core.case.asked.compared), and the comparison as
    typed (「教材跟新概念比」); None without one, or when both things are levels (`levels`: the sentences naming them,
    SchoolFacts.every_level): the documents state each level's values, which compare by themselves (「入门级和商务级
    比，哪个学费贵」), or when a side names no thing but what is asked (「价钱比线下贵吗」: the thing is in another clause).
    A side with a word the documents never use cannot be compared from them (`carries`)."""
    found = compared(question)
    if found is None:
        return None
    first, second, word = found

    def words(side: str) -> tuple[Term, ...]:
        folded = normalize(side)
        return tuple(t for t in terms if t.weight > 0 and (typed := normalize(t.typed or t.text)) and typed in folded)

    def names_a_thing(side: str) -> bool:
        return bool(_ASKED_ABOUT_RE.sub("", normalize(side)))

    if not (names_a_thing(first) and names_a_thing(second)):
        return None  # 「价钱比线下贵吗」: a side naming only what is asked (价钱) names no thing to compare
    sides = words(first), words(second)
    if levels and all(normalize(side) in levels for side in (first, second)):  # 「四级比三级贵多少」
        return None
    return *sides, f"{first}跟{second}{word}"


# What a computation of the student's own case works out (core.answering.calculate): an amount, within bounds.
COMPUTED_KINDS = ("amount", "upper", "lower")


def _candidate_shares(hit: Hit, kinds: Sequence[str], subject: Subject, computed: frozenset[str],
                      carries: Callable[[str, str], bool], around: Callable[[Sentence, Hit, bool], str],
                      chosen_of: Subject | None = None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The best share of each kind's qualifying sentence in `hit`, about the subject (`Subject.share`), and about the
    whole question's subject in the sentence's own surroundings (`around(…, False)`: without the document's name);
    a choice's, about `chosen_of` (the subject without the options)."""
    best = [0.0] * len(kinds)
    whole = [0.0] * len(kinds)
    for sentence in reference_sentences(hit.text):
        if sentence.example:  # a worked example's amounts are another student's, not a fact about the subject
            continue
        carried = [k for k, name in enumerate(kinds)
                   if carries(sentence.text if name != "exists" else sentence.context or sentence.text, name)]
        if carried:
            where = around(sentence, hit, True)
            # ranking by it (asked_rank) and each side ask more: the sentence's own surroundings, not its document's
            # name (every sentence of 「助教小E使用手册」 is not about what 小E does at night; 「…最长 6 个月」 in
            # 「退费与转班制度」 is no 转班 side of 「转班申请一般要几天能办好」)
            own_around = around(sentence, hit, False)
            sided = not subject.sides or subject.holds_sides(own_around)
            for k in carried:
                about = chosen_of if kinds[k] == "choice" and chosen_of is not None else subject
                for found, share in ((best, about.share(where)), (whole, about.share(own_around, whole=True))):
                    value = 1.0 if kinds[k] in computed else (share if sided else 0.0) if kinds[k] in SIDED_KINDS \
                        else share
                    found[k] = max(found[k], value)
    return tuple(round(s, 4) for s in best), tuple(round(s, 4) for s in whole)


def surroundings(sentence: Sentence, hit: Hit, *, stem: bool = True) -> str:
    """Where a sentence stands, normalised: its document (the file's name: 口语课分级说明), the chunk's heading, the
    FAQ question it answers, its lead and its paragraph (「各级口语课的单报学费如下：」 says 学费 for 「进阶级（二级）：
    4200 元」)."""
    document = f"{PurePosixPath(hit.source).stem}\n" if stem else ""
    return normalize(f"{document}{hit.heading}\n{sentence.context}")
