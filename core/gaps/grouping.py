"""Group questions the documents do not answer into topics, offline, from the gate's own words.

Each question is a weighted bag of its content words as the gate's analyzer cut them (`Retrieval.terms`;
a glossary word counts as the corpus word it maps to, 网课 as 线上班): a word no document uses (`Term.known`
False, the gap itself) at its weight, a corpus word at `known_weight` of it, and the characters of an absent
word sharing `char_weight` of it (开发票 and 发票 meet on 发 and 票). Words are then weighed by how rare they
are among the questions grouped together (smoothed IDF) and every question's vector is scaled to length 1.
Three passes follow. 1: average linkage (scipy.cluster.hierarchy, already a dependency) on a cosine distance
in which `neighbour_weight` of a pair's similarity comes from the questions near both, until the two closest
groups are more than `cut` apart. 2: groups merge while the centroids of the two most alike reach a cosine of
`merge` (average linkage alone stops too early on a large topic whose questions mostly share no word). 3: a
question of a group smaller than `min_size` joins the topic whose centroid is most like it from a cosine of
`attach`; otherwise it is noise, as every question without a content word (你好, 谢谢, ？？) always is.
A `hint` is a person's word on a question's topic: the topic a consultant gave an expected refusal, or a topic an
admin decided, merged or moved the question into. Questions sharing a hint are one topic as given, at any size,
never split and never mixed with another; a question without a hint joins the hinted topic whose centroid (by
words) is most like it from a cosine of `seed`, so what staff sorted today gathers tomorrow's askings; the rest go
through the three passes. The constants were picked on the development files by a rule written down first
(`python -m bench.gaps --grid`; `seed` by `python -m bench.gaps_loop`); docs/gaps.md has the rules, the choices and
their measured quality. Deliberately left out: any word list or synonym made for the test sets, and any model.
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
LINKAGES = ("average", "complete", "weighted")  # the scipy methods that work on a cosine distance matrix


@dataclass(frozen=True)
class Rule:
    """The grouping's constants. Without hints `Rule()` is round 3's rule (average linkage only, every later part
    off); `RULE` is the shipped one. `bench.gaps --grid` (bench/gaps_grid.py) varies them on the development files,
    `bench.gaps_loop` the seed bar."""

    known_weight: float = 0.7  # a word the corpus uses, against one it lacks
    char_weight: float = 1.0  # the characters of an absent word, shared among them
    pair_weight: float = 0.0  # the character pairs of every content word (发票 in 开发票), shared among them; 0: off
    neighbour_weight: float = 0.0  # share of a pair's similarity that comes from the questions near both; 0: off
    linkage: str = "average"
    cut: float = 0.9  # cosine distance between groups at which the first pass stops merging
    merge: float = 0.0  # second pass: merge groups while two centroids are at least this cosine alike; 0: off
    attach: float = 0.0  # third pass: a question of a group under min_size joins the nearest topic from here; 0: off
    min_size: int = 3  # smaller groups are noise (a hinted topic stands at any size)
    seed: float = 0.5  # a question without a hint joins the most alike hinted topic from this cosine; 0: never

    def __post_init__(self) -> None:
        if not 0 < self.cut < 1:
            raise ValueError(f"cut ({self.cut}) must lie between 0 and 1")
        if self.min_size < 1:
            raise ValueError(f"min_size ({self.min_size}) must be at least 1")
        if self.linkage not in LINKAGES:
            raise ValueError(f"linkage ({self.linkage!r}) must be one of {', '.join(LINKAGES)}")
        for name in ("neighbour_weight", "merge", "attach", "seed"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} ({getattr(self, name)}) must lie in [0, 1)")


RULE = Rule(neighbour_weight=0.3, cut=0.8, merge=0.225, attach=0.3)  # picked by bench.gaps --grid (docs/gaps.md)


@dataclass(frozen=True)
class Signals:
    """What one question brings to the grouping: its content words as (word, weight, absent from the corpus,
    as typed) — `word` is the corpus word a glossary synonym maps to, `typed` what the label shows."""

    words: tuple[tuple[str, float, bool, str], ...]
    hint: str = ""


@dataclass(frozen=True)
class Group:
    """One topic: the positions of its questions (ascending), its most telling words, best first, and the hint it
    was given ("" for a topic found by words alone)."""

    members: tuple[int, ...]
    terms: tuple[str, ...]
    hint: str = ""

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
    """The question's features before the batch weighs them: w:<word>, c:<character of an absent word>,
    p:<pair of Chinese characters of a word>. The hint is no feature: it places the question (`group`)."""
    found: dict[str, float] = {}
    for word, weight, absent, _typed in signals.words:
        weight *= 1.0 if absent else rule.known_weight
        found[f"w:{word}"] = found.get(f"w:{word}", 0.0) + weight
        if absent and rule.char_weight and len(word) >= 2:
            for char in dict.fromkeys(word):
                if HAN_RE.match(char):
                    found[f"c:{char}"] = found.get(f"c:{char}", 0.0) + weight * rule.char_weight / len(word)
        pairs = list(dict.fromkeys(word[i:i + 2] for i in range(len(word) - 1) if HAN_RE.match(word[i:i + 2])))
        if rule.pair_weight and pairs:
            for pair in pairs:
                found[f"p:{pair}"] = found.get(f"p:{pair}", 0.0) + weight * rule.pair_weight / len(pairs)
    return found


def group(signals: Sequence[Signals], rule: Rule = RULE) -> Grouping:
    """Topics and noise for these questions (positions into `signals`); the same input gives the same output."""
    bags = [features(s, rule) for s in signals]
    rows = [i for i, bag in enumerate(bags) if bag]
    vectors, names = _weighed([bags[i] for i in rows]) if rows else (np.zeros((0, 0)), [])
    at = {i: p for p, i in enumerate(rows)}  # question → its row of `vectors`
    seeded = _seeded(signals, vectors, at, rule.seed)
    placed = {i for members in seeded.values() for i in members}
    free = [p for p, i in enumerate(rows) if i not in placed]  # rows of the questions grouped by words
    topics: list[list[int]] = []
    if len(free) >= max(rule.min_size, 2):
        clusters = [[free[p] for p in c] for c in _linked(vectors[free], rule)]
        if rule.merge:
            clusters = _merged(vectors, clusters, rule.merge)
        topics = [c for c in clusters if len(c) >= rule.min_size]
        if rule.attach:
            topics = _attached(vectors, topics, [p for c in clusters if len(c) < rule.min_size for p in c], rule.attach)
    shown = _shown(signals)
    groups = [Group(members=tuple(rows[p] for p in members), terms=_terms(vectors[members], names, shown))
              for members in topics]
    groups += [Group(members=tuple(sorted(members)), hint=hint,
                     terms=_terms(vectors[[at[i] for i in members if i in at]], names, shown) if any(i in at for i in members)
                     else ()) for hint, members in seeded.items()]
    groups.sort(key=lambda g: (-len(g.members), g.members[0]))
    inside = {i for g in groups for i in g.members}
    return Grouping(groups=tuple(groups), noise=tuple(i for i in range(len(signals)) if i not in inside))


def _seeded(signals: Sequence[Signals], vectors: np.ndarray, at: dict[int, int], bar: float) -> dict[str, list[int]]:
    """The hinted topics: the questions given each hint, then every question without a hint whose vector is most like
    one hinted topic's centroid (the sum of its questions' vectors), from a cosine of `bar` (ties: the hint seen first).
    Centroids are taken before anyone joins, so the order of the questions does not matter."""
    seeds: dict[str, list[int]] = {}
    for i, s in enumerate(signals):
        if s.hint:
            seeds.setdefault(s.hint, []).append(i)
    if not seeds or not bar or not at:
        return seeds
    hints = list(seeds)
    loose = [i for i, s in enumerate(signals) if not s.hint and i in at]
    joined = _attached(vectors, [[at[i] for i in seeds[h] if i in at] for h in hints], [at[i] for i in loose], bar)
    question = {p: i for i, p in at.items()}
    for h, rows in zip(hints, joined):
        seeds[h] += [question[p] for p in rows if not signals[question[p]].hint]
    return seeds


def _linked(vectors: np.ndarray, rule: Rule) -> list[list[int]]:
    """First pass: hierarchical clustering (scipy) on cosine distance, cut at `rule.cut`; groups in order of their
    first question. With `neighbour_weight`, two questions are also alike when the same questions are near both
    (the cosine of their rows of similarities): 「证书能写进简历吗」 and 「结课证书国家认可吗」 meet on 证书 alone,
    but both are near every other question about the certificate."""
    similarity = vectors @ vectors.T
    if rule.neighbour_weight:
        profiles = similarity / np.linalg.norm(similarity, axis=1, keepdims=True)
        similarity = (1 - rule.neighbour_weight) * similarity + rule.neighbour_weight * (profiles @ profiles.T)
    distance = np.clip(1.0 - similarity, 0.0, 2.0)
    np.fill_diagonal(distance, 0.0)
    labels = fcluster(linkage(squareform(distance, checks=False), method=rule.linkage), t=rule.cut,
                      criterion="distance")
    clusters: dict[int, list[int]] = {}
    for position, label in enumerate(labels):
        clusters.setdefault(int(label), []).append(position)
    return list(clusters.values())


def _merged(vectors: np.ndarray, clusters: list[list[int]], bar: float) -> list[list[int]]:
    """Second pass: while the two groups whose summed vectors are most alike reach a cosine of `bar`, merge them
    (ties: the earlier pair). Average linkage stops once a topic's many pairs that share no word pull its
    average down; a centroid keeps what a topic's questions share, so two halves of one topic can still meet."""
    members = [list(c) for c in clusters]
    alive = np.ones(len(members), dtype=bool)
    sums = np.array([vectors[c].sum(axis=0) for c in members])
    gram = sums @ sums.T  # dot products of the groups' sums: a merge adds two rows, no vector is rebuilt
    norms = np.sqrt(np.diag(gram)).copy()
    cosine = gram / np.outer(norms, norms)
    np.fill_diagonal(cosine, -np.inf)
    best = cosine.argmax(axis=1)  # each row's most alike group, kept up to date so a merge costs one row's work
    while True:
        i = int(np.argmax(cosine[np.arange(len(best)), best]))
        i, j = sorted((i, int(best[i])))
        if not cosine[i, j] >= bar:
            break
        gram[i] += gram[j]
        gram[:, i] += gram[:, j]
        norms[i] = np.sqrt(gram[i, i])
        alive[j] = False
        members[i] += members[j]
        cosine[i] = cosine[:, i] = np.where(alive, gram[i] / (norms[i] * norms), -np.inf)
        cosine[j] = cosine[:, j] = cosine[i, i] = -np.inf
        stale = (best == i) | (best == j)
        stale[i] = True
        best[stale] = cosine[stale].argmax(axis=1)
        column = cosine[:, i]
        current = cosine[np.arange(len(best)), best]
        best[(column > current) | ((column == current) & (i < best))] = i
    return [sorted(m) for m, keep in zip(members, alive) if keep]


