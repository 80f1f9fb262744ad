"""Write every labelled question's decision (outcome, answer/refuse, score, terms, reason) as JSON lines.

Run from the repository root:  python bench/decision_snapshot.py OUT.jsonl [--rules SPEC]
Two snapshots taken before and after a refactor of the term rules are compared with
`python bench/decision_snapshot.py --compare A.jsonl B.jsonl`, which prints the questions whose
decision changed and exits 1 if any did. Sets: every labelled answerability set in tests/data/
(k=3, the decision's threshold, the starter glossary), as bench/answerability.py runs them.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.answerability import DECISION_THRESHOLD, evaluate_decisions  # noqa: E402
from core.glossary import load_starter  # noqa: E402
from core.index_store import load_or_build  # noqa: E402
from core.settings import Settings  # noqa: E402

DATA = ROOT / "tests" / "data"
SETS = ("calibration.csv", "calibration_spoken.csv", "student_questions.csv", "student_questions_v2.csv",
        "student_questions_v3.csv", "student_heldout.csv", "student_heldout_v5.csv", "student_heldout_v6.csv",
        "student_heldout_v7.csv")


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def snapshot(out: Path, sets: tuple[str, ...], k: int = 3) -> int:
    bundle = load_or_build(Settings.from_env())
    glossary = load_starter()
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for name in sets:
            for o in evaluate_decisions(read_rows(DATA / name), bundle, glossary, DECISION_THRESHOLD, k):
                d = o.decision
                handle.write(json.dumps({"set": name, "question": o.question, "outcome": o.outcome,
                                         "answerable": d.answerable, "score": d.score, "coverage": d.coverage,
                                         "terms": [t.text for t in d.terms], "reason": d.reason},
                                        ensure_ascii=False) + "\n")
                count += 1
    return count


def compare(a: Path, b: Path) -> int:
    left = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    right = [json.loads(line) for line in b.read_text(encoding="utf-8").splitlines()]
    if len(left) != len(right):
        print(f"题数不同：{len(left)} 对 {len(right)}")
        return 1
    changed = [(x, y) for x, y in zip(left, right) if x != y]
    for x, y in changed:
        print(f"{x['set']} | {x['question']}\n  之前 {x}\n  之后 {y}")
    same_outcome = sum(x["outcome"] == y["outcome"] for x, y in zip(left, right))
    print(f"{len(left)} 题：结果相同 {same_outcome}，判断（答/拒、分数、覆盖率、关键词、理由）完全相同 "
          f"{len(left) - len(changed)}，有变化 {len(changed)}")
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("需要输出文件，或用 --compare A B")
    print(f"{snapshot(args.out, tuple(args.sets))} 题写入 {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
