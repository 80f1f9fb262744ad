"""Choose what the offline answer says: the reference sentences that answer the question asked, in the order shown.

Order of what is kept: the FAQ answer whose question settles the student's question (first, whole); then the
best-matching reference sentences in document order. When the question asks an amount, a duration, a year …
(core.case.asked), only sentences carrying it are chosen (「二级学费多少」 gets the tuition lines, not the 保留学籍
sentence that names 二级 too). Left out: sentences that hold no content word of the question (「本制度适用于…」 under
「口语课一共有几级」), other FAQ answers when one FAQ settles the question, and — when the question states its own
figures (二级、4200、6 节课) — every worked example of another student's case: the formula comes first, and the
student's own figures are named so the phrasing can say to apply it to them (core.answering.extractive).

Nothing here writes a word: `choose_sentences` returns a `Choice`, the phrasing turns it into text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.answerability.credit import credit
from core.answerability.term_rules import scope_held
from core.case.asked import read_asked, states
from core.checks.arithmetic import find_equations
from core.checks.question_figures import find_mismatches, question_figures, shown
from core.corpus.sentences import EXAMPLE_RE, reference_sentences
from core.language.text import normalize
from core.values import Term

# A rule written as a formula of words: 「可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费」.
_FORMULA_RE = re.compile(r"[\u4e00-\u9fff][ \t]*[×÷=][ \t]*[（(]?[ \t]*[\u4e00-\u9fff]")
_SCOPE_RE = re.compile(r"^\s*本(?:说明|制度|手册|办法|规定|须知|规则|细则)适用")
# A scope sentence answers only a question about whom the rules cover.
_ASKS_SCOPE_RE = re.compile(r"适用|所有|全部|哪些学员|都一样|这套|按这")
# A FAQ answer's leading yes/no answers its own question; quoted under another question it would read as
# the answer to the student's (「不能，教材费不在退费范围内」 under 「退费能退多少」), so it goes.
_YES_NO_RE = re.compile(r"^(?:可以|不可以|不能|能|不会|会|不用|要|不要|需要|不需要|一样|不一样|不包含|包含|不收费|收费|是的|是|不是)[，,]\s*")
# The question's parts: 「口语课一共有几级？每级多少课时？」 is answered part by part.
_PART_RE = re.compile(r"[^？?；;！!。\n]+")
# A question asking how an amount is worked out is answered by the rule's formula first.
_ASKS_HOW_RE = re.compile(r"怎么算|怎样算|如何算|怎么计算|如何计算|计算方法|计算公式|公式|算法|咋算")
MAX_SENTENCES = 4
# Keep sentences scoring at least this share of the best one (bench/offline_answer_quality.py).
RELATIVE_CUTOFF = 0.3
# An FAQ question settles the student's question when it holds at least this share of the
# question's weighted terms (or, without terms, of its character pairs) and no other FAQ does as well.
FAQ_SETTLES = 0.6


@dataclass(frozen=True)
class Chosen:
    """One reference sentence as the answer may show it."""

    number: int  # the reference's [n]
    position: int
    text: str
    faq: str  # the FAQ question this sentence answers, or ""
    example: str  # the whole worked example this sentence belongs to (「示例：…」 or arithmetic), or ""
    formula: bool  # states a rule as a formula of words
    lead: str = ""  # the sentence ending in 「：」 that introduces this one's paragraph (「单报学费如下：」), or ""
    opens: bool = False  # the first sentence after its lead: the two are shown together, as the document has them

    @property
    def shown(self) -> str:
        """The words it is shown with: its lead too when it opens the lead's paragraph."""
        return self.lead + self.text if self.opens else self.text


@dataclass(frozen=True)
class Choice:
    """What the offline answer says, before it is worded: the sentences in the order shown; `nearest` when none
    holds a whole content word of the question (the one shown is the nearest point the documents make, not the
    answer); `apply_to` the student's own figures the formula (the first sentence) is to be applied to."""

    sentences: tuple[Chosen, ...]
    nearest: bool = False
    apply_to: tuple[str, ...] = ()


def _bigrams(text: str) -> set[str]:
    clean = normalize(text)
    return {clean[i:i + 2] for i in range(len(clean) - 1)}


def split_reference(number: int, text: str) -> list[Chosen]:
    """The reference's sentences (core.corpus.sentences), each marked as part of a worked example (a 「示例：」
    paragraph, or a sentence doing arithmetic) or as a formula of words."""
    out = []
    for s in reference_sentences(text):
        worked = any(eq.has_calculation for eq in find_equations(s.text))
        out.append(Chosen(number, s.position, s.text, s.faq, s.example or (s.text if worked else ""),
                          bool(_FORMULA_RE.search(s.text)) and not worked, s.lead, s.opens))
    return out


def _rarity(count: float, pool: int) -> float:
    return math.log(1 + pool / count)


