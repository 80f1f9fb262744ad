"""Measure the one gate on every labelled set and CMRC 2018 dev, side by side with the threshold-only gate.

Run from the repository root:  .venv/bin/python bench/answerability.py [--skip-student] [--skip-cmrc]
    [--calibrate] [--rules=-homophones,-courtesy] [--ablation]
Prints markdown tables. `--rules` switches term rules off as XIAOE_ANSWERABILITY_RULES does;
`--ablation` prints one row per term rule of core.answerability.rules.RULES switched off in turn
(development sets, v6+v7, v8, v9, v10) and stops. Every number comes from the same Assistant and gate as the console
(core.assistant, core.answerability.gate) with the shipped starter glossary. `--calibrate` prints what
`python -m core calibrate` would write (the rule in core/evaluation/calibration.py, on its calibration
sets) and stops; `--skip-student` leaves out the held-out student sets (v6 to v10), which must not
be looked at while tuning. CMRC 2018 data is read from ../shared via bench/cmrc.py (CC BY-SA 4.0,
see the attribution printed with the table).
"""

from __future__ import annotations

import argparse
import os
import sys

from bench.sets import CALIBRATION_SETS, DEV_STUDENT_SETS, HELDOUT_SETS, bench_assistant, run
from core.answerability.rules import ENV_NAME, RULES, RuleSet, parse_rules
from core.assistant import build_assistant
from core.evaluation.calibration import run_calibration
from core.evaluation.metrics import (
    CORRECT_ANSWER,
    CORRECT_REFUSAL,
    FALSE_ANSWER,
    FALSE_REFUSAL,
    OUTCOMES,
    WRONG_SOURCE,
    Metrics,
)
from core.knobs import LABELS
from core.retrieval.index import build_index
from core.settings import THRESHOLD_ONLY_MIN_SCORE, Settings


def summary_row(label: str, m: Metrics) -> str:
    def share(a: int, b: int) -> str:
        return f"{a}/{b} ({a / b:.1%})" if b else "–"

    return (f"| {label} | {share(m.correct, m.total)} | {share(m.count(CORRECT_ANSWER), m.answerable)} | "
            f"{share(m.count(CORRECT_REFUSAL), m.unanswerable)} | {m.count(FALSE_REFUSAL)} | "
            f"{m.count(FALSE_ANSWER)} | {m.count(WRONG_SOURCE)} |")


