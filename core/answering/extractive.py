"""Compose the offline answer: the reference sentences that answer the question asked, each with its [n].

Order of what is kept: the FAQ answer whose question settles the student's question (first, whole);
then the best-matching reference sentences in document order. Left out: sentences that hold no
content word of the question (「本制度适用于…」 under 「口语课一共有几级」), other FAQ answers when
one FAQ settles the question, and — when the question states its own figures (二级、4200、6 节课) —
every worked example: the formula is quoted with its citation and one fixed sentence says to apply
it to the student's own figures, so the example's result is never presented as the student's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.answerability.terms import credit
from core.checks.arithmetic import find_equations
from core.checks.figures import extract_figures
from core.checks.question_figures import find_mismatches, question_figures, shown
from core.language.text import asked as asked_attributes
from core.language.text import normalize
from core.settings import REFUSAL_TEXT
from core.values import Term

_SENTENCE_RE = re.compile(r"[^。！？；\n]+[。！？；]?")
_LABEL_RE = re.compile(r"^\s*[问答][:：]\s*")
_EXAMPLE_RE = re.compile(r"^\s*(?:示例|例如|比如|举例)")
# A rule written as a formula of words: 「可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费」.
_FORMULA_RE = re.compile(r"[\u4e00-\u9fff][ \t]*[×÷=][ \t]*[（(]?[ \t]*[\u4e00-\u9fff]")
# Scope and purpose sentences of a document (「本说明介绍…」「本制度适用于…」「为…特制定本制度」) say what a
# document is for, never what the student asked: they never stand as an answer.
_PURPOSE_RE = re.compile(r"^\s*(?:本(?:说明|制度|手册|办法|规定|须知|规则|细则)(?!适用)|为.{0,40}特制定)")
_SCOPE_RE = re.compile(r"^\s*本(?:说明|制度|手册|办法|规定|须知|规则|细则)适用")
# A scope sentence answers only a question about whom the rules cover.
_ASKS_SCOPE_RE = re.compile(r"适用|所有|全部|哪些学员|都一样|这套|按这")
# Units that answer 「什么时候/多久」 and 「多少钱」 (core/data/asked_attributes.txt) when a sentence states them.
_ATTRIBUTE_UNITS = {"时间": ("天", "工作日", "分钟", "小时", "周", "月", "年", "星期"), "金额": ("元", "块"), "人数": ("人",)}
# A FAQ answer's leading yes/no answers its own question; quoted under another question it would read as
# the answer to the student's (「不能，教材费不在退费范围内」 under 「退费能退多少」), so it goes.
_YES_NO_RE = re.compile(r"^(?:可以|不可以|不能|能|不会|会|不用|要|不要|需要|不需要|一样|不一样|不包含|包含|不收费|收费|是的|是|不是)[，,]\s*")
# The question's parts: 「口语课一共有几级？每级多少课时？」 is answered part by part.
_PART_RE = re.compile(r"[^？?；;！!。\n]+")
# A question asking how an amount is worked out is answered by the rule's formula first.
_ASKS_HOW_RE = re.compile(r"怎么算|怎样算|如何算|怎么计算|如何计算|计算方法|计算公式|公式|算法|咋算")
NEAREST_TEXT = "资料里没有直接回答这个问题，最接近的规定是："
MAX_SENTENCES = 4
# Keep sentences scoring at least this share of the best one (bench/offline_answer_quality.py).
RELATIVE_CUTOFF = 0.3
# An FAQ question settles the student's question when it holds at least this share of the
# question's weighted terms (or, without terms, of its character pairs) and no other FAQ does as well.
FAQ_SETTLES = 0.6
APPLY_TEXT = "你的情况要用你自己的数字（{figures}）代入上面的公式计算，资料里示例的结果不是你的结果"


@dataclass(frozen=True)
class _Sentence:
    number: int
    position: int
    text: str
    faq: str  # the FAQ question this sentence answers, or ""
    example: str  # the whole worked example this sentence belongs to (「示例：…」 or arithmetic), or ""
    formula: bool  # states a rule as a formula of words
    lead: str = ""  # the sentence ending in 「：」 that introduces this one's paragraph (「单报学费如下：」), or ""
    opens: bool = False  # the first sentence after its lead: the two are shown together, as the document has them


def _bigrams(text: str) -> set[str]:
    clean = normalize(text)
    return {clean[i:i + 2] for i in range(len(clean) - 1)}


def _split(number: int, text: str) -> list[_Sentence]:
    """The reference's sentences. A FAQ answer remembers its question (students ask in its words);
    the question line itself is never shown. Every sentence of a 「示例：」 paragraph remembers the
    whole paragraph, so it can be judged as one case and shown with its label. A line ending in 「：」 is never
    shown alone: it is the `lead` of the next paragraph's sentences (「小E 不会自行编造答案，而是统一回复：」 before the
    sentence it quotes), matched with them, and shown with the first of them, which follows it in the document."""
    out: list[_Sentence] = []
    question, lead, led = "", "", False
    for line in text.splitlines():
        if not line.strip():
            if led:  # the paragraph a lead introduced has ended
                lead, led = "", False
            continue
        label = _LABEL_RE.match(line)
        if label and line.lstrip().startswith("问"):
            question = line[label.end():]
            continue
        if not (label and line.lstrip().startswith("答")):
            question = ""
        body = _LABEL_RE.sub("", line)
        paragraph = body.strip() if _EXAMPLE_RE.match(body) else ""
        for raw in _SENTENCE_RE.findall(body):
            piece = raw.strip()
            if piece.endswith(("：", ":")) and not label and len(normalize(piece)) >= 4 and piece == body.strip():
                lead, led = piece, False  # 「…统一回复：」「单报学费如下：」「…公式为：」 introduces what follows
                continue
            if len(normalize(piece)) < 4 or piece.endswith(("？", "?", "：", ":")) or _PURPOSE_RE.match(piece):
                continue
            worked = any(eq.has_calculation for eq in find_equations(piece))
            out.append(_Sentence(number, len(out), piece, question, paragraph or (piece if worked else ""),
                                 bool(_FORMULA_RE.search(piece)) and not worked, lead, bool(lead) and not led))
            led = led or bool(lead)
    return out


def _rarity(count: float, pool: int) -> float:
    return math.log(1 + pool / count)


def _content_words(keywords: Sequence[Term]) -> list[Term]:
    return [k for k in keywords if k.weight > 0]


def touches(text: str, words: Sequence[Term], figures: Sequence[str] = (), *, share: float = 1 / 3) -> bool:
    """Whether `text` holds a content word of the question: `share` of a term (any glossary form,
    `core.answerability.terms.credit`; 1.0 = a whole form) or one of the question's figures as written (一级, 4200)."""
    clean = normalize(text)
    return any(credit(k, [clean], graded=share < 1) >= share for k in words) or any(normalize(f) in clean for f in figures if f)


