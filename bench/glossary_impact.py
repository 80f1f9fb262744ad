"""What the 同义词表 page's 影响题数 column costs, and which starter entries change a labelled question.

Run from the repository root: `.venv/bin/python bench/glossary_impact.py [--entries N]`.
Evaluates core.evaluation.glossary_impact on the shipped corpus, the starter glossary and the default
labelled set at the settings' knobs (the calibrated defaults); prints a table of time per entry and the entries
whose removal changes at least one question's outcome.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("XIAOE_DATA_DIR", tempfile.mkdtemp(prefix="xiaoe-bench-"))

from core.answerability.glossary import load_starter  # noqa: E402
from core.evaluation.glossary_impact import glossary_impact
from core.retrieval.store import load_or_build  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.stores.question_sets import load_default_set  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description="同义词影响题数的计算耗时")
    parser.add_argument("--entries", type=int, default=0, help="只算前 N 条（0 = 全部）")
    args = parser.parse_args()
    settings = Settings.from_env()
    bundle = load_or_build(settings)
    glossary = load_starter()
    rows = load_default_set().questions
    entries = glossary.entries[:args.entries] if args.entries else glossary.entries
    started = time.perf_counter()
    impacts = glossary_impact(glossary, rows, bundle, settings=settings, entries=entries)
    seconds = time.perf_counter() - started
    print("| 条目数 | 题数 | 总耗时（秒） | 每条（秒） | 30 条一页（秒） | 影响 ≥1 题的条目 |")
    print("|---|---|---|---|---|---|")
    changed = [i for i in impacts if i.count]
    print(f"| {len(entries)} | {len(rows)} | {seconds:.2f} | {seconds / len(entries):.3f} | "
          f"{30 * seconds / len(entries):.1f} | {len(changed)} |")
    for impact in changed:
        print(f"- {impact.synonym} → {impact.term}：{impact.count} 题（{'、'.join(impact.changed)}）")


if __name__ == "__main__":
    main()
