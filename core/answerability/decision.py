"""Decide whether the corpus answers a question, from more than the top score, and say why.

Four signals, each shown to the consultant as a row with what it compared:
  1. 排序分 — some kept candidate's ranking score reaches the threshold;
  2. 关键词覆盖 — the share of the question's content words found in the passing chunks, each
     word weighted by its background weight (the word or a glossary form must occur as is);
  3. 资料外的词 — the heaviest content word that occurs nowhere in the corpus (nor in the
     passing chunks);
  4. 问的内容 — when the question asks an amount, a duration, a year … (core.case.asked), a passing
     sentence states it about the question's subject (the rule asked_attribute, core.answerability.asked;
     no knob: refused with the code not_asked_attribute and 「资料里没有写“成立年份”」).
Glossary synonyms count as their canonical terms. The measuring (`measure`) is knob-free and
runs once per set of passing chunks; `judge` compares the measures with the knobs. The gate
(core.answerability.gate) and the evaluation (core.evaluation.metrics) both call `judge`, so they cannot disagree.
The reranker (`make_reranker`) gives each candidate its ranking score, the one value the gate,
the chart and the table use.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import cast

from core.answerability.asked import REASON_CODE, AskedCheck
from core.answerability.glossary import Glossary
from core.answerability.rules import ALL_RULES, RuleSet
from core.answerability.terms import TermAnalyzer, credit
from core.case.asked import AskedKinds, asked_kind, read_asked
from core.knobs import LABELS, Knobs
from core.language.text import normalize
from core.retrieval.index import SearchIndex
from core.values import Decision, Hit, Measures, Signal, Term, apart, below_threshold

MAX_LISTED_TERMS = 4








def _quote(words: Sequence[str]) -> str:
    shown = "、".join(words[:MAX_LISTED_TERMS])
    return f"“{shown}”" + ("等" if len(words) > MAX_LISTED_TERMS else "")


def _hit_text(hit: Hit) -> str:
    """What coverage is checked against: a chunk's heading and text, normalised."""
    return normalize(f"{hit.heading}\n{hit.text}")


_SENTENCE_END = re.compile(r"[。！？!?；;\n]+")


def hit_sentences(hit: Hit) -> tuple[str, ...]:
    """A chunk's heading and sentences, each normalised on its own (normalising drops the punctuation that parts
    them): what a rule counting within one sentence reads."""
    return tuple(s for s in (normalize(part) for part in _SENTENCE_END.split(f"{hit.heading}\n{hit.text}")) if s)


def _weighted_share(credits: Mapping[Term, float]) -> float:
    """Σ weight × credit ÷ Σ weight (0 without weight)."""
    total = sum(t.weight for t in credits)
    return sum(t.weight * c for t, c in credits.items()) / total if total > 0 else 0.0


Credit = Callable[[Sequence[Term], Sequence[str], Mapping[Term, float]], Mapping[Term, float]]


def measure(terms: Sequence[Term], passing: Sequence[Hit], asked: AskedCheck | None = None,
            texts: Sequence[str] | None = None, credits_of: Sequence[Credit] = (),
            sentences: Sequence[str] | None = None) -> Measures:
    """Coverage, absent words and the words that carry or miss, for these passing chunks (`texts`: their
    `_hit_text`, when the caller has them already); with `asked` (the candidates measured for what the question
    asks, the first `len(passing)` of them these chunks), whether a passing sentence carries it; `credits_of`: the
    credit stage's rules (core.answerability.rules), each adding credit one of `sentences` gives (the passing chunks'
    sentences, normalised one by one: `hit_sentences`)."""
    texts = [_hit_text(h) for h in passing] if texts is None else texts
    credits = {t: credit(t, texts) for t in terms}
    if credits_of:
        found = [s for h in passing for s in hit_sentences(h)] if sentences is None else sentences
        for rule in credits_of:
            credits.update(rule(terms, found, credits))
    unknown = sorted((t for t in terms if not t.known and credits[t] == 0.0), key=lambda t: -t.weight)
    by_weight = sorted(terms, key=lambda t: -t.weight)
    uncovered = tuple(t for t in by_weight if credits[t] < 1.0)
    missing = asked.missing(len(passing)) if asked is not None else ""
    return Measures(passing=len(passing), coverage=round(_weighted_share(credits), 4),
                    heaviest_unknown=unknown[0].weight if unknown else 0.0, unknown=tuple(unknown),
                    uncovered=uncovered,
                    carrying=tuple(t.text for t in by_weight if credits[t] > 0.0),
                    asked=asked.kinds if asked is not None else (),
                    asked_missing=missing, asked_reason=asked.reason(missing) if asked is not None and missing else "")


