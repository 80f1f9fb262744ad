"""`python -m core facts [--json]`: the school's facts as read from the documents, each with its sentence, and the
facts no sentence states (what the own-figure answers would name as missing)."""

from __future__ import annotations

import argparse
import json

from core.facts.show import fact_rows, missing_rows
from core.retrieval.store import load_or_build
from core.settings import Settings


def register(subparsers) -> None:
    facts = subparsers.add_parser("facts", help="从资料里读出的学校事实（级别、学费、课时、手续费……）和出处")
    facts.add_argument("--json", action="store_true", help="输出 JSON")
    facts.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    bundle = load_or_build(Settings.from_env())
    rows, missing = fact_rows(bundle.facts), missing_rows(bundle.facts)
    if args.json:
        print(json.dumps({"facts": rows, "missing": missing}, ensure_ascii=False, indent=2))
        return 0
    print(f"从 {len(bundle.facts.files)} 份资料里读出 {len(rows)} 条事实：")
    for row in rows:
        print(f"- {row['label']}：{row['shown']}（{row['file']} · {row['section'] or '文首'}：「{row['sentence']}」）")
    if missing:
        print(f"资料里没有写明 {len(missing)} 条（要用到它们的回答会说缺什么，不会用旧数字）：")
        for row in missing:
            print(f"- {row['label']}：应有一句像{row['expected']}")
    return 0
