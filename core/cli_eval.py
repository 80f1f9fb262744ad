"""`python -m core eval [SET.csv] [--threshold T] [--k K] [--json]`: metrics of a labelled set.

Without SET the packaged default set is used; without --threshold/--k the effective default
(the one saved from the tuning page, else the environment's) is evaluated. A malformed set
exits with code 1 and names the line (via core.cli's XiaoEError handling).
"""

from __future__ import annotations

import argparse
import json

from core.defaults_store import effective_settings
from core.evaluation import OUTCOMES, Metrics, evaluate_at, retrieve_set, sweep
from core.index_store import load_or_build
from core.question_sets import corpus_catalog, load_default_set, read_question_file
from core.settings import MAX_TOP_K, Settings


def register(subparsers) -> None:
    parser = subparsers.add_parser("eval", help="在标注题集上评测阈值，给出建议阈值",
                                   description="在标注题集上评测当前（或指定的）阈值和 k，并给出建议阈值。")
    parser.add_argument("set_path", nargs="?", metavar="SET", help="题集文件（CSV 或 XLSX）；省略时用默认题集")
    parser.add_argument("--threshold", type=float, help="阈值（0–1）；省略时用当前生效的默认阈值")
    parser.add_argument("--k", type=int, help=f"k（1–{MAX_TOP_K}）；省略时用当前生效的默认 k")
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
    if args.json:
        print(json.dumps({"set": args.set_path or "默认题集", "fingerprint": bundle.fingerprint,
                          "metrics": metrics.to_dict(),
                          "suggested": {"threshold": curve.suggested, "margin": round(curve.suggested_margin, 6),
                                        "lowest_answerable_top": curve.lowest_answerable_top,
                                        "highest_unanswerable_top": curve.highest_unanswerable_top}},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"题集：{args.set_path or '默认题集'}（{metrics.total} 题：应答 {metrics.answerable}，应拒 {metrics.unanswerable}）"
          f"  资料指纹 {bundle.fingerprint}")
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
    width = max(_width(name) for name, _ in rows)
    return "\n".join(f"  {name}{' ' * (width - _width(name))}  {value}" for name, value in rows)


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)  # CJK takes two terminal columns
