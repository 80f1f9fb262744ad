"""`python -m core ask` and `python -m core demo`: the seed-style report on the command line.

Both go through the one Assistant with the configured chat model (the offline answerer when none
is configured). `ask` records its one outcome in the review queue the way the Ask page does (`ReviewStore.record`:
flagged answers, refusals, model failures) unless `--no-queue` is given, and says which item it wrote;
`demo` writes nothing to the queue and says so.
"""

from __future__ import annotations

import argparse
import json

from core.answering.offline import ScriptedChatModel
from core.assistant import Assistant, open_assistant
from core.cli.knobs import add_knob_flags, knobs_from_args
from core.errors import ModelError
from core.knobs import Knobs
from core.settings import Settings
from core.stores.db import open_database
from core.stores.review import ReviewStore
from core.values import RAGAnswer

DEMO_QUESTIONS = (
    "启明英语的口语课一共有几级？",
    "你们的雅思保过班多少钱？",
    "我报了口语课三级，活动价交了 4000，上了 4 课时不想学了，能退多少钱？",  # what was paid: the documents compute from it
)
FABRICATED = "口语课一共六级，每级 12 课时[7]。"


def register(subparsers) -> None:
    ask = subparsers.add_parser("ask", help="问一个问题，打印召回、判断、回答与出处检查")
    ask.add_argument("question", help="学员的问题")
    add_knob_flags(ask)
    ask.add_argument("--no-queue", action="store_true", help="不写入复核队列（默认和提问页一样写入）")
    ask.add_argument("--conversation", metavar="会话编号", default=None,
                     help="把问题当作这个学员会话的下一句来读（追问改写成独立问题）；只是试，不写进会话")
    ask.add_argument("--json", action="store_true", help="输出 JSON")
    ask.set_defaults(handler=run_ask)
    demo = subparsers.add_parser("demo", help="重放三个示例问题和一个编造出处的回答（不写入复核队列）")
    demo.set_defaults(handler=run_demo)


def run_ask(args: argparse.Namespace) -> int:
    assistant = open_assistant(Settings.from_env())
    knobs = knobs_from_args(args, assistant.knobs)
    store = None if args.no_queue else ReviewStore(open_database(assistant.settings.db_url))
    read = None
    question = args.question
    if args.conversation:
        from core.stores.turns import TurnStore
        previous = TurnStore(open_database(assistant.settings.db_url)).last_turn(args.conversation)
        read = assistant.in_context(args.question, previous)
        question = read.question
    outcome = assistant.respond(question, knobs)
    queued = store.record(outcome) if store is not None else None
    if outcome.failure is not None:
        where = f"（已记入复核队列「模型故障」#{queued}）" if queued is not None else ""
        raise ModelError(f"{outcome.failure.message}{where}", kind=outcome.failure.kind)
    result = outcome.answer
    assert result is not None  # an outcome without an answer is a failure, raised above
    if args.json:
        context = {"standalone": {"message": read.message, "question": read.question, "kind": read.kind,
                                  "rules": list(read.rules), "derived_from": read.derived_from or None}} if read else {}
        print(json.dumps({**outcome.to_dict(), **context, "knobs": knobs.to_dict(), "queued": queued,
                          "model": "offline" if assistant.offline else assistant.settings.llm_model},
                         ensure_ascii=False, indent=2))
    else:
        if read is not None:
            from core.values.conversations import KIND_LABELS
            how = KIND_LABELS.get(read.kind, read.kind) + (f"，由 {read.derived_from} 推出" if read.derived_from else "") \
                + (f"，规则 {'、'.join(read.rules)}" if read.rules else "")
            print(f"学员原话：{read.message}\n独立问题：{read.question}（{how}）\n")
        print(render_report(result, knobs, queued=queued, queue_used=store is not None))
    return 0


def render_report(result: RAGAnswer, knobs: Knobs, *, queued: int | None, queue_used: bool) -> str:
    """The seed-style plain-text report: candidates, decision, answer, citation table, check result."""
    lines = [f"问题：{result.question}", f"参数：{knobs.describe()}",
             f"召回 {len(result.candidates)} 条（命中的在前，编号就是回答里的出处编号 [n]）："]
    for number, hit in enumerate(result.candidates, start=1):
        state = "命中" if hit.passed else "低于阈值"
        lines.append(f"  [{number}] 排序分 {hit.value:.3f}（检索分 {hit.score:.3f}，检索第 {hit.rank} 名）  {state}  "
                     f"{hit.source} · {hit.heading}")
    if result.decision is not None:
        lines.append("判断：" + "；".join(f"{s.name_zh} {s.compared}" for s in result.decision.signals[:3]))
    if result.grade is not None:
        lines.append(f"模型判定：{result.grade.describe()}（{result.grade.cost()}）")
    lines.append("")
    lines.append(f"回答：{result.text}")
    if result.refused:
        lines.append(f"  原因：{result.reason}")
        lines.append(f"  模型有没有被调用：{'有' if result.model_called else '没有'}")
    else:
        if result.reason:
            lines.append(f"  判断依据：{result.reason}")
        refs = result.citations.refs if result.citations else ()
        if refs:
            lines += ["", "引用来源：", "编号  文件  小节  片段预览"]
            lines += [f"[{r.number}]  {r.source}  {r.heading}  {r.excerpt}" for r in refs]
        lines.append("")
        if result.problems:
            lines.append("出处校验：发现问题")
            lines += [f"  ✗ {p.message}" for p in result.problems]
        else:
            lines.append("出处校验：通过")
    lines.append(_queue_line(result, queued, queue_used))
    return "\n".join(lines)


def _queue_line(result: RAGAnswer, queued: int | None, queue_used: bool) -> str:
    if queued is not None:
        held = result.flagged or (result.grade is not None and not result.refused)
        lane = "（模型判定可答）" if result.grade is not None and not result.refused else ""
        return f"复核队列：已记入{lane} #{queued}" + ("（这条回答不返回给学员）" if held else "")
    if not queue_used:
        return "复核队列：未写入（--no-queue 或演示）"
    return "复核队列：无需复核，未写入"


def run_demo(args: argparse.Namespace) -> int:
    assistant: Assistant = open_assistant(Settings.from_env())
    for number, question in enumerate(DEMO_QUESTIONS, start=1):
        print(f"===== 场景 {number} =====")
        print(render_report(assistant.ask(question), assistant.knobs, queued=None, queue_used=False))
        print()
    print("===== 场景 4：模型编造了不存在的出处 =====")
    scripted = assistant.with_model(ScriptedChatModel(responses=[FABRICATED]))
    print(render_report(scripted.ask(DEMO_QUESTIONS[0]), assistant.knobs, queued=None, queue_used=False))
    return 0