def _labelled(text: str, example: str) -> str:
    """A worked example's sentences as shown: under the example's own label (「示例：」) when it has one."""
    label = _EXAMPLE_RE.match(example)
    if label and not _EXAMPLE_RE.match(text):
        return f"{label.group().strip()}：{text}"
    return text


def _other_case(example: str, references: Sequence[str], question: str) -> bool:
    """Whether a worked example, read as this student's answer, would compute another student's case."""
    text = _EXAMPLE_RE.sub("", example).lstrip("：: ")
    return bool(find_mismatches(text, [(0, len(text))], references, question))


def _repeats(text: str, seen: set[str]) -> bool:
    """Whether a chosen sentence already says this: it contains it, or holds 80% of its character pairs."""
    clean = normalize(text)
    grams = _bigrams(text)
    return any(clean in other
               or (grams and len(grams & {other[i:i + 2] for i in range(len(other) - 1)}) >= 0.8 * len(grams))
               for other in seen)


def _settling_faq(question: str, pool: Sequence[_Sentence], keywords: Sequence[Term]) -> str:
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


def compose_answer(question: str, references: tuple[tuple[int, str], ...],
                   keywords: Sequence[Term] = (), *, cutoff: float = RELATIVE_CUTOFF) -> str:
    """Pick up to MAX_SENTENCES reference sentences that best match the question.

    A sentence scores the question bigrams it holds and, with `keywords` (the decision's terms),
    each keyword's weight × specificity times how much of it the sentence holds (`core.answerability.terms.credit`, graded).
    Both are weighted by how few of the offered sentences hold them; long sentences are damped.
    Sentences under `cutoff` times the best are left out, and so is filler (see the module doc).
    """
    pool = [s for number, text in references for s in _split(number, text)]
    asked = question_figures(question)
    if asked:
        texts = [text for _, text in references]
        pool = [s for s in pool if not (s.example and _other_case(s.example, texts, question))]
    settling = _settling_faq(question, pool, keywords)
    if settling:
        pool = [s for s in pool if not s.faq or s.faq == settling]
    pool = [_without_yes_no(s) if s.faq and s.faq != settling else s for s in pool]
    if not _ASKS_SCOPE_RE.search(question):
        pool = [s for s in pool if not _SCOPE_RE.match(s.text)]
    wanted = _bigrams(question)
    matched = [(s, _bigrams(s.faq + s.lead + s.text), normalize(s.faq + s.lead + s.text)) for s in pool]
    held = [[credit(k, [clean], graded=True) for k in keywords] for *_, clean in matched]
    df: dict[str, int] = {}
    for _, grams, _ in matched:
        for gram in grams & wanted:
            df[gram] = df.get(gram, 0) + 1
    kdf = [sum(h[i] for h in held) for i in range(len(keywords))]
    words = _content_words(keywords)
    own = [f.figure.text for f in asked]
    scored: list[tuple[float, _Sentence]] = []
    for (sentence, grams, _), found in zip(matched, held):
        weight = sum(_rarity(df[g], len(pool)) for g in grams & wanted)
        weight += sum(k.weight * k.specificity * c * _rarity(kdf[i], len(pool))
                      for i, (k, c) in enumerate(zip(keywords, found)) if c)
        if weight:
            scored.append((weight / (1 + len(sentence.text) / 80), sentence))
    if not scored:
        return REFUSAL_TEXT
    # Filler goes: a sentence of an answer holds a whole form of a content word of the question, or one
    # of its figures as written (the settling FAQ's answer stands whole: students ask in its words).
    kinds = asked_attributes(question)
    related = [(score, s) for score, s in scored
               if (settling and s.faq == settling) or not words or touches(_shown(s), words, own, share=1.0)
               or (touches(_shown(s), words, own) and _states_asked(s.text, kinds))]
    if not related:
        return _nearest(scored)
    scored = related
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
    applies = bool(asked) and formula is not None and not any(s.example for s in shown_order)
    how = _ASKS_HOW_RE.search(question) and formula is None
    if how:
        formula = next((s for s in pool if s.formula), None)
    if applies or (how and formula is not None):  # the rule first (then how it applies to the student's figures)
        shown_order = [formula] + [s for s in shown_order if s is not formula][:MAX_SENTENCES - 1]
    text = _render(shown_order)
    if applies:
        figures = "、".join(dict.fromkeys(shown(k) for k in asked))
        text += APPLY_TEXT.format(figures=figures) + f"[{formula.number}]。"
    return text


