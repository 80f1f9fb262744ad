"""Group questions the documents do not answer into topics, offline, from the gate's own words.

Each question is a weighted bag of its content words as the gate's analyzer cut them (`Retrieval.terms`;
a glossary word counts as the corpus word it maps to, 网课 as 线上班): a word no document uses (`Term.known`
False, the gap itself) at its weight, a corpus word at `known_weight` of it, and the characters of an absent
word sharing `char_weight` of it (开发票 and 发票 meet on 发 and 票). Words are then weighed by how rare they
are among the questions grouped together (smoothed IDF), every question's vector is scaled to length 1, and
groups are merged by average linkage on cosine distance (scipy.cluster.hierarchy, already a dependency)
until the two closest groups are more than `cut` apart. A group of fewer than `min_size` questions, and every
question without a content word (你好, 谢谢, ？？), is noise. A `hint` (the topic a consultant gave an expected
refusal, or a topic an admin already decided) is one more feature at `hint_weight`, so questions sharing it
stay together. The constants are those that grouped bench/data/gap_dev.csv best (`python -m bench.gaps --grid`);
docs/gaps.md has the rule, the choice and its measured quality.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from core.language.words import HAN_RE
from core.values import Retrieval

LABEL_TERMS = 3


@dataclass(frozen=True)
class Rule:
    """The grouping's constants; `bench.gaps --grid` varies them on the development file."""

    known_weight: float = 0.7  # a word the corpus uses, against one it lacks
    char_weight: float = 1.0  # the characters of an absent word, shared among them
    hint_weight: float = 3.0
    cut: float = 0.9  # average cosine distance at which merging stops
    min_size: int = 3  # smaller groups are noise

    def __post_init__(self) -> None:
        if not 0 < self.cut < 1:
            raise ValueError(f"cut ({self.cut}) must lie between 0 and 1")
        if self.min_size < 1:
            raise ValueError(f"min_size ({self.min_size}) must be at least 1")


RULE = Rule()


@dataclass(frozen=True)
class Signals:
    """What one question brings to the grouping: its content words as (word, weight, absent from the corpus,
    as typed) — `word` is the corpus word a glossary synonym maps to, `typed` what the label shows."""

    words: tuple[tuple[str, float, bool, str], ...]
    hint: str = ""


@dataclass(frozen=True)
class Group:
    """One topic: the positions of its questions (ascending) and its most telling words, best first."""

    members: tuple[int, ...]
    terms: tuple[str, ...]

    @property
    def label(self) -> str:
        return "、".join(self.terms) or "（无关键词）"


@dataclass(frozen=True)
class Grouping:
    """Topics, largest first (ties: the earlier first question), and the positions that fit none."""

    groups: tuple[Group, ...]
    noise: tuple[int, ...]


def signals_of(retrieval: Retrieval, hint: str = "") -> Signals:
    """The question's content words as the gate weighed them: weight > 0, a glossary word as its corpus word."""
    words = []
    for term in retrieval.terms:
        if term.weight <= 0:
            continue
        word = term.forms[1] if term.via_glossary and len(term.forms) > 1 else term.text
        words.append((word, term.weight, not term.known, term.typed or term.text))
    return Signals(words=tuple(words), hint=hint)


def features(signals: Signals, rule: Rule = RULE) -> dict[str, float]:
    """The question's features before the batch weighs them: w:<word>, c:<character of an absent word>, h:<hint>."""
    found: dict[str, float] = {}
    for word, weight, absent, _typed in signals.words:
        found[f"w:{word}"] = found.get(f"w:{word}", 0.0) + weight * (1.0 if absent else rule.known_weight)
        if absent and rule.char_weight and len(word) >= 2:
            for char in dict.fromkeys(word):
                if HAN_RE.match(char):
                    found[f"c:{char}"] = found.get(f"c:{char}", 0.0) + weight * rule.char_weight / len(word)
    if found and signals.hint:
        found[f"h:{signals.hint}"] = rule.hint_weight
    return found


def group(signals: Sequence[Signals], rule: Rule = RULE) -> Grouping:
    """Topics and noise for these questions (positions into `signals`); the same input gives the same output."""
    bags = [features(s, rule) for s in signals]
    rows = [i for i, bag in enumerate(bags) if bag]
    if len(rows) < max(rule.min_size, 2):
        return Grouping(groups=(), noise=tuple(range(len(signals))))
    vectors, names = _weighed([bags[i] for i in rows])
    shown = _shown(signals)
    distance = np.clip(1.0 - vectors @ vectors.T, 0.0, 2.0)
    np.fill_diagonal(distance, 0.0)
    labels = fcluster(linkage(squareform(distance, checks=False), method="average"), t=rule.cut,
                      criterion="distance")
    clusters: dict[int, list[int]] = {}
    for position, label in enumerate(labels):
        clusters.setdefault(int(label), []).append(position)
    groups = [Group(members=tuple(rows[p] for p in members), terms=_terms(vectors[members], names, shown))
              for members in clusters.values() if len(members) >= rule.min_size]
    groups.sort(key=lambda g: (-len(g.members), g.members[0]))
    inside = {i for g in groups for i in g.members}
    return Grouping(groups=tuple(groups), noise=tuple(i for i in range(len(signals)) if i not in inside))


def _weighed(bags: list[dict[str, float]]) -> tuple[np.ndarray, list[str]]:
    """Rows of feature weights × smoothed IDF over these questions, each scaled to length 1; feature names."""
    names = sorted({name for bag in bags for name in bag})
    column = {name: j for j, name in enumerate(names)}
    matrix = np.zeros((len(bags), len(names)))
    for i, bag in enumerate(bags):
        for name, weight in bag.items():
            matrix[i, column[name]] = weight
    documents = (matrix > 0).sum(axis=0)
    matrix *= np.log((1 + len(bags)) / (1 + documents)) + 1.0
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix, names


def _shown(signals: Sequence[Signals]) -> dict[str, str]:
    """How each word is most often typed (网课 for 线上班 when students write 网课; ties: the first seen)."""
    typed: dict[str, dict[str, int]] = {}
    for s in signals:
        for word, _weight, _absent, as_typed in s.words:
            counts = typed.setdefault(word, {})
            counts[as_typed] = counts.get(as_typed, 0) + 1
    return {word: max(counts, key=counts.get) for word, counts in typed.items()}


def _terms(vectors: np.ndarray, names: list[str], shown: dict[str, str]) -> tuple[str, ...]:
    """The words carrying most weight across a group's questions, among those at least two of them use (ties:
    the word first in sorted order); a word one question alone brings (交 in 「交了学费能开发票吗」) tells little."""
    totals = vectors.sum(axis=0)
    shared = (vectors > 0).sum(axis=0) >= min(2, len(vectors))
    words = [j for j, name in enumerate(names) if name.startswith("w:") and totals[j] > 0]
    ranked = sorted((j for j in words if shared[j]) or words, key=lambda j: (-round(float(totals[j]), 9), names[j]))
    return tuple(dict.fromkeys(shown.get(names[j][2:], names[j][2:]) for j in ranked[:LABEL_TERMS]))
