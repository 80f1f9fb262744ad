"""Measure the answerability decision: student-phrased and calibration question sets, CMRC refusal AUC.

Run from the repository root:  .venv/bin/python bench/answerability.py [--threshold 0.10] [--k 3]
    [--skip-student] [--skip-cmrc] [--calibrate] [--rules -recut,-units] [--ablation]
Prints markdown tables. `--rules` switches term rules off (as XIAOE_ANSWERABILITY_RULES does);
`--ablation` prints one row per rule of core.answerability_rules.RULES, switched off in turn, on the
development sets and the blind sets, and stops. `--calibrate` fits the three global knobs on the development sets
(tests/data/calibration.csv, written formally; calibration_spoken.csv, written the way students type
in a chat app; five student sets that were each held out once and then became development data)
and stops; `--skip-student` leaves out the held-out sets (tests/data/student_heldout_v6.csv,
student_heldout_v7.csv and student_heldout_v8.csv), which must not be looked at while tuning. The glossary is the
shipped starter (core/data/glossary_starter.csv),
not the database, so the numbers do not depend on anyone's edits. CMRC 2018 data is read from
../shared via bench/cmrc.py (CC BY-SA 4.0, see the attribution printed with the table).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from core.answerability import (  # noqa: E402
    CORRECT_ANSWER,
    CORRECT_REFUSAL,
    DECISION_THRESHOLD,
    DEFAULT_POLICY,
    FALSE_ANSWER,
    FALSE_REFUSAL,
    WRONG_SOURCE,
    Policy,
    analyzer_for,
    assess,
    evaluate_decisions,
    holds_fact,
    make_reranker,
    summarize,
)
from core.answerability_rules import ENV_NAME, RULES, parse_rules  # noqa: E402
from core.glossary import Glossary, expand_query, load_starter  # noqa: E402
from core.index_store import load_or_build  # noqa: E402
from core.rag import candidates_for, retrieve, select  # noqa: E402
from core.settings import MAX_TOP_K, THRESHOLD_ONLY_MIN_SCORE, Settings  # noqa: E402

DATA = ROOT / "tests" / "data"
CALIBRATION_SETS = (("校准集（书面）calibration.csv", "calibration.csv"),
                    ("校准集（口语）calibration_spoken.csv", "calibration_spoken.csv"))
# The held-out set was written by someone who never saw the system, its glossary or its other
# sets, and is run once, after everything else is fixed. The five earlier student sets were each
# held out once too and then became development data (see the README), so they now join the
# calibration sets for the global knobs.
HELDOUT_SETS = (("学员问题留出集 v8 student_heldout_v8.csv（微信口吻，盲写，只测一次）", "student_heldout_v8.csv"),
                ("学员问题留出集 v7 student_heldout_v7.csv（盲写，只测一次）", "student_heldout_v7.csv"),
                ("学员问题留出集 v6 student_heldout_v6.csv（盲写，只测一次；判断规则在 v6 与 v7 之间没有改动）",
                 "student_heldout_v6.csv"))
DEV_STUDENT_SETS = (("学员问题 v5 student_heldout_v5.csv（盲测一次后转为开发集）", "student_heldout_v5.csv"),
                    ("学员问题 v4 student_heldout.csv（盲测一次后转为开发集）", "student_heldout.csv"),
                    ("学员问题 v3 student_questions_v3.csv（测过一次后转为开发集）", "student_questions_v3.csv"),
                    ("学员问题 v2 student_questions_v2.csv（测过一次后转为开发集）", "student_questions_v2.csv"),
                    ("学员问题 v1 student_questions.csv（开发中看过多轮）", "student_questions.csv"))


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def threshold_only(rows, bundle, threshold: float, k: int) -> tuple[int, int, int]:
    """The old gate (top score >= threshold) on the same rows: (correct, answered with fact, refused)."""
    correct = answered_fact = refused = 0
    for row in rows:
        gate = select(row["question"], retrieve(row["question"], bundle.index, k), threshold, k)
        if row["expected"] == "应拒答":
            refused += gate.refused
            correct += gate.refused
        elif not gate.refused and any(holds_fact(h, row["expected"], row["key_phrase"]) for h in gate.candidates):
            answered_fact += 1
            correct += 1
    return correct, answered_fact, refused


def summary_row(label: str, outcomes) -> str:
    s = summarize(outcomes)
    c = s.counts
    return (f"| {label} | {c[CORRECT_ANSWER] + c[CORRECT_REFUSAL]}/{s.total} ({s.accuracy:.1%}) | "
            f"{c[CORRECT_ANSWER]}/{s.answerable} ({s.answered_with_fact:.1%}) | "
            f"{c[CORRECT_REFUSAL]}/{s.unanswerable} ({s.refused_near_misses:.1%}) | "
            f"{c[FALSE_REFUSAL]} | {c[FALSE_ANSWER]} | {c[WRONG_SOURCE]} |")


def report_set(name: str, rows, bundle, glossary: Glossary, threshold: float, k: int, settings_threshold: float) -> None:
    print(f"\n## {name}（{len(rows)} 题，k={k}）\n")
    print("| 设置 | 判断正确 | 可答题答出且命中事实 | 应拒答题已拒答 | 误拒 | 误答 | 命中错误资料 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    main = evaluate_decisions(rows, bundle, glossary, threshold, k)
    print(summary_row(f"可答性判断，阈值 {threshold:.2f}，初始同义词表", main))
    print(summary_row(f"可答性判断，阈值 {threshold:.2f}，不用同义词表",
                      evaluate_decisions(rows, bundle, None, threshold, k)))
    if abs(settings_threshold - threshold) > 1e-9:
        print(summary_row(f"可答性判断，阈值 {settings_threshold:.2f}（Settings 默认），初始同义词表",
                          evaluate_decisions(rows, bundle, glossary, settings_threshold, k)))
    answerable = sum(r["expected"] != "应拒答" for r in rows)
    t = THRESHOLD_ONLY_MIN_SCORE  # the old gate at its own default (XIAOE_ANSWERABILITY=off)
    correct, fact, refused = threshold_only(rows, bundle, t, k)
    n, m = len(rows), len(rows) - answerable
    print(f"| 只看最高分，阈值 {t:.2f}（旧做法） | {correct}/{n} ({correct / n:.1%}) | "
          f"{fact}/{answerable} ({fact / answerable:.1%}) | {refused}/{m} ({refused / m:.1%}) | – | – | – |")
    misses = [o for o in main if not o.correct]
    if misses:
        print(f"\n错误明细（阈值 {threshold:.2f}，初始同义词表）：\n")
        print("| 结果 | 问题 | 判断理由 |")
        print("| --- | --- | --- |")
        for o in misses:
            print(f"| {o.outcome} | {o.question} | {o.decision.reason} |")


FALSE_ANSWER_COST = 2.0  # an invented policy told to a student costs twice a handoff to a human (the seed's rule)


def calibrate(rows, bundle, glossary: Glossary, k: int) -> tuple[float, float, float, float, dict[str, tuple]]:
    """The documented rule for the global knobs, applied on the calibration sets only (never the student set).

    Grid (steps of 0.01): threshold 0.00–0.30, min_coverage 0.30–0.95, max_unknown_weight
    0.30–1.00. Each setting costs 1 per false refusal or wrong-source answer and FALSE_ANSWER_COST
    per near miss it answers. Among the settings with the lowest cost, take the middle of the
    plateau, one knob at a time: the middle threshold that can reach it, then the middle
    min_coverage at that threshold, then the middle max_unknown_weight. The middle, not an edge,
    so that questions phrased differently from the calibration set (and score drift from
    retriever changes) move as few outcomes as possible. Returns (threshold, min_coverage,
    max_unknown_weight, accuracy, the plateau of each knob as (low, high)).
    """
    analyzer = analyzer_for(bundle.index, glossary=glossary)
    grid_t = [round(0.01 * i, 2) for i in range(31)]
    grid_c = np.round(np.arange(30, 96) / 100, 2)
    grid_u = np.round(np.arange(30, 101) / 100, 2)
    rerank = make_reranker(bundle.index, glossary)
    retrieved = [(row, candidates_for(row["question"], bundle.index, expand=lambda q: expand_query(q, glossary),
                                      rerank=rerank)) for row in rows]
    correct: dict[tuple[float, float, float], int] = {}
    costs: dict[tuple[float, float, float], float] = {}
    for t in grid_t:
        refuse, passed, coverage, unknown, fact = [], [], [], [], []
        for row, hits in retrieved:
            kept = select(row["question"], hits, t, k).candidates
            d = assess(row["question"], kept, t, analyzer=analyzer, glossary=glossary, policy=Policy(0.0, 1.0))
            refuse.append(row["expected"] == "应拒答")
            passed.append(d.signals[0].passed and bool(d.terms))
            coverage.append(d.coverage)
            unknown.append(d.signals[2].value)
            fact.append(any(holds_fact(h, row["expected"], row.get("key_phrase") or "") for h in kept))
        refuse, passed, fact = np.array(refuse), np.array(passed), np.array(fact)
        # answered[c, u, question], the same comparisons as assess (>= for coverage, <= for unknown)
        answered = (passed[None, None, :] & (np.array(coverage)[None, None, :] >= grid_c[:, None, None])
                    & (np.array(unknown)[None, None, :] <= grid_u[None, :, None]))
        n = np.where(refuse, ~answered, answered & fact).sum(axis=2)
        cost = (np.where(refuse, answered * FALSE_ANSWER_COST, ~(answered & fact))).sum(axis=2)
        for i, c in enumerate(grid_c):
            for j, u in enumerate(grid_u):
                correct[(t, float(c), float(u))] = int(n[i, j])
                costs[(t, float(c), float(u))] = float(cost[i, j])
    lowest = min(costs.values())
    best = [key for key, value in costs.items() if value == lowest]
    top = correct[best[0]]
    plateaus = {"threshold": sorted({key[0] for key in best})}
    t = _middle(plateaus["threshold"])
    plateaus["min_coverage"] = sorted({key[1] for key in best if key[0] == t})
    c = _middle(plateaus["min_coverage"])
    plateaus["max_unknown_weight"] = sorted({key[2] for key in best if key[:2] == (t, c)})
    u = _middle(plateaus["max_unknown_weight"])
    return t, c, u, top / len(rows), {name: (v[0], v[-1]) for name, v in plateaus.items()}


def _middle(values: list[float]) -> float:
    return values[len(values) // 2]


def roc_auc(labels: list[bool], scores: list[float]) -> float:
    from sklearn.metrics import roc_auc_score
    return float(roc_auc_score(labels, scores))


def report_cmrc(k: int) -> None:
    from cmrc import ATTRIBUTION, load_cmrc

    from core.index import build_index

    data = load_cmrc()
    kept = [p for p in data.passages if p.metadata["source"] not in data.held_out]
    index = build_index(kept)
    rerank = make_reranker(index)
    analyzer = analyzer_for(index)
    full = build_index(data.passages)
    rerank_full = make_reranker(full)
    labels, top, decision, answered, hit1, hit1_reranked = [], [], [], [], 0, 0
    for question, gold in zip(data.questions, data.gold):
        hits = candidates_for(question, index, rerank=rerank)[:k]  # as the console: reranked, then the first k
        d = assess(question, hits, 0.0, analyzer=analyzer)
        labels.append(gold not in data.held_out)
        top.append(max((h.score for h in hits), default=0.0))
        decision.append(d.score)
        answered.append(d.answerable)
        plain = retrieve(question, full, MAX_TOP_K)
        hit1 += bool(plain) and plain[0].source == gold
        reranked = rerank_full(question, plain)
        hit1_reranked += bool(reranked) and reranked[0].source == gold
    n_ans = sum(labels)
    print(f"\n## CMRC 2018 dev：拒答 ROC AUC（{len(labels)} 问，留出 {len(data.held_out)} 篇，k={k}）\n")
    print("| 分数 | 拒答 ROC AUC |")
    print("| --- | --- |")
    print(f"| 只看最高分（旧做法） | {roc_auc(labels, top):.4f} |")
    print(f"| 可答性判断的综合分 | {roc_auc(labels, decision):.4f} |")
    ok_ans = sum(a and y for a, y in zip(answered, labels))
    ok_ref = sum((not a) and (not y) for a, y in zip(answered, labels))
    print(f"\n判断（阈值 0，默认策略）：可答 {ok_ans}/{n_ans} 答出，留出 {ok_ref}/{len(labels) - n_ans} 拒答。")
    print(f"\n全量索引 hit@1：只按分数 {hit1 / len(labels):.4f}，按关键词覆盖重排后（控制台的顺序） "
          f"{hit1_reranked / len(labels):.4f}。")
    print(f"\n数据：{ATTRIBUTION}")


def _counts(rows, bundle, glossary: Glossary, threshold: float, k: int) -> tuple[int, int, float]:
    """(answered with the fact, near misses refused, cost) of the decision on `rows` under the rules
    XIAOE_ANSWERABILITY_RULES switches on; cost as in `calibrate` (FALSE_ANSWER_COST per false answer)."""
    c = summarize(evaluate_decisions(rows, bundle, glossary, threshold, k)).counts
    return (c[CORRECT_ANSWER], c[CORRECT_REFUSAL],
            c[FALSE_REFUSAL] + c[WRONG_SOURCE] + FALSE_ANSWER_COST * c[FALSE_ANSWER])


def report_ablation(bundle, glossary: Glossary, threshold: float, k: int, base) -> None:
    """One row per term rule switched off (from `base`), on the development sets and each blind set."""
    groups = [("开发集（7 份）", [r for _, f in (*CALIBRATION_SETS, *DEV_STUDENT_SETS) for r in read_rows(DATA / f)])]
    groups += [(file.removeprefix("student_heldout_").removesuffix(".csv"), read_rows(DATA / file))
               for _, file in HELDOUT_SETS if (DATA / file).exists()]
    sizes = [(sum(r["expected"] != "应拒答" for r in rows), sum(r["expected"] == "应拒答" for r in rows))
             for _, rows in groups]
    blind = [[i for i, (name, _) in enumerate(groups) if name in ("v6", "v7")],
             [i for i, (name, _) in enumerate(groups) if name == "v8"]]
    print(f"# 规则消融：每次关掉一条规则（k={k}，阈值 {threshold:.2f}，初始同义词表 {len(glossary)} 条；起点：{base.label}）\n")
    print("每格是“答出且命中事实 / 近似题已拒答”；代价 = 误拒 + 命中错误资料 + "
          f"{FALSE_ANSWER_COST:g} × 误答；“代价变化”是关掉这条规则后代价的变化，正数说明这条规则有用。\n")
    head = " | ".join(f"{name}（{a} / {m}）" for (name, _), (a, m) in zip(groups, sizes))
    deltas = ["开发集代价变化", "v6+v7 代价变化"] + (["v8 代价变化"] if blind[1] else [])
    print(f"| 关掉的规则 | {head} | {' | '.join(deltas)} |")
    print("| --- | " + "--- | " * (len(groups) + len(deltas)))
    previous = os.environ.get(ENV_NAME)
    try:
        baseline = None
        for rule in (None, *(r for r in RULES if base.on(r.name))):
            rules = base if rule is None else base.without(rule.name)
            os.environ[ENV_NAME] = ",".join(rules.enabled) if rules.enabled else "none"
            results = [_counts(rows, bundle, glossary, threshold, k) for _, rows in groups]
            if baseline is None:
                baseline = results
            cells = " | ".join(f"{fact} / {refused}" for fact, refused, _ in results)
            changes = [results[0][2] - baseline[0][2]] + [sum(results[i][2] - baseline[i][2] for i in group)
                                                           for group in blind if group]
            label = "（不关，起点）" if rule is None else f"`{rule.name}` {rule.summary_zh}"
            print(f"| {label} | {cells} | {' | '.join(f'{c:+g}' for c in changes)} |")
    finally:
        if previous is None:
            os.environ.pop(ENV_NAME, None)
        else:
            os.environ[ENV_NAME] = previous


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=DECISION_THRESHOLD)
    parser.add_argument("--k", type=int, default=None)
    parser.add_argument("--skip-cmrc", action="store_true")
    parser.add_argument("--skip-student", action="store_true",
                        help="leave out the held-out student sets (use while tuning)")
    parser.add_argument("--calibrate", action="store_true", help="apply the calibration rule and stop")
    parser.add_argument("--rules", help="term rules to switch off (-recut,-units) or to keep (see core.answerability_rules)")
    parser.add_argument("--ablation", action="store_true", help="each term rule off in turn: print the table and stop")
    args = parser.parse_args(argv)
    if args.rules is not None:
        os.environ[ENV_NAME] = args.rules
    rules = parse_rules(os.environ.get(ENV_NAME))
    settings = Settings.from_env()
    k = args.k or settings.top_k
    bundle = load_or_build(settings)
    glossary = load_starter()
    if args.ablation:
        report_ablation(bundle, glossary, args.threshold, k, rules)
        return 0
    if args.calibrate:
        rows = [row for _, file in (*CALIBRATION_SETS, *DEV_STUDENT_SETS) for row in read_rows(DATA / file)]
        t, c, u, accuracy, plateaus = calibrate(rows, bundle, glossary, k)
        sizes = "、".join(f"{file} {len(read_rows(DATA / file))} 题" for _, file in (*CALIBRATION_SETS,
                                                                                    *DEV_STUDENT_SETS))
        print(f"校准题：{sizes}，合计 {len(rows)} 题（k={k}，初始同义词表）\n")
        print("| 参数 | 校准结果 | 最优区域 | 代码里的默认值 |\n| --- | --- | --- | --- |")
        for label, name, value, default in (
                ("阈值 DECISION_THRESHOLD", "threshold", t, DECISION_THRESHOLD),
                ("最低覆盖率 min_coverage", "min_coverage", c, DEFAULT_POLICY.min_coverage),
                ("资料外词的最大权重 max_unknown_weight", "max_unknown_weight", u, DEFAULT_POLICY.max_unknown_weight)):
            low, high = plateaus[name]
            print(f"| {label} | {value:.2f} | {low:.2f}–{high:.2f} | {default:.2f} |")
        print(f"\n两份校准集合计判断正确率 {accuracy:.1%}")
        return 0
    print(f"# 可答性判断评测\n\n资料指纹 {bundle.fingerprint}，{len(bundle.index)} 个片段，初始同义词表 {len(glossary)} 条，"
          f"{rules.label}。")
    sets = (*DEV_STUDENT_SETS, *CALIBRATION_SETS) if args.skip_student else (*HELDOUT_SETS, *DEV_STUDENT_SETS,
                                                                              *CALIBRATION_SETS)
    for name, file in sets:
        report_set(name, read_rows(DATA / file), bundle, glossary, args.threshold, k, settings.min_score)
    if not args.skip_cmrc:
        report_cmrc(k)
    return 0


if __name__ == "__main__":
    sys.exit(main())
