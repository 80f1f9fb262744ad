"""Write every labelled question's decision (outcome, answer/refuse, score, terms, reason) as JSON lines.

Run from the repository root:  PYTHONPATH=. python bench/decision_snapshot.py OUT.jsonl
Two snapshots taken before and after a refactor of the term rules are compared with
`python bench/decision_snapshot.py --compare A.jsonl B.jsonl`, which prints the questions whose
decision changed and exits 1 if any did. Sets: every labelled answerability set in bench/data/
(the one gate at the knobs in force, the starter glossary), as bench/answerability.py runs them;
XIAOE_ANSWERABILITY_RULES switches rules off as everywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.sets import bench_assistant, run

SETS = ("calibration.csv", "calibration_spoken.csv", "student_questions.csv", "student_questions_v2.csv",
        "student_questions_v3.csv", "student_heldout.csv", "student_heldout_v5.csv", "student_heldout_v6.csv",
        "student_heldout_v7.csv")


def snapshot(out: Path, sets: tuple[str, ...]) -> int:
    assistant = bench_assistant()
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for name in sets:
            evaluated, evaluation = run(assistant, name)
            for i, (question, retrieval) in enumerate(zip(evaluated.questions, evaluated.retrievals)):
                d = assistant.gate(retrieval).decision
                handle.write(json.dumps({"set": name, "question": question.question, "outcome": evaluation.outcome(i),
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