def prefix_measures(terms: Sequence[Term], ranked: Sequence[Hit], asked: AskedCheck | None = None,
                    also: Sequence[str] = (), rules: RuleSet | None = None) -> tuple[Measures, ...]:
    """`measure` for the first 0, 1, …, len(ranked) candidates: every passing set the knobs can pick. Each chunk is
    normalised once, not once per prefix (it was about a tenth of an ask's time in bench.load). `also`: normalised
    document sentences the answer will cite whatever passes (the cover rules), counted with every non-empty prefix;
    `rules`: the rules switched on, whose credit stage adds what one sentence covers (None: none)."""
    texts = [_hit_text(h) for h in ranked]
    extra = list(also)
    credits_of = tuple(cast(Credit, rule.function) for rule in rules.at("credit")) if rules is not None else ()
    each = [hit_sentences(h) for h in ranked] if credits_of else [() for _ in ranked]
    return tuple(measure(terms, ranked[:j], asked, texts[:j] + (extra if j else []), credits_of,
                         [s for found in each[:j] for s in found] + (extra if j else []))
                 for j in range(len(ranked) + 1))


def asked_check(rules: RuleSet, question: str, terms: Sequence[Term], ranked: Sequence[Hit],
                kinds: AskedKinds, *, own_case: bool = False,
                every_level: tuple[tuple[str, ...], str] = ((), "")) -> AskedCheck | None:
    """The decide stage of the rules switched on (core.answerability.rules): what the question asks (read with
    `kinds`) measured on the ranked candidates; None when the rule is off or nothing checkable is asked.
    `own_case`: the question asks a computation of the student's own case (core.case.intent.computation). The
    `bind` stage's rules switched on say which groups of the subject's words a qualifying sentence must hold too.
    `every_level` (SchoolFacts.every_level): the sentences stating one value for every level, and where the levels
    are named."""
    binders = tuple(rule.function for rule in rules.at("bind"))
    for rule in rules.at("decide"):
        # A decide rule returns an AskedCheck or None (the registry types functions of every stage alike).
        return cast("AskedCheck | None", rule.function(question, terms, read_asked(question, kinds), ranked,
                                                       own_case=own_case, binders=binders,
                                                       every_level=every_level))
    return None


def asked_retrieve(rules: RuleSet, question: str, hits: Sequence[Hit], search: Callable[[str], Sequence[Hit]],
                   kinds: AskedKinds, every_level: tuple[tuple[str, ...], str]) -> tuple[Hit, ...]:
    """The retrieve stage of the rules switched on (core.answerability.rules): the retrieved hits, searched again
    where what the question asks calls for it; as they were when no rule of the stage is on."""
    found = tuple(hits)
    stage = rules.at("retrieve")
    if stage:
        asked = read_asked(question, kinds)
        for rule in stage:
            found = cast("tuple[Hit, ...]", rule.function(question, found, search, asked, every_level))
    return found


def asked_rank(rules: RuleSet, ranked: Sequence[Hit], check: AskedCheck | None) -> tuple[tuple[Hit, ...],
                                                                                      AskedCheck | None]:
    """The rank stage of the rules switched on (core.answerability.rules): the candidates reordered by what the
    question asks, with the check's measures in the new order; as they were when the rule is off or nothing is asked."""
    found: tuple[tuple[Hit, ...], AskedCheck | None] = (tuple(ranked), check)
    for rule in rules.at("rank"):
        if found[1] is not None:
            found = cast("tuple[tuple[Hit, ...], AskedCheck]", rule.function(found[0], found[1]))
    return found


