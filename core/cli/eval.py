"""`python -m core eval [SET] [--min-score T] [--k K] [--min-coverage C] [--max-unknown-weight U] [--misses] [--json]
[--save-run NAME]` (and `--with-model`: the whole chain with the configured model, in core/cli/eval_model.py).

`--save-run NAME` keeps the result as a run (core.stores.runs) that `python -m core runs compare` compares
question by question with any other.

The labelled set goes through the same Assistant and gate as `python -m core ask` (retrieved
and ranked once, then core.answerability.gate.decide at the given knobs), so for any set and knobs every
question's `refused` here equals `ask` with the same values, and the tuning page's headline
numbers equal these. Without SET the packaged default set is used; without knob flags the
knobs in force (calibrated, environment, saved default). `--misses` lists every wrong decision
with its reason and what a consultant can do about it. A malformed set exits with code 1 and
names the line (via core.cli's XiaoEError handling).
"""

from __future__ import annotations

import argparse
import json

from core.assistant import open_assistant
from core.cli.knobs import add_knob_flags, knobs_from_args
from core.errors import ConfigError
from core.evaluation.answer_texts import AnswerTexts, answer_texts
from core.evaluation.metrics import (
    CORRECT_ANSWER,
    CORRECT_REFUSAL,
    FALSE_ANSWER,
    FALSE_REFUSAL,
    OUTCOMES,
    WRONG_SOURCE,
    Metrics,
    evaluate_at,
    evaluate_set,
    row_reason,
    suggest,
)
from core.evaluation.misses import explain_misses
from core.evaluation.reuse_outcomes import with_reuse
from core.sets.format import GONE_REASON
from core.settings import Settings
from core.stores.question_sets import corpus_catalog, load_default_set, read_question_file
from core.stores.runs import valid_run_name


def register(subparsers) -> None:
    parser = subparsers.add_parser("eval", help="在标注题集上评测闸门，给出建议参数",
                                   description="在标注题集上评测当前（或指定的）闸门参数，并给出建议参数。"
                                               "与 ask 命令、提问页和调优页用同一个闸门。")
    parser.add_argument("set_path", nargs="?", metavar="题集文件", help="题集文件（CSV 或 XLSX）；省略时用默认题集")
    add_knob_flags(parser)
    parser.add_argument("--misses", action="store_true", help="逐条列出判断错误的题、理由和可以怎么改")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出")
    parser.add_argument("--reuse", metavar="复用评测集", dest="reuse_set",
                        help="不评测闸门，改为评测已审答案的复用：读复用评测集（CSV，各列的写法见文档「已审答案」），"
                             "每行在新的数据目录里通过一条已审答案、按要求改资料后问新问题")
    parser.add_argument("--save-run", metavar="运行名", dest="save_run",
                        help="把这次评测保存为一次运行（题集、资料指纹和小节、参数、同义词表、每题结果），"
                             "之后可用 python -m core runs compare 逐题比较")
    parser.add_argument("--no-reuse", action="store_true", help="不用已审答案作答，只评测闸门本身")
    parser.add_argument("--with-model", action="store_true",
                        help="用已配置的回答模型跑完整流程（闸门 + 模型判定 + 回答），先给出预计用量，"
                             "最后列出答对率和模型判定的一致情况；会调用模型、产生费用")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.save_run is not None:
        if args.reuse_set or args.with_model:
            raise ConfigError("--save-run 只能保存闸门评测的结果，暂不能和 --reuse、--with-model 一起用。")
        args.save_run = valid_run_name(args.save_run)  # refused before the evaluation, not after it
    if args.reuse_set:
        from core.cli.eval_reuse import run as run_reuse

        return run_reuse(args)
    if args.with_model:
        from core.cli.eval_model import run as run_with_model

        if args.json or args.misses:
            raise ConfigError("--with-model 暂不能和 --json、--misses 一起用，请分开运行。")
        return run_with_model(args)
    settings = Settings.from_env()
    assistant = open_assistant(settings.with_(reuse="off") if args.no_reuse else settings, with_model=False)
    knobs = knobs_from_args(args, assistant.knobs)
    # A row whose expected section is gone is evaluated as a miss (core.sets.format.mark_gone), not refused: after a
    # deletion, this is how `runs compare` shows what it broke. A file name the corpus never had is still refused.
    files, _sections = corpus_catalog(assistant.index)
    questions = read_question_file(args.set_path, known_files=files) if args.set_path else load_default_set()
    evaluated = evaluate_set(assistant, questions)
    reused = with_reuse(assistant, evaluate_at(evaluated, knobs))
    evaluation = reused.evaluation
    suggestion = suggest(evaluated, knobs.k, knobs)
    hints = {e.question: e.hint for e in explain_misses(evaluated, evaluation)}
    stated = answer_texts(assistant, evaluation, reused.texts)
    name = args.set_path or "默认题集"
    saved = _save_run(args, assistant, evaluation, name, reused.answers) if args.save_run is not None else None
    if args.json:
        print(json.dumps({
            "set": name, "fingerprint": assistant.fingerprint, "knobs": knobs.to_dict(),
            "glossary_entries": len(assistant.glossary or ()),
            "metrics": {**evaluation.metrics.to_dict(), "fact_in_answer": stated.count},
            **({"reused": {str(evaluated.questions[i].line): a for i, a in reused.answers.items()}}
               if reused.answers else {}),
            "suggested": {**suggestion.knobs.to_dict(), "cost": suggestion.cost,
                          "plateaus": {k: list(v) for k, v in suggestion.plateaus.items()}},
            "questions": [{"question": q.question, "refused": g.refused, "expected": q.expectation,
                           "outcome": o, "reason": row_reason(q, g), "gone": q.gone,
                           "reason_code": g.decision.reason_code if g.refused and g.decision else "",
                           "answer": text, "fact_in_answer": fact, "hint": hints.get(q.question, ""),
                           "hits": [h.to_dict() for h in g.candidates]}
                          for q, g, o, text, fact in zip(evaluated.questions, evaluation.gates, evaluation.outcomes,
                                                         stated.texts, stated.stated)],
            **({"saved_run": saved} if saved else {})},
            ensure_ascii=False, indent=2))
        return 0
    m = evaluation.metrics
    print(f"题集：{name}（{m.total} 题：应答 {m.answerable}，应拒 {m.unanswerable}）  资料指纹 {assistant.fingerprint}")
    print(f"闸门参数：{knobs.describe()}；同义词表 {len(assistant.glossary or ())} 条")
    print(format_table(m, stated))
    if gone := [q for q in evaluated.questions if q.gone]:
        print(f"其中 {len(gone)} 题{GONE_REASON}，按未答对计（把小节补回资料，或按现在的资料改题集）："
              + "；".join(f"第 {q.line} 行（{q.gone}）" for q in gone))
    if reused.answers:
        print(f"其中 {len(reused.answers)} 题由已审答案回答（--no-reuse 只评测闸门本身）")
    if args.misses:
        print(format_misses(evaluated, evaluation, hints))
    if saved:
        print(f"已保存为运行「{saved}」（python -m core runs compare 另一次运行 {saved} 可逐题比较）")
    s = suggestion.metrics
    print(f"建议参数（k={knobs.k}）：{suggestion.knobs.describe()}，判断正确 {s.correct}/{s.total}，代价 {s.cost:g}"
          "（误拒、命中错误资料各记 1，误答记 2；代价最低的区域取中间）")
    return 0


