"""`python -m core eval [SET.csv] [--threshold T] [--k K] [--misses] [--json]`: metrics of a labelled set.

Without SET the packaged default set is used; without --threshold/--k the effective default
(the one saved from the tuning page, else the environment's) is evaluated. With the
answerability decision on (the default) the report leads with what the console does: the
decision with the glossary from the database; the old top-score-only gate follows for
comparison. `--misses` lists every wrong decision with its reason and what a consultant can
do about it. A malformed set exits with code 1 and names the line (via core.cli's XiaoEError
handling).
"""

from __future__ import annotations

import argparse
import json

from core.answerability import (
    CORRECT_ANSWER,
    CORRECT_REFUSAL,
    FALSE_ANSWER,
    FALSE_REFUSAL,
    WRONG_SOURCE,
    EvalSummary,
    QuestionOutcome,
    evaluate_decisions,
    explain_misses,
    summarize,
)
from core.cli_parser import float_between, int_between
from core.defaults_store import effective_settings
from core.evaluation import OUTCOMES, Metrics, evaluate_at, retrieve_set, sweep
from core.glossary_store import GlossaryStore
from core.index_store import load_or_build
from core.question_sets import corpus_catalog, load_default_set, read_question_file
from core.settings import MAX_TOP_K, Settings


def register(subparsers) -> None:
    parser = subparsers.add_parser("eval", help="在标注题集上评测阈值，给出建议阈值",
                                   description="在标注题集上评测当前（或指定的）阈值和 k，并给出建议阈值。")
    parser.add_argument("set_path", nargs="?", metavar="题集文件", help="题集文件（CSV 或 XLSX）；省略时用默认题集")
    parser.add_argument("--threshold", type=float_between(0.0, 1.0), help="阈值（0–1）；省略时用当前生效的默认阈值")
    parser.add_argument("--k", type=int_between(1, MAX_TOP_K), help=f"k（1–{MAX_TOP_K}）；省略时用当前生效的默认 k")
    parser.add_argument("--misses", action="store_true", help="逐条列出判断错误的题、理由和可以怎么改")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = effective_settings(Settings.from_env())
    threshold = settings.min_score if args.threshold is None else args.threshold
    k = settings.top_k if args.k is None else args.k
    bundle = load_or_build(settings)
    files, sections = corpus_catalog(bundle.index)
    questions = (read_question_file(args.set_path, known_files=files, known_sections=sections)
                 if args.set_path else load_default_set())
    retrieved = retrieve_set(questions, bundle.index, fingerprint=bundle.fingerprint)
    metrics = evaluate_at(retrieved, threshold, k).metrics
    curve = sweep(retrieved, k)
    outcomes: tuple[QuestionOutcome, ...] = ()
    glossary_size = 0
    if settings.answerability == "on":
        glossary = GlossaryStore.open(settings).load()
        glossary_size = len(glossary)
        outcomes = evaluate_decisions(questions.questions, bundle, glossary, threshold, k)
    if args.json:
        decision = (decision_dict(summarize(outcomes), glossary_size, outcomes if args.misses else ())
                    if outcomes else None)
        print(json.dumps({"set": args.set_path or "默认题集", "fingerprint": bundle.fingerprint,
                          "decision": decision, "metrics": metrics.to_dict(),
                          "suggested": {"threshold": curve.suggested, "margin": round(curve.suggested_margin, 6),
                                        "lowest_answerable_top": curve.lowest_answerable_top,
                                        "highest_unanswerable_top": curve.highest_unanswerable_top}},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"题集：{args.set_path or '默认题集'}（{metrics.total} 题：应答 {metrics.answerable}，应拒 {metrics.unanswerable}）"
          f"  资料指纹 {bundle.fingerprint}")
    if outcomes:
        print(f"\n可答性判断（控制台、命令行实际使用的判断；同义词表 {glossary_size} 条）：")
        print(format_decision(summarize(outcomes)))
        if args.misses:
            print(format_misses(outcomes))
        print("\n只看最高分的旧闸门（对照）：")
    print(format_table(metrics))
    print(f"建议阈值（k={k}）：{curve.suggested:.2f}，余量 {curve.suggested_margin:.3f}"
          f"（平衡准确率最高，并列时取离各题最高分最远的值）")
    return 0


def format_table(m: Metrics) -> str:
    """A two-column plain-text table of the metrics and outcome counts."""
    def pct(value: float | None) -> str:
        return "—" if value is None else f"{value:.1%}"

    rows = [("阈值", f"{m.threshold:.2f}"), ("k", str(m.k)), ("回答率", pct(m.answered_rate)),
            ("拒答精确率", pct(m.refusal_precision)), ("拒答召回率", pct(m.refusal_recall)),
            ("拒答 F1", pct(m.refusal_f1)), (f"hit@{m.k}", pct(m.hit_at_k)),
            ("平衡准确率", pct(m.balanced_accuracy))]
    rows += [(outcome, str(m.count(outcome))) for outcome in OUTCOMES]
    return _columns(rows)


def _columns(rows: list[tuple[str, str]]) -> str:
    width = max(_width(name) for name, _ in rows)
    return "\n".join(f"  {name}{' ' * (width - _width(name))}  {value}" for name, value in rows)


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)  # CJK takes two terminal columns


def decision_dict(summary: EvalSummary, glossary_size: int, outcomes: tuple[QuestionOutcome, ...]) -> dict:
    """The decision's counts and rates for --json; with `outcomes`, every wrong one too."""
    hints = _hints(outcomes)
    return {"glossary_entries": glossary_size, "total": summary.total, "answerable": summary.answerable,
            "unanswerable": summary.unanswerable, "counts": summary.counts,
            "accuracy": round(summary.accuracy, 6), "answered_with_fact": round(summary.answered_with_fact, 6),
            "refused_near_misses": round(summary.refused_near_misses, 6),
            "misses": [{"question": o.question, "outcome": o.outcome, "reason": o.decision.reason,
                        "hint": hints.get(o.question, "")}
                       for o in outcomes if not o.correct]}


def _hints(outcomes: tuple[QuestionOutcome, ...]) -> dict[str, str]:
    """The consultant's next step for each wrong question (core.answerability.explain_misses)."""
    return {e.question: e.hint for e in explain_misses(outcomes)}


def format_decision(s: EvalSummary) -> str:
    """The issue's two targets first, then every outcome count."""
    def share(part: int, whole: int) -> str:
        return f"{part}/{whole}（{part / whole:.1%}）" if whole else "—"

    c = s.counts
    rows = [("判断正确", share(c[CORRECT_ANSWER] + c[CORRECT_REFUSAL], s.total)),
            ("可答题答出且命中事实", share(c[CORRECT_ANSWER], s.answerable)),
            ("应拒答题已拒答", share(c[CORRECT_REFUSAL], s.unanswerable))]
    rows += [(label, str(c[label])) for label in (FALSE_REFUSAL, FALSE_ANSWER, WRONG_SOURCE)]
    return _columns(rows)


def format_misses(outcomes: tuple[QuestionOutcome, ...]) -> str:
    """One block per wrong decision: the question, the reason given, and the consultant's next step."""
    hints = _hints(outcomes)
    lines = ["\n判断错误的题："]
    for o in outcomes:
        if o.correct:
            continue
        lines.append(f"  [{o.outcome}] {o.question}\n      理由：{o.decision.reason}")
        if o.question in hints:
            lines.append(f"      建议：{hints[o.question]}")
    if len(lines) == 1:
        lines.append("  （没有）")
    return "\n".join(lines)
