"""`python -m core ask` and `python -m core demo`: the seed-style report on the command line."""

from __future__ import annotations

import argparse
import json
import sys

from core.db import open_database
from core.defaults_store import effective_settings
from core.errors import InvalidQuestion, ModelError
from core.llm import ScriptedChatModel
from core.pipeline import open_pipeline
from core.providers import make_chat_model
from core.rag import RAGAnswer
from core.references import resolve_refs
from core.review import ReviewStore
from core.settings import MAX_TOP_K, Settings

DEMO_QUESTIONS = (
    "启明英语的口语课一共有几级？",
    "你们的雅思保过班多少钱？",
    "我报了口语课三级，学费 4800，上了 4 课时不想学了，能退多少钱？",
)
FABRICATED = "口语课一共六级，每级 12 课时[7]。"


def register(subparsers) -> None:
    ask = subparsers.add_parser("ask", help="问一个问题，打印召回、回答与出处检查")
    ask.add_argument("question", help="学员的问题")
    ask.add_argument("--k", type=int, default=None, help=f"召回条数（1–{MAX_TOP_K}）")
    ask.add_argument("--min-score", type=float, default=None, help="阈值（0–1）")
    ask.add_argument("--json", action="store_true", help="输出 JSON")
    ask.set_defaults(handler=run_ask)
    demo = subparsers.add_parser("demo", help="重放三个示例问题和一个编造出处的回答")
    demo.set_defaults(handler=run_demo)


def _settings(args: argparse.Namespace) -> Settings:
    settings = effective_settings(Settings.from_env())  # the default saved on the tuning page wins over env
    return settings.with_defaults(min_score=args.min_score, top_k=args.k)


def run_ask(args: argparse.Namespace) -> int:
    if args.k is not None and not 1 <= args.k <= MAX_TOP_K:
        raise InvalidQuestion(f"--k（{args.k}）必须在 1 到 {MAX_TOP_K} 之间。")
    settings = _settings(args)
    pipeline = open_pipeline(settings)
    gate = pipeline.prepare(args.question, k=settings.top_k, min_score=settings.min_score)
    try:  # the configured model, under the same whole-answer deadline as the page (core/deadline.py)
        result = pipeline.answer(args.question, make_chat_model(settings), k=settings.top_k,
                                 min_score=settings.min_score)
    except ModelError as error:
        item = ReviewStore(open_database(settings.db_url)).enqueue_failure(
            gate.question, message=str(error), kind=error.kind, threshold=gate.threshold, k=gate.k,
            candidates=gate.candidates, fingerprint=pipeline.bundle.fingerprint)
        print(f"错误：{error}", file=sys.stderr)
        print(f"已记入复核队列 #{item}（模型故障）。", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render_report(result))
    return 0


def render_report(result: RAGAnswer) -> str:
    """The seed-style plain-text report: candidates, answer, citation table, check result."""
    lines = [f"问题：{result.question}", f"召回 {len(result.candidates)} 条，阈值 {result.threshold:.2f}："]
    for hit in result.candidates:
        state = "命中" if hit.passed else "低于阈值"
        lines.append(f"  [{hit.rank}] {hit.score:+.3f}  {state}  {hit.source} · {hit.heading}")
    lines.append("")
    lines.append(f"回答：{result.text}")
    if result.reason and not result.refused:
        lines.append(f"  判断依据：{result.reason}")
    if result.refused:
        lines.append(f"  原因：{result.reason}")
        lines.append(f"  模型有没有被调用：{'有' if result.model_called else '没有'}")
        return "\n".join(lines)
    refs = resolve_refs(result.text, [h.document for h in result.hits])
    if refs:
        lines += ["", "引用来源：", "编号  文件  小节  片段预览"]
        lines += [f"[{r.number}]  {r.source}  {r.heading}  {r.excerpt}" for r in refs]
    lines.append("")
    if result.problems:
        lines.append("出处校验：发现问题")
        lines += [f"  ✗ {p.message}" for p in result.problems]
        lines.append("处理方式：这条回答不返回给学员，记录进待复核队列")
    else:
        lines.append("出处校验：通过")
    return "\n".join(lines)


def run_demo(args: argparse.Namespace) -> int:
    settings = effective_settings(Settings.from_env())
    pipeline = open_pipeline(settings)
    for number, question in enumerate(DEMO_QUESTIONS, start=1):
        print(f"===== 场景 {number} =====")
        print(render_report(pipeline.answer(question, k=settings.top_k, min_score=settings.min_score)))
        print()
    print("===== 场景 4：模型编造了不存在的出处 =====")
    scripted = ScriptedChatModel(responses=[FABRICATED])
    print(render_report(pipeline.answer(DEMO_QUESTIONS[0], scripted, k=settings.top_k, min_score=settings.min_score)))
    return 0