def judge(terms: Sequence[Term], context: Sequence[str], m: Measures, kept: Sequence[Hit], knobs: Knobs) -> Decision:
    """Compare the measures of the passing chunks (`m`, the first `m.passing` of `kept`) with the knobs."""
    best = max((h.value for h in kept), default=0.0)
    threshold_ok = m.passing > 0
    coverage_ok = bool(terms) and sum(t.weight for t in terms) > 0 and m.coverage >= knobs.min_coverage
    unknown_ok = m.heaviest_unknown <= knobs.max_unknown_weight
    raw = sorted((h.score for h in kept), reverse=True)
    lead = raw[0] - raw[1] if len(raw) > 1 else (raw[0] if raw else 0.0)

    def sign(ok: bool) -> str:
        return "✓" if ok else "✗"

    asked_ok = not m.asked_missing
    asked_labels = "、".join(asked_kind(name).label_zh for name in m.asked)
    signals = (
        Signal("排序分", round(best, 4), threshold_ok, f"{m.passing} 个片段达到阈值",
               f"最高 {best:.3f} {'≥' if threshold_ok else '<'} {LABELS['threshold']} {knobs.threshold:.2f} "
               f"{sign(threshold_ok)}"),
        Signal("关键词覆盖", m.coverage, coverage_ok, "按命中片段计",
               f"{apart(m.coverage, knobs.min_coverage, percent=True)} {'≥' if coverage_ok else '<'} "
               f"{knobs.min_coverage:.0%} {sign(coverage_ok)}"),
        Signal("资料外的词", round(m.heaviest_unknown, 4), unknown_ok,
               _quote([t.text for t in m.unknown]) if m.unknown else "无",
               f"{apart(m.heaviest_unknown, knobs.max_unknown_weight)} {'≤' if unknown_ok else '>'} "
               f"{knobs.max_unknown_weight:.2f} "
               f"{sign(unknown_ok)}"),
        *((Signal("问的内容", 1.0 if asked_ok else 0.0, asked_ok, f"问的是{asked_labels}",
                  (f"命中片段里有一句写了{asked_labels} ✓" if asked_ok else f"{m.asked_reason} ✗")),)
          if m.asked else ()),
        Signal("领先第二名", round(lead, 4), True, "只计入综合分，不单独决定拒答", "—"),
    )
    answerable = threshold_ok and coverage_ok and unknown_ok and asked_ok
    # The summary score ranks questions (refusal ROC AUC): the top retrieval score plus its lead
    # over the runner-up, damped by missing coverage and by words the corpus never uses.
    evidence = min(1.0, max(0.0, (raw[0] if raw else 0.0) + lead))
    score = evidence * m.coverage ** 0.5 * (1.0 - m.heaviest_unknown / 2)
    reason = _reason(answerable, signals, best, knobs, m, terms)
    only_asked = not asked_ok and threshold_ok and coverage_ok and unknown_ok
    if only_asked:
        reason = m.asked_reason
    elif not asked_ok and not answerable:
        reason += f"；{m.asked_reason}"
    if context:
        reason += f"；{_quote(list(context))}只出现在说明自身情况的分句里，没有计入"
    for term in (t for t in terms if t.typed):  # read by sound (core.answerability.message_rules.homophones)
        reason += f"；“{term.typed}”按读音当作“{term.text}”"
    return Decision(answerable=answerable, score=round(max(0.0, min(1.0, score)), 4), reason=reason,
                    signals=signals, uncovered_terms=tuple(t.text for t in m.uncovered),
                    carrying_terms=m.carrying, unknown_terms=tuple(t.text for t in m.unknown),
                    coverage=m.coverage, terms=tuple(terms), context_terms=tuple(context),
                    reason_code=REASON_CODE if only_asked else "", asked=m.asked)




def _reason(answerable: bool, signals: tuple[Signal, ...], best: float, knobs: Knobs, m: Measures,
            terms: Sequence[Term]) -> str:
    uncovered = [t.text for t in m.uncovered]
    if answerable:
        tail = f"，未覆盖：{_quote(uncovered)}" if uncovered else ""
        verb = "在命中片段中出现" if m.uncovered else "都在命中片段中出现"
        return f"问题的关键词{_quote(list(m.carrying))}{verb}（覆盖 {m.coverage:.0%}{tail}）"
    if not terms:
        return "问题里没有可以核对的关键词（只有“怎么、可以、吗”这类词），请换个说法或转人工"
    parts: list[str] = []
    threshold_ok, coverage_ok, unknown_ok = (s.passed for s in signals[:3])
    heavy_unknown = [t.text for t in m.unknown if t.weight > knobs.max_unknown_weight]
    if not unknown_ok:
        parts.append(f"问题里的{_quote(heavy_unknown)}在资料中没有出现")
    if not threshold_ok:
        parts.append(below_threshold(best, knobs.threshold))
    elif not coverage_ok:
        missing = [t.text for t in m.uncovered if t.known] or uncovered
        parts.append(f"命中片段只覆盖了问题关键词的 {apart(m.coverage, knobs.min_coverage, percent=True)}"
                      f"（低于 {knobs.min_coverage:.0%}）" + (f"，没覆盖{_quote(missing)}" if missing else ""))
    return "；".join(parts)


