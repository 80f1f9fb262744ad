"""`python -m core eval --reuse FILE.csv [--json]`: the reuse set through the real approval and the one Assistant.

Prints a table per kind (total, reused, and for rows that were not reused, which guard stopped them) or, with
`--json`, `{"kinds": {"paraphrase": {"total": n, "reused": m, "guards": {…}}, …}, "rows": [{"id", "reused",
"guard"}], …}`. Each row runs in a fresh data folder (core.evaluation.reuse_eval); the configured corpus is copied,
never changed.
"""

from __future__ import annotations

import argparse
import json
import sys

from core.evaluation.reuse_eval import run_reuse_set
from core.sets.reuse_format import read_reuse_set
from core.settings import Settings
from core.values.reuse import GUARD_LABELS

KIND_LABELS = {"paraphrase": "同义问法（应复用）", "other_case": "情况不同（不应复用）",
               "other_topic": "别的话题（不应复用）", "stale": "资料已改（不应复用）"}


def run(args: argparse.Namespace) -> int:
    cases = read_reuse_set(args.reuse_set)
    settings = Settings.from_env()

    def progress(done: int, total: int) -> None:
        if not args.json and (done == total or done % 10 == 0):
            print(f"已评测 {done}/{total} 行", file=sys.stderr)

    result = run_reuse_set(cases, settings, progress=progress)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(f"复用评测集：{args.reuse_set}（{len(cases)} 行），复用相似度下限 {result.threshold:.2f}")
    print("| 类别 | 行数 | 复用 | 没复用时拦下它的一关 |")
    print("|---|---|---|---|")
    for kind, row in result.kinds().items():
        guards = "，".join(f"{GUARD_LABELS.get(g, g or '—')} {n}" for g, n in sorted(row["guards"].items())) or "—"
        print(f"| {KIND_LABELS.get(kind, kind)} | {row['total']} | {row['reused']} | {guards} |")
    confirmed = sum(r.confirmed for r in result.rows)
    print(f"\n{confirmed} 行的已审答案没通过检查，是点「仍然通过」二次确认后通过的。")
    return 0
