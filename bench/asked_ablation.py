"""What each kind of "what is asked" is worth: the gate's rule asked_attribute and every kind switched off in turn.

Run from the repository root:  .venv/bin/python -m bench.asked_ablation [--answers]

One row for everything on, one with the rule `asked_attribute` off (XIAOE_ANSWERABILITY_RULES=-asked_attribute: the
gate as before the rule), then one per kind of core.case.asked.ASKED_KINDS switched off (XIAOE_ASKED_KINDS=-<kind>).
Each cell is 「答出且命中事实 / 近似题已拒答」 on a group of labelled sets, with the change in cost (误拒 + 命中错误资料
+ 2 × 误答) against the first row in brackets: a positive number means switching the kind off costs that much, so
the kind pays. `--answers` adds the answers' own count (the offline answer's text holds the key phrase:
core.evaluation.answer_texts), which takes a few minutes. The knobs in force, the shipped starter glossary; writes
nothing. The newest blind set is a column of its own and was never used to choose a kind.
"""

from __future__ import annotations

import argparse

from bench.sets import CALIBRATION_SETS, DEV_STUDENT_SETS, bench_assistant, run
from core.case.asked import ASKED_KINDS
from core.evaluation.answer_texts import answer_texts
from core.evaluation.metrics import CORRECT_ANSWER, CORRECT_REFUSAL, FALSE_ANSWER, FALSE_REFUSAL, WRONG_SOURCE
from core.settings import Settings

GROUPS = (("开发集（7 份）", tuple(f for _, f in (*CALIBRATION_SETS, *DEV_STUDENT_SETS))),
          ("v6+v7", ("student_heldout_v6.csv", "student_heldout_v7.csv")), ("v8", ("student_heldout_v8.csv",)),
          ("v9", ("student_heldout_v9.csv",)), ("v10", ("student_heldout_v10.csv",)))


def counts(settings: Settings, files: tuple[str, ...], *, answers: bool) -> tuple[int, int, float, int]:
    """(answered with the fact, near misses refused, cost, answers stating the fact) over `files`."""
    assistant = bench_assistant(settings)
    fact = refused = stated = 0
    cost = 0.0
    for file in files:
        _, evaluation = run(assistant, file)
        m = evaluation.metrics
        fact += m.count(CORRECT_ANSWER)
        refused += m.count(CORRECT_REFUSAL)
        cost += m.count(FALSE_REFUSAL) + m.count(WRONG_SOURCE) + 2 * m.count(FALSE_ANSWER)
        if answers:
            stated += answer_texts(assistant, evaluation).count
    return fact, refused, cost, stated


def rows() -> list[tuple[str, Settings]]:
    """(label, settings) per row: all on, the rule off, each kind off."""
    base = Settings.from_env()
    out = [("（全部打开，起点）", base),
           ("`asked_attribute` 整条规则关掉（改动之前的闸门）", base.with_(answerability_rules="-asked_attribute"))]
    out += [(f"`{k.name}` {k.label_zh}（例：{k.example_zh}）", base.with_(asked_kinds=f"-{k.name}"))
            for k in ASKED_KINDS]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", action="store_true", help="also count the answers whose text states the fact")
    args = parser.parse_args(argv)
    cell = "答出且命中事实 / 回答里写出事实 / 近似题已拒答" if args.answers else "答出且命中事实 / 近似题已拒答"
    print("# 问的是什么：规则 asked_attribute 和每一类问法的消融（现在的旋钮，初始同义词表）\n")
    print(f"每格是“{cell}”，括号里是关掉之后代价（误拒 + 命中错误资料 + 2 × 误答）的变化，正数说明这一类有用。\n")
    print("| 关掉的 | " + " | ".join(name for name, _ in GROUPS) + " |")
    print("| --- | " + "--- | " * len(GROUPS))
    baseline: list[tuple[int, int, float, int]] | None = None
    for label, settings in rows():
        results = [counts(settings, files, answers=args.answers) for _, files in GROUPS]
        baseline = baseline or results
        cells = []
        for (fact, refused, cost, stated), base in zip(results, baseline):
            shown = f"{fact} / {stated} / {refused}" if args.answers else f"{fact} / {refused}"
            cells.append(f"{shown}（{cost - base[2]:+g}）")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
