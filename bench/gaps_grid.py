"""The candidates `python -m bench.gaps --grid` measures on the development files, and the written rule that picks one.

The rule (docs/gaps.md, 第四轮怎样选规则, written before any candidate was measured): a candidate qualifies when on
every development file its purity is ≥ 85% and its noise recall ≥ 90%; among those the highest mean B-cubed F
wins; candidates less than 0.005 below it are decided by the higher mean fragmentation, then by fewer parts
switched on, then by the order below. Part one tries each idea alone on round 3's rule at four cuts; part two
combines the ideas whose best qualifying row beat round 3's best in part one (the shared-neighbour similarity,
the centroid merge and the attach pass; character pairs and the other linkages did not).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from statistics import fmean
from typing import TYPE_CHECKING

from core.gaps.grouping import Rule

if TYPE_CHECKING:
    from bench.gaps import Quality

MIN_PURITY = 0.85
MIN_NOISE_RECALL = 0.9
TIE = 0.005
ROUND3 = Rule()  # average linkage on the words and the characters of absent words, cut at 0.9, no later pass
CUTS = (0.8, 0.85, 0.9, 0.95)
IDEAS = (("第三轮规则", {}),
         ("字的二元组 0.5", {"pair_weight": 0.5}), ("字的二元组 1.0", {"pair_weight": 1.0}),
         ("不用单字", {"char_weight": 0.0}),
         ("全连接", {"linkage": "complete"}), ("加权平均连接", {"linkage": "weighted"}),
         ("共同近邻 0.3", {"neighbour_weight": 0.3}), ("共同近邻 0.6", {"neighbour_weight": 0.6}),
         ("质心合并 0.2", {"merge": 0.2}), ("质心合并 0.25", {"merge": 0.25}),
         ("挂靠 0.3", {"attach": 0.3}), ("挂靠 0.35", {"attach": 0.35}))


@dataclass(frozen=True)
class Candidate:
    idea: str
    rule: Rule


def candidates() -> tuple[Candidate, ...]:
    alone = [Candidate(idea, replace(ROUND3, cut=cut, **change)) for idea, change in IDEAS for cut in CUTS]
    combined = [Candidate("组合", replace(ROUND3, cut=cut, neighbour_weight=near, merge=merge, attach=attach))
                for cut, near, merge, attach in itertools.product((0.8, 0.85, 0.9), (0.0, 0.3), (0.2, 0.225, 0.25),
                                                                  (0.0, 0.3, 0.35))]
    return tuple(alone + combined)


def parts(rule: Rule) -> int:
    """How many parts beyond round 3's rule are switched on (fewer is simpler)."""
    return (sum(getattr(rule, name) > 0 for name in ("pair_weight", "neighbour_weight", "merge", "attach"))
            + (rule.linkage != "average") + (rule.char_weight == 0))


def qualifies(results: Sequence[Quality]) -> bool:
    return all(q.purity >= MIN_PURITY and q.noise_recall >= MIN_NOISE_RECALL for q in results)


def pick(measured: Sequence[tuple[Candidate, Sequence[Quality]]]) -> int | None:
    """The position of the candidate the written rule picks, None when none qualifies."""
    ok = [n for n, (_, results) in enumerate(measured) if qualifies(results)]
    if not ok:
        return None
    mean_b = {n: fmean(q.bcubed_f for q in measured[n][1]) for n in ok}
    best = max(mean_b.values())
    near = [n for n in ok if mean_b[n] > best - TIE]
    return min(near, key=lambda n: (-round(fmean(q.fragmentation for q in measured[n][1]), 9),
                                    parts(measured[n][0].rule), n))


def describe(rule: Rule) -> str:
    """The rule's constants that differ from round 3's."""
    changed = [f"{f.name}={getattr(rule, f.name)}" for f in fields(rule) if getattr(rule, f.name) != getattr(ROUND3, f.name)]
    return " ".join(changed) or "（同第三轮）"