def _content_words(keywords: Sequence[Term]) -> list[Term]:
    return [k for k in keywords if k.weight > 0]


def touches(text: str, words: Sequence[Term], figures: Sequence[str] = (), *, share: float = 1 / 3) -> bool:
    """Whether `text` holds a content word of the question: `share` of a term (any glossary form,
    `core.answerability.credit.credit`; 1.0 = a whole form), a day it names under the text's 「每天」
    (core.answerability.term_rules.scope_held), or one of the question's figures as written (一级, 4200)."""
    clean = normalize(text)
    return (any(credit(k, [clean], graded=share < 1) >= share for k in words) or bool(scope_held(words, clean))
            or any(normalize(f) in clean for f in figures if f))


def _other_case(example: str, references: Sequence[str], question: str) -> bool:
    """Whether a worked example, read as this student's answer, would compute another student's case."""
    text = EXAMPLE_RE.sub("", example).lstrip("：: ")
    return bool(find_mismatches(text, [(0, len(text))], references, question))


def _repeats(text: str, seen: set[str]) -> bool:
    """Whether a chosen sentence already says this: it contains it, or holds 80% of its character pairs."""
    clean = normalize(text)
    grams = _bigrams(text)
    return any(clean in other
               or (grams and len(grams & {other[i:i + 2] for i in range(len(other) - 1)}) >= 0.8 * len(grams))
               for other in seen)


def _settling_faq(question: str, pool: Sequence[Chosen], keywords: Sequence[Term]) -> str:
    """The one FAQ question that covers the student's question best, if it covers enough of it."""
    words = _content_words(keywords)
    total = sum(k.weight * k.specificity for k in words)
    wanted = _bigrams(question)
    coverage: dict[str, float] = {}
    for faq in dict.fromkeys(s.faq for s in pool if s.faq):
        pairs = len(wanted & _bigrams(faq)) / len(wanted) if wanted else 0.0
        # The student's own wording must show too (a third of its character pairs): a glossary
        # form alone (一节课 → 课时) would let 「超过 8 课时还能退费吗」 settle 「一节课上多久」.
        if total and pairs >= FAQ_SETTLES / 2:
            clean = normalize(faq)
            coverage[faq] = sum(k.weight * k.specificity * credit(k, [clean], graded=True) for k in words) / total
        elif not total:
            coverage[faq] = pairs
    ranked = sorted(coverage.values(), reverse=True)
    if not ranked or ranked[0] < FAQ_SETTLES or (len(ranked) > 1 and ranked[1] >= ranked[0]):
        return ""
    return max(coverage, key=coverage.__getitem__)


def _held(keywords: Sequence[Term], clean: str) -> list[float]:
    """How much of each keyword one sentence holds (graded credit), a day the question names held by the sentence's
    「每天」 as the gate counts it (core.answerability.term_rules.day_scope: 「人工服务时间为每天 9:00–21:00」 holds
    周末 of 「周末有人工吗」)."""
    held = scope_held(keywords, clean)
    return [1.0 if k in held else credit(k, [clean], graded=True) for k in keywords]


def _scored(question: str, pool: Sequence[Chosen], keywords: Sequence[Term]) -> list[tuple[float, Chosen]]:
    """Each sentence's score: the question bigrams it holds and, with `keywords` (the decision's terms), each
    keyword's weight × specificity times how much of it the sentence holds (graded credit); both weighted by how
    few of the offered sentences hold them; long sentences damped. Sentences scoring nothing are left out."""
    wanted = _bigrams(question)
    matched = [(s, _bigrams(s.faq + s.lead + s.text), normalize(s.faq + s.lead + s.text)) for s in pool]
    held = [_held(keywords, clean) for *_, clean in matched]
    df: dict[str, int] = {}
    for _, grams, _ in matched:
        for gram in grams & wanted:
            df[gram] = df.get(gram, 0) + 1
    kdf = [sum(h[i] for h in held) for i in range(len(keywords))]
    scored: list[tuple[float, Chosen]] = []
    for (sentence, grams, _), found in zip(matched, held):
        weight = sum(_rarity(df[g], len(pool)) for g in grams & wanted)
        weight += sum(k.weight * k.specificity * c * _rarity(kdf[i], len(pool))
                      for i, (k, c) in enumerate(zip(keywords, found)) if c)
        if weight:
            scored.append((weight / (1 + len(sentence.text) / 80), sentence))
    return scored


