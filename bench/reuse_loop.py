"""What a consultant's 「这是同一个问题」 adds: paraphrases reused before and after linking near misses.

Run from the repository root:  .venv/bin/python -m bench.reuse_loop [FILE.csv ...]

Default: the development reuse set and the three blind reuse sets, all measured once before (never a blind set
before its one measurement). For each approved question of a set, its first row's answer is approved as
`eval --reuse` approves it, and the set's rows for that question are asked in file order at the shipped reuse
threshold, every guard applied as the Assistant applies it. A simulated consultant acts as the console lets one:
when a paraphrase is not reused and the Ask page offers it as a near miss stopped only by the words (guard
`match`, similarity ≥ NEAR_SIMILARITY), the consultant says it is the same question and the wording is linked
(ApprovedStore.link_question's rule: a wording whose student's case differs is never linked; the case guard runs
before the match, so such a row never reaches the button). Only rows labelled paraphrase are linked: the label
stands for the consultant's judgement. The linked row itself still counts as missed; later rows profit.
The rows that must not be reused (other_case, other_topic) are asked last, with every link of their question in
place — the worst case for wrong reuse. Stale rows need an edit and are measured by `eval --reuse`, not here.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from bench.sets import bench_assistant
from core.evaluation.reuse_calibration import DEV_SETS, approved_for
from core.retrieval.hashes import corpus_hashes, sha256_text
from core.reuse.guards import check
from core.sets.reuse_format import ReuseCase, read_reuse_set
from core.values import ApprovedAnswer
from core.values.reuse import NEAR_SIMILARITY


def run_set(assistant, path: Path) -> Counter:
    hashes = corpus_hashes(assistant.index)
    groups: dict[str, list[ReuseCase]] = defaultdict(list)
    for case in read_reuse_set(path):
        if case.kind != "stale":
            groups[case.approved_question].append(case)
    tally: Counter = Counter()

    def served(answer: ApprovedAnswer, question: str):
        retrieval = assistant.retrieve(question)
        return check(answer, assistant.retrieve(answer.question).terms, retrieval, assistant.gate(retrieval), hashes,
                     {sha256_text(h.text) for h in retrieval.candidates}, assistant.settings.reuse_threshold)

    for number, cases in enumerate(groups.values(), start=1):
        plain = linked = approved_for(assistant, cases[0], number)
        for case in (c for c in cases if c.kind == "paraphrase"):
            tally["paraphrase"] += 1
            tally["before"] += served(plain, case.new_question).served
            result = served(linked, case.new_question)
            if result.served:
                tally["after"] += 1
            elif result.failed == "match" and result.similarity >= NEAR_SIMILARITY:
                linked = replace(linked, questions=(*linked.questions, case.new_question))
                tally["links"] += 1
        for case in (c for c in cases if c.kind != "paraphrase"):
            tally["should_not"] += 1
            tally["wrong_before"] += served(plain, case.new_question).served
            tally["wrong_after"] += served(linked, case.new_question).served
    return tally


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or list(DEV_SETS)
    assistant = bench_assistant()
    print(f"# 顾问把相似问法加入已审答案之后（复用阈值 {assistant.settings.reuse_threshold:.2f}，离线，初始同义词表）\n")
    print("| 题集 | 该复用（paraphrase） | 不加问法时复用 | 边审边加问法后复用 | 加入的问法 | 不该复用 | 错误复用（不加 → 加后） |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    total: Counter = Counter()
    for path in paths:
        t = run_set(assistant, path)
        total.update(t)
        print(_row(path.name, t))
    print(_row("**合计**", total))
    return 0


def _row(name: str, t: Counter) -> str:
    n = t["paraphrase"] or 1
    return (f"| {name} | {t['paraphrase']} | {t['before']} ({t['before'] / n:.1%}) | {t['after']} ({t['after'] / n:.1%}) "
            f"| {t['links']} | {t['should_not']} | {t['wrong_before']} → {t['wrong_after']} |")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