def _attached(vectors: np.ndarray, topics: list[list[int]], loose: list[int], bar: float) -> list[list[int]]:
    """Third pass: a question of a group too small to be a topic joins the topic whose centroid is most like it
    when their cosine reaches `bar`; centroids are taken before anyone joins, so the order does not matter. A
    question without a content word has no vector and stays noise."""
    if not topics or not loose:
        return topics
    centroids = np.array([vectors[t].sum(axis=0) for t in topics])
    norms = np.linalg.norm(centroids, axis=1, keepdims=True)  # a hinted topic may have no word at all
    centroids = np.divide(centroids, norms, out=np.zeros_like(centroids), where=norms > 0)
    joined = [list(t) for t in topics]
    for position in loose:
        alike = centroids @ vectors[position]
        best = int(np.argmax(alike))
        if alike[best] >= bar:
            joined[best].append(position)
    return [sorted(t) for t in joined]


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
    return {word: max(counts, key=counts.__getitem__) for word, counts in typed.items()}


def _terms(vectors: np.ndarray, names: list[str], shown: dict[str, str]) -> tuple[str, ...]:
    """The words carrying most weight across a group's questions, among those at least two of them use (ties:
    the word first in sorted order); a word one question alone brings (交 in 「交了学费能开发票吗」) tells little."""
    totals = vectors.sum(axis=0)
    shared = (vectors > 0).sum(axis=0) >= min(2, len(vectors))
    words = [j for j, name in enumerate(names) if name.startswith("w:") and totals[j] > 0]
    ranked = sorted((j for j in words if shared[j]) or words, key=lambda j: (-round(float(totals[j]), 9), names[j]))
    return tuple(dict.fromkeys(shown.get(names[j][2:], names[j][2:]) for j in ranked[:LABEL_TERMS]))