def _save_run(args: argparse.Namespace, assistant, evaluation, set_name: str, reused: dict[int, int]) -> str:
    from core.cli.runs import actor, store
    from core.evaluation.runs import run_from_evaluation

    run = run_from_evaluation(args.save_run, assistant, evaluation, set_name=set_name, set_version=None,
                              actor=actor(), reused=reused)
    return store().save(run).name


def format_table(m: Metrics, stated: AnswerTexts | None = None) -> str:
    """The issue's two targets first, then every rate and outcome count, as plain-text columns; with `stated`, how
    many answerable questions got an answer whose text states the fact (core.evaluation.answer_texts)."""
    def share(part: int, whole: int) -> str:
        return f"{part}/{whole}（{part / whole:.1%}）" if whole else "—"

    def pct(value: float | None) -> str:
        return "—" if value is None else f"{value:.1%}"

    rows = [("判断正确", share(m.correct, m.total)),
            ("可答题答出且命中事实", share(m.count(CORRECT_ANSWER), m.answerable)),
            ("应拒答题已拒答", share(m.count(CORRECT_REFUSAL), m.unanswerable)),
            *((("可答题回答里写出事实", share(stated.count, m.answerable)),) if stated is not None else ()),
            ("回答率", pct(m.answered_rate)), ("拒答精确率", pct(m.refusal_precision)),
            ("拒答 F1", pct(m.refusal_f1)), ("平衡准确率", pct(m.balanced_accuracy)), ("代价", f"{m.cost:g}")]
    rows += [(label, str(m.count(label))) for label in (FALSE_REFUSAL, FALSE_ANSWER, WRONG_SOURCE)]
    return _columns(rows)


def _columns(rows: list[tuple[str, str]]) -> str:
    width = max(_width(name) for name, _ in rows)
    return "\n".join(f"  {name}{' ' * (width - _width(name))}  {value}" for name, value in rows)


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)  # CJK takes two terminal columns


def format_misses(evaluated, evaluation, hints: dict[str, str]) -> str:
    """One block per wrong decision: the question, the reason given, and the consultant's next step."""
    lines = ["\n判断错误的题："]
    for q, g, o in zip(evaluated.questions, evaluation.gates, evaluation.outcomes):
        if o in (CORRECT_ANSWER, CORRECT_REFUSAL):
            continue
        lines.append(f"  [{o}] {q.question}\n      理由：{row_reason(q, g)}")
        if q.question in hints:
            lines.append(f"      建议：{hints[q.question]}")
    if len(lines) == 1:
        lines.append("  （没有）")
    return "\n".join(lines)


__all__ = ["OUTCOMES", "format_table", "register", "run"]