def report_set(name: str, file: str, on, bare, off, k: int) -> None:
    evaluated, evaluation = run(on, file, on.knobs.with_(k=k))
    print(f"\n## {name}（{len(evaluated)} 题，k={k}）\n")
    print("| 设置 | 判断正确 | 可答题答出且命中事实 | 应拒答题已拒答 | 误拒 | 误答 | 命中错误资料 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(summary_row(f"一个闸门（{on.knobs.with_(k=k).describe()}，初始同义词表）", evaluation.metrics))
    print(summary_row("同上，不用同义词表", run(bare, file, on.knobs.with_(k=k))[1].metrics))
    t = THRESHOLD_ONLY_MIN_SCORE
    print(summary_row(f"只看排序分，阈值 {t:.2f}（关闭可答性判断）", run(off, file, off.knobs.with_(threshold=t, k=k))[1].metrics))
    misses = [(o, g) for o, g in zip(evaluation.outcomes, evaluation.gates) if o not in (CORRECT_ANSWER, CORRECT_REFUSAL)]
    if misses:
        print("\n错误明细（一个闸门，初始同义词表）：\n")
        print("| 结果 | 问题 | 判断理由 |")
        print("| --- | --- | --- |")
        for outcome, gate in misses:
            print(f"| {outcome} | {gate.question} | {gate.reason} |")


def roc_auc(labels: list[bool], scores: list[float]) -> float:
    from sklearn.metrics import roc_auc_score
    return float(roc_auc_score(labels, scores))


def report_cmrc(settings: Settings, k: int) -> None:
    """Refusal AUC of the decision score with held-out passages, and hit@1 of the ranking on the full index."""
    from bench.cmrc import ATTRIBUTION, load_cmrc

    data = load_cmrc()
    index = build_index(data.reduced())
    full = build_index(data.passages)
    on = bench_assistant_for_index(settings, index)
    on_full = bench_assistant_for_index(settings, full)
    off_full = bench_assistant_for_index(settings, full, answerability="off")
    knobs = on.knobs.with_(threshold=0.0, k=k)
    labels, top, decision, answered, hit1, hit1_ranked = [], [], [], [], 0, 0
    for question, gold in zip(data.questions, data.gold):
        gate = on.gate(on.retrieve(question), knobs)
        labels.append(gold not in data.held_out)
        top.append(max((h.score for h in gate.candidates), default=0.0))
        decision.append(gate.decision.score if gate.decision else 0.0)
        answered.append(not gate.refused)
        plain = off_full.retrieve(question).candidates
        hit1 += bool(plain) and plain[0].source == gold
        ranked = on_full.retrieve(question).candidates
        hit1_ranked += bool(ranked) and ranked[0].source == gold
    n_ans = sum(labels)
    print(f"\n## CMRC 2018 dev：拒答 ROC AUC（{len(labels)} 问，留出 {len(data.held_out)} 篇，k={k}）\n")
    print("| 分数 | 拒答 ROC AUC |")
    print("| --- | --- |")
    print(f"| 只看最高检索分（旧做法） | {roc_auc(labels, top):.4f} |")
    print(f"| 可答性判断的综合分 | {roc_auc(labels, decision):.4f} |")
    ok_ans = sum(a and y for a, y in zip(answered, labels))
    ok_ref = sum((not a) and (not y) for a, y in zip(answered, labels))
    print(f"\n判断（阈值 0，其余为默认参数）：可答 {ok_ans}/{n_ans} 答出，留出 {ok_ref}/{len(labels) - n_ans} 拒答。")
    print(f"\n全量索引 hit@1：只按检索分 {hit1 / len(labels):.4f}，按排序分（控制台的顺序） "
          f"{hit1_ranked / len(labels):.4f}。")
    print(f"\n数据：{ATTRIBUTION}")


def bench_assistant_for_index(settings: Settings, index, answerability: str = "on"):
    """The Assistant over a CMRC index: no glossary (the school's glossary means nothing there)."""
    return build_assistant(settings.with_(answerability=answerability), index, None)


def _counts(settings: Settings, groups) -> list[tuple[int, int, float]]:
    """(answered with the fact, near misses refused, cost) per group of sets, with the rules
    XIAOE_ANSWERABILITY_RULES switches on now (the Assistant is rebuilt, the analyzer cache is per rule set)."""
    assistant = bench_assistant(settings)
    out = []
    for _, files in groups:
        fact = refused = 0
        cost = 0.0
        for file in files:
            m = run(assistant, file)[1].metrics
            counts = dict(zip(OUTCOMES, m.counts))
            fact, refused, cost = fact + counts[CORRECT_ANSWER], refused + counts[CORRECT_REFUSAL], cost + m.cost
        out.append((fact, refused, cost))
    return out


def report_ablation(settings: Settings, base: RuleSet, groups: list | None = None) -> None:
    """One row per term rule switched off (from `base`): the development sets, v6+v7, v8, v9 and v10 (or `groups`)."""
    groups = groups or [("开发集（7 份）", [f for _, f in (*CALIBRATION_SETS, *DEV_STUDENT_SETS)]),
              ("v6+v7", ["student_heldout_v6.csv", "student_heldout_v7.csv"]), ("v8", ["student_heldout_v8.csv"]),
              ("v9", ["student_heldout_v9.csv"]), ("v10", ["student_heldout_v10.csv"])]
    print(f"# 规则消融：每次关掉一条规则（现在的闸门和旋钮，初始同义词表；起点：{base.label}）\n")
    print("每格是“答出且命中事实 / 近似题已拒答”；代价 = 误拒 + 命中错误资料 + 2 × 误答，"
          "括号里是关掉这条规则后代价的变化，正数说明这条规则有用。\n")
    print("| 关掉的规则 | " + " | ".join(name for name, _ in groups) + " |")
    print("| --- | " + "--- | " * len(groups))
    baseline = None
    for rule in (None, *(r for r in RULES if base.on(r.name))):
        rules = base if rule is None else base.without(rule.name)
        # the Assistant reads its rules from the settings (read once at start), so each row passes its own: setting
        # the environment variable here, as this did, changed nothing and printed +0 for every rule
        switched = settings.with_(answerability_rules=",".join(sorted(rules.enabled)) if rules.enabled else "none")
        results = _counts(switched, groups)
        baseline = baseline or results
        cells = " | ".join(f"{fact} / {refused}（{cost - b[2]:+g}）"
                           for (fact, refused, cost), b in zip(results, baseline))
        label = "（不关，起点）" if rule is None else f"`{rule.name}` {rule.summary_zh}"
        print(f"| {label} | {cells} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=None)
    parser.add_argument("--skip-cmrc", action="store_true")
    parser.add_argument("--skip-student", action="store_true",
                        help="leave out the held-out student sets (use while tuning)")
    parser.add_argument("--calibrate", action="store_true", help="apply the calibration rule and stop")
    parser.add_argument("--rules", help="term rules to switch off (--rules=-homophones) or to keep (core.answerability.rules)")
    parser.add_argument("--ablation", action="store_true", help="each term rule off in turn: print the table and stop")
    args = parser.parse_args(argv)
    if args.rules is not None:
        os.environ[ENV_NAME] = args.rules
    rules = parse_rules(os.environ.get(ENV_NAME))
    settings = Settings.from_env()
    if args.ablation:
        report_ablation(settings, rules)
        return 0
    if args.calibrate:
        result = run_calibration(settings, k=args.k)
        print(f"校准题：{'、'.join(result.sets)}，合计 {result.questions} 题\n")
        print("| 参数 | 校准结果 | 最优区域 |\n| --- | --- | --- |")
        for name in ("threshold", "min_coverage", "max_unknown_weight"):
            low, high = result.decision.plateaus[name]
            print(f"| {LABELS[name]} | {getattr(result.decision.knobs, name):.2f} | {low:.2f}–{high:.2f} |")
        print(f"| 关闭可答性判断时的阈值 | {result.threshold_only.knobs.threshold:.2f} | "
              f"{result.threshold_only.plateaus['threshold'][0]:.2f}–{result.threshold_only.plateaus['threshold'][1]:.2f} |")
        return 0
    on = bench_assistant(settings)
    k = args.k or on.knobs.k
    bare = bench_assistant(settings, glossary=None)
    off = bench_assistant(settings, answerability="off")
    print(f"# 一个闸门的评测\n\n资料指纹 {on.fingerprint}，{len(on.index)} 个片段，初始同义词表 {len(on.glossary)} 条，"
          f"{rules.label}。")
    sets = (*DEV_STUDENT_SETS, *CALIBRATION_SETS) if args.skip_student else (*HELDOUT_SETS, *DEV_STUDENT_SETS,
                                                                              *CALIBRATION_SETS)
    for name, file in sets:
        report_set(name, file, on, bare, off, k)
    if not args.skip_cmrc:
        report_cmrc(settings, k)
    return 0


if __name__ == "__main__":
    sys.exit(main())