def choose_sentences(question: str, references: tuple[tuple[int, str], ...], keywords: Sequence[Term] = (), *,
                     cutoff: float = RELATIVE_CUTOFF, asked: Sequence[str] | None = None) -> Choice | None:
    """Up to MAX_SENTENCES reference sentences that best answer the question (see the module doc); None when no
    sentence matches it at all. Sentences under `cutoff` times the best are left out, and so is filler. `asked`:
    the kinds the gate required an answer to carry (core.values.Decision.asked); None reads them from the question."""
    pool = [s for number, text in references for s in split_reference(number, text)]
    figures = question_figures(question)
    if figures:
        texts = [text for _, text in references]
        pool = [s for s in pool if not (s.example and _other_case(s.example, texts, question))]
    settling = _settling_faq(question, pool, keywords)
    if settling:
        pool = [s for s in pool if not s.faq or s.faq == settling]
    pool = [_without_yes_no(s) if s.faq and s.faq != settling else s for s in pool]
    if not _ASKS_SCOPE_RE.search(question):
        pool = [s for s in pool if not _SCOPE_RE.match(s.text)]
    scored = _scored(question, pool, keywords)
    if not scored:
        return None
    words = _content_words(keywords)
    own = [f.figure.text for f in figures]
    found = read_asked(question)
    kinds = found.checkable if asked is None else tuple(k for k in found.checkable if k in asked)

    def carries(text: str) -> bool:
        return any(states(text, kind, found.word(kind)) for kind in kinds)

    # Filler goes: a sentence of an answer holds a whole form of a content word of the question, or one of its
    # figures as written, or part of one while it (or the FAQ question it answers) states what is asked (the
    # settling FAQ's answer stands whole: students ask in its words).
    related = [(score, s) for score, s in scored
               if (settling and s.faq == settling) or not words or touches(s.shown, words, own, share=1.0)
               or (any(touches(t, words, own) for t in (s.shown, s.faq) if t) and carries(s.text))]
    if not related:
        best = max(scored, key=lambda item: (item[0], -item[1].number, -item[1].position))[1]
        return Choice((best,), nearest=True)
    carrying = [(score, s) for score, s in related if carries(s.text)]
    # What is asked (an amount, a duration …) is answered by the sentences that state it; a question asking how as
    # well (「退多少钱怎么算」) is answered by the rule that works it out, which states no amount.
    if carrying and "way" not in found:
        related = carrying
    return _order(question, pool, related, settling, words, figures, cutoff)


def _order(question: str, pool: Sequence[Chosen], scored: Sequence[tuple[float, Chosen]], settling: str,
           words: Sequence[Term], figures: Sequence, cutoff: float) -> Choice:
    """The sentences chosen from `scored`, in the order shown (the module doc), the formula first when it applies."""
    best = max(score for score, _ in scored)
    first = [s for s in pool if settling and s.faq == settling]
    chosen, seen = list(first), {normalize(s.text) for s in first}
    ranked = sorted(scored, key=lambda item: (-item[0], item[1].number, item[1].position))
    # A question of several parts (「一共有几级？每级多少课时？」): the best sentence for each part first.
    for part_words in _parts(question, words):
        pick = next((sentence for _, sentence in ranked if touches(sentence.text, part_words, share=1.0)), None)
        if pick is not None and pick not in chosen and not _repeats(pick.text, seen):
            chosen.append(pick)
            seen.add(normalize(pick.text))
    for score, sentence in ranked:
        if len(chosen) >= MAX_SENTENCES:
            break
        if score >= cutoff * best and sentence not in chosen and not _repeats(sentence.text, seen):
            chosen.append(sentence)
            seen.add(normalize(sentence.text))
    # The settling FAQ answer first, then in reference order (references come best-ranked first).
    shown_order = first + sorted(chosen[len(first):], key=lambda s: (s.number, s.position))
    formula = next((s for s in shown_order if s.formula), None) or \
        next((s for s in pool if s.formula and touches(s.text, words)), None)
    applies = bool(figures) and formula is not None and not any(s.example for s in shown_order)
    how = _ASKS_HOW_RE.search(question) and formula is None
    if how:
        formula = next((s for s in pool if s.formula), None)
    if formula is not None and (applies or how):  # the rule first (then how it applies to the student's figures)
        shown_order = [formula] + [s for s in shown_order if s is not formula][:MAX_SENTENCES - 1]
    apply_to = tuple(dict.fromkeys(shown(k) for k in figures)) if applies else ()
    return Choice(tuple(shown_order), apply_to=apply_to)


def _without_yes_no(sentence: Chosen) -> Chosen:
    """A FAQ answer quoted under another question, without the yes/no that answered its own question."""
    rest = _YES_NO_RE.sub("", sentence.text, count=1)
    return replace(sentence, text=rest) if rest != sentence.text and len(normalize(rest)) >= 4 else sentence


def _parts(question: str, words: Sequence[Term]) -> list[list[Term]]:
    """Per part of a question of two or more parts, the content words written in that part."""
    pieces = [normalize(p) for p in _PART_RE.findall(question)]
    pieces = [p for p in pieces if len(p) >= 3]
    if len(pieces) < 2:
        return []
    out = []
    for piece in pieces:
        mine = [k for k in words if normalize(k.typed or k.text) in piece]
        if mine:
            out.append(mine)
    return out if len(out) >= 2 else []
