"""How related must a changed sentence be to an approved answer before the answer stops being served?

Run from the repository root:  .venv/bin/python -m bench.reuse_drift [FILE.csv ...]

For every row of the development reuse sets (default: reuse_dev.csv, reuse_set.csv, reuse_set_v2.csv, all
measured before; never a blind set before its one measurement) that carries an edit, the edit is applied to the
shipped corpus file and each sentence the edit added or removed is scored against the approved answer
(core.reuse.drift.relatedness; the row's score is the highest). For each candidate share it prints how many
stale rows would be missed (the answer would still be served after the documents changed what it says: cost 5
each) and how many paraphrase rows would be suspended for an unrelated edit (cost 1 each: a consultant approves
it again). The rule, written before looking: the cheapest share, the lowest of equally cheap ones (when in doubt,
ask a consultant again). The shipped value is core.reuse.drift.RELATED_SHARE, marked in the table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.sets import DATA
from core.reuse.drift import RELATED_SHARE, changed_sentences, relatedness
from core.sets.reuse_format import read_reuse_set

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
DEV_FILES = ("reuse_dev.csv", "reuse_set.csv", "reuse_set_v2.csv")
SHARES = tuple(round(0.05 * i, 2) for i in range(2, 15))
MISSED_STALE_COST, SUSPENDED_PARAPHRASE_COST = 5, 1


def scores(paths: list[Path]) -> list[tuple[str, float]]:
    """(kind, highest relatedness of a changed sentence to the approved answer) for every row with an edit."""
    out = []
    for path in paths:
        for case in read_reuse_set(path):
            if case.edit is None:
                continue
            text = (CORPUS / case.edit.source).read_text(encoding="utf-8")
            changed = changed_sentences(text, text.replace(case.edit.old, case.edit.new))
            out.append((case.kind, max((relatedness(s, case.approved_answer) for s in changed), default=0.0)))
    return out


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [DATA / name for name in DEV_FILES]
    rows = scores(paths)
    stale = [s for kind, s in rows if kind == "stale"]
    kept = [s for kind, s in rows if kind == "paraphrase"]
    print(f"# 改动句与已审答案的相关度（{'、'.join(p.name for p in paths)}：带改动的 stale {len(stale)} 行、"
          f"paraphrase {len(kept)} 行）\n")
    print("| 相关度下限 | 漏掉的 stale（每行 5） | 误停的 paraphrase（每行 1） | 代价 |")
    print("| --- | --- | --- | --- |")
    costs = {}
    for share in SHARES:
        missed = sum(s < share for s in stale)
        stopped = sum(s >= share for s in kept)
        costs[share] = MISSED_STALE_COST * missed + SUSPENDED_PARAPHRASE_COST * stopped
        mark = "（出厂）" if abs(share - RELATED_SHARE) < 1e-9 else ""
        print(f"| {share:.2f}{mark} | {missed} | {stopped} | {costs[share]} |")
    best = min(costs.values())
    print(f"\n代价最低 {best}；按规则取其中最低的下限：{min(s for s, c in costs.items() if c == best):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