def analyzer_for(index: SearchIndex, cache_dir: Path | None = None,
                 glossary: Glossary | None = None, rules: RuleSet | None = None) -> TermAnalyzer:
    """The analyzer of an index and glossary, built once each (the cache holds up to 8).

    The glossary's phrases go into the tokenizer's dictionary, so 「上网课」 is cut 上/网课 when
    网课 is a synonym, not 上网/课. With `cache_dir` (the index folder) the corpus vocabulary is
    kept on disk by fingerprint, so a restart does not cut the whole corpus with jieba again;
    after that a new glossary costs only a fresh tokenizer (about 15 ms). `rules` (default: all on)
    are the ones settings switch on (`Settings.rules`, from XIAOE_ANSWERABILITY_RULES).
    """
    cache = cache_dir / f"vocabulary-{index.fingerprint}.json" if cache_dir and index.fingerprint else None
    return _analyzer(index, cache, glossary.phrases if glossary is not None else frozenset(),
                     rules if rules is not None else ALL_RULES)


# Analyzers per index, held only while the index lives: a rebuilt index's analyzers go with it
# (an lru_cache keyed on the index would keep up to 8 old indexes alive).
_analyzers: weakref.WeakKeyDictionary[SearchIndex, dict] = weakref.WeakKeyDictionary()
_analyzers_lock = threading.Lock()


def _analyzer(index: SearchIndex, cache: Path | None, phrases: frozenset[str], rules: RuleSet) -> TermAnalyzer:
    with _analyzers_lock:
        per_index = _analyzers.setdefault(index, {})
        found = per_index.get((cache, phrases, rules))
    if found is not None:
        return found
    if index.profile is not None:  # built and saved with the index: no pass over the chunks here
        made = TermAnalyzer.from_profile(index.profile, extra_words=phrases, rules=rules)
    else:
        made = TermAnalyzer.from_chunks(index.chunks, extra_words=phrases, vocabulary_cache=cache, rules=rules)
    with _analyzers_lock:
        if len(per_index) >= MAX_ANALYZERS_PER_INDEX:  # glossary edits: keep the newest few
            per_index.pop(next(iter(per_index)))
        return per_index.setdefault((cache, phrases, rules), made)


_analyzer.cache_clear = _analyzers.clear  # type: ignore[attr-defined]  # as functools caches offer
MAX_ANALYZERS_PER_INDEX = 4


# Candidates are put in order by score × (RERANK_BASE + (1 − RERANK_BASE) × the chunk's own keyword
# coverage), so among chunks of similar score the one holding the question's specific words (学费
# for 「最贵的那个级别多少钱」, not 级别 alone) comes first. Not tuned on the school's sets: 0.5 is the
# even split, and on CMRC dev it moves hit@1 from 0.9795 to 0.9807 (bench/answerability.py).
RERANK_BASE = 0.5


def chunk_coverage(terms: Sequence[Term], hit: Hit) -> float:
    """The weighted share of `terms` one chunk (heading included) holds, counted as in `measure`."""
    text = [_hit_text(hit)]
    return _weighted_share({t: credit(t, text) for t in terms})


def rank(terms: Sequence[Term], hits: Sequence[Hit]) -> tuple[Hit, ...]:
    """The candidates in order of their ranking score, score × (RERANK_BASE + (1 − RERANK_BASE) ×
    the chunk's own keyword coverage), each with its coverage and ranking score set (`Hit.value`)
    and a new rank; ties keep retrieval order. The gate compares this same value with the threshold."""
    scored = []
    for h in hits:
        c = chunk_coverage(terms, h) if terms else 0.0
        scored.append(replace(h, coverage=round(c, 4), value=h.score * (RERANK_BASE + (1.0 - RERANK_BASE) * c)))
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].value, i))
    return tuple(replace(scored[i], rank=r) for r, i in enumerate(order, start=1))


def make_reranker(bundle_or_index, glossary: Glossary | None = None, *,
                  cache_dir: Path | None = None) -> Callable[[str, Sequence[Hit]], tuple[Hit, ...]]:
    """`rerank(question, hits) -> hits`: `rank` with this index's analyzer (for benches and tests)."""
    index = getattr(bundle_or_index, "index", bundle_or_index)
    analyzer = analyzer_for(index, cache_dir, glossary)
    return lambda question, hits: rank(analyzer.terms(question, glossary), hits)