def _shown(sentence: _Sentence) -> str:
    """The words a sentence is shown with: its lead too when it opens the lead's paragraph (core docs above)."""
    return sentence.lead + sentence.text if sentence.opens else sentence.text


def _without_yes_no(sentence: _Sentence) -> _Sentence:
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


def _states_asked(text: str, kinds: frozenset[str]) -> bool:
    """Whether a sentence states what the question asks for: a time or an amount (「7 个工作日」「100 元」)."""
    if "金额" in kinds and re.search(r"免费|全额|不收", text):
        return True
    units = tuple(u for kind in kinds for u in _ATTRIBUTE_UNITS.get(kind, ()))
    return bool(units) and any(f.text.rstrip().endswith(units) or ":" in f.text for f in extract_figures(text))


def _nearest(scored: Sequence[tuple[float, _Sentence]]) -> str:
    """When no sentence holds a whole content word of the question: the best-matching one, said as the
    nearest point the documents make (not as the answer)."""
    sentence = max(scored, key=lambda item: (item[0], -item[1].number, -item[1].position))[1]
    return NEAREST_TEXT + _render([sentence])


def _render(sentences: Sequence[_Sentence]) -> str:
    """Each sentence with its [n]; the chosen sentences of one worked example are shown together,
    joined by 「，」 under one label, where the first of them would stand; the first sentence after a lead with
    its lead."""
    out: list[str] = []
    done: set[tuple[int, str]] = set()
    for sentence in sentences:
        if not sentence.example:  # the document's own words, in its own order
            out.append(f"{_shown(sentence).rstrip('。！；;，,')}[{sentence.number}]。")
            continue
        group = (sentence.number, sentence.example)
        if group in done:
            continue
        done.add(group)
        parts = sorted((s for s in sentences if (s.number, s.example) == group), key=lambda s: s.position)
        joined = "，".join(s.text.rstrip("。！；;，,") for s in parts)
        out.append(f"{_labelled(joined, sentence.example)}[{sentence.number}]。")
    return "".join(out)
