"""What each fact kind of the student's case (core.case.kinds) pays for: switched off one at a time, on the labelled sets.

Run from the repository root:  .venv/bin/python -m bench.case_kinds [--ablation] [--kinds=-discount,-rough]
For every own-figure set (bench/data/own_figures*.csv) each question is retrieved once and answered through the
Assistant with the kinds switched on (core.case.kinds.KindSet; the gate's decision does not depend on them), and
judged as bench.own_figures judges it (right final amount, wrong amount). For every reuse set
(bench/data/reuse_set*.csv, reuse_dev.csv) the case guard is run on each row's two questions: a row that only this
kind tells apart is, with the kind off, a wrong reuse at risk (other_case rows) or a right reuse no longer stopped
(paraphrase rows) — at most, since the word-match guard still follows. For the answerability sets, the gate's
decisions do not read the case kinds (the same with any kinds); what can change is the question_mismatch flag on
answers to questions that state figures, counted here.
`--ablation` prints one row per kind switched off, with the change from all kinds on (positive: the kind pays).
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import replace

from bench.own_figures import judge
from bench.sets import DATA, bench_assistant, read_set
from core.case import ALL_KINDS, KIND_NAMES, KindSet, case_figures, parse_kinds
from core.reuse.case import differences
from core.sets.reuse_format import read_reuse_set

OWN_SETS = ("own_figures.csv", "own_figures_dev.csv", "own_figures_v2.csv", "own_figures_v3.csv", "own_figures_v4.csv")
REUSE_SETS = ("reuse_dev.csv", "reuse_set.csv", "reuse_set_v2.csv", "reuse_set_v3.csv", "reuse_set_v4.csv")
ANSWER_SETS = ("calibration.csv", "calibration_spoken.csv", "student_questions.csv", "student_questions_v2.csv",
               "student_questions_v3.csv", "student_heldout.csv", "student_heldout_v5.csv", "student_heldout_v6.csv",
               "student_heldout_v7.csv", "student_heldout_v8.csv", "student_heldout_v9.csv", "student_heldout_v10.csv")
COLUMNS = ("自己的数字：金额对", "自己的数字：说错金额", "复用：情况关拦下的「情况不同」行（应拦）",
           "复用：情况关拦下的「同义问法」行（不应拦）", "可答性题集：与问题不符的标记")


class Measure:
    """The labelled sets read and retrieved once; `run(kinds)` measures one set of kinds switched on."""

    def __init__(self) -> None:
        self.assistant = bench_assistant()
        self.own = [(row, self.assistant.retrieve(row["question"]))
                    for name in OWN_SETS for row in csv.DictReader((DATA / name).open(encoding="utf-8-sig"))]
        self.reuse = [case for name in REUSE_SETS for case in read_reuse_set(DATA / name)]
        stating = [q.question for name in ANSWER_SETS for q in read_set(name) if case_figures(q.question)]
        self.answers = [self.assistant.retrieve(q) for q in dict.fromkeys(stating)]

    def run(self, kinds: KindSet) -> tuple[int, int, int, int, int]:
        assistant = replace(self.assistant, case_kinds=kinds)
        right = wrong = 0
        for row, retrieval in self.own:
            answer = assistant.respond(retrieval).answer
            ok, bad = judge("" if answer.refused else answer.text, row["final_amount"], row["must_say"])
            right, wrong = right + ok, wrong + bad
        facts = assistant.facts
        stopped = {kind: 0 for kind in ("other_case", "paraphrase")}
        for case in self.reuse:
            if case.kind in stopped and differences(case.new_question, case.approved_question, facts, kinds):
                stopped[case.kind] += 1
        flagged = sum(any(p.code == "question_mismatch" for p in assistant.respond(r).answer.problems)
                      for r in self.answers)
        return right, wrong, stopped["other_case"], stopped["paraphrase"], flagged


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.case_kinds")
    parser.add_argument("--ablation", action="store_true", help="每种情况关掉一次")
    parser.add_argument("--kinds", default="", help="要用的种类（XIAOE_CASE_KINDS 的写法）")
    args = parser.parse_args(argv)
    measure = Measure()
    base_kinds = parse_kinds(args.kinds)
    base = measure.run(base_kinds)
    print(f"# 学员情况的种类（{base_kinds.label}）："
          f"自己的数字 {len(measure.own)} 题（{len(OWN_SETS)} 份），复用 {len(measure.reuse)} 行（{len(REUSE_SETS)} 份），"
          f"可答性题集里说了数字的问题 {len(measure.answers)} 道（{len(ANSWER_SETS)} 份）\n")
    print("| 关掉的种类 | " + " | ".join(COLUMNS) + " |")
    print("|" + " --- |" * (len(COLUMNS) + 1))
    print("| （全部启用） | " + " | ".join(str(v) for v in base) + " |")
    if args.ablation:
        for name in KIND_NAMES:
            if not base_kinds.on(name):
                continue
            values = measure.run(base_kinds.without(name))
            print(f"| {name} | " + " | ".join(_delta(v, b, i) for i, (v, b) in enumerate(zip(values, base))) + " |")
    print("\n关掉一种后：金额对的题少了、说错金额多了、拦下的「情况不同」行少了，说明这种情况有用；"
          "「同义问法」行少了说明它原来多拦了。")
    return 0


def _delta(value: int, base: int, column: int) -> str:
    return f"{value}（{value - base:+d}）" if value != base else f"{value}（±0）"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


__all__ = ["ALL_KINDS", "Measure", "main"]
