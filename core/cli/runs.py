"""`python -m core runs list | compare A B [--json] | baseline NAME`: stored evaluation runs (core.stores.runs).

Runs are stored by `eval SET --save-run NAME`, `calibrate --save-run NAME` and the tuning page. `compare` lists
every question whose outcome (or check verdict) changed from A to B, grouped by direction with both reasons,
the outcome counts before and after, what differs in the state, and the corpus sections that changed with
their diff (core.evaluation.run_compare).
"""

from __future__ import annotations

import argparse
import getpass
import json

from core.cli.parser import int_between
from core.evaluation.run_compare import RunComparison, compare_stored
from core.settings import Settings
from core.stores.db import open_database
from core.stores.runs import RunStore

MAX_DIFF_ROWS = 40


def register(subparsers) -> None:
    runs = subparsers.add_parser("runs", help="已保存的评测运行：列出、比较、设为基准")
    actions = runs.add_subparsers(dest="runs_command", metavar="操作")

    listing = actions.add_parser("list", help="列出已保存的运行（最新的在前）")
    listing.add_argument("--limit", type=int_between(1, 1000), default=50, help="最多显示多少条（1–1000，默认 50）")
    listing.add_argument("--json", action="store_true", help="以 JSON 输出")
    listing.set_defaults(handler=list_runs)

    comparing = actions.add_parser("compare", help="逐题比较两次运行：哪些题的结果变了、参数和资料哪里不同")
    comparing.add_argument("before", metavar="先前的运行", help="先前的运行名")
    comparing.add_argument("after", metavar="之后的运行", help="之后的运行名")
    comparing.add_argument("--json", action="store_true", help="以 JSON 输出")
    comparing.set_defaults(handler=compare_runs)

    baseline = actions.add_parser("baseline", help="把一次运行设为基准：调优页每次批量运行后都和它比较")
    baseline.add_argument("name", metavar="运行名", help="要设为基准的运行")
    baseline.set_defaults(handler=mark_baseline)

    runs.set_defaults(handler=lambda _args: (runs.print_help(), 2)[1])


def actor() -> str:
    """Who ran a command-line evaluation."""
    try:
        return f"命令行:{getpass.getuser()}"
    except (OSError, KeyError):  # no login name in some containers
        return "命令行"


def store() -> RunStore:
    return RunStore(open_database(Settings.from_env().db_url))


def list_runs(args: argparse.Namespace) -> int:
    runs = store()
    found, baseline = runs.list(limit=args.limit), runs.baseline()
    if args.json:
        print(json.dumps([{"name": r.name, "kind": r.kind, "set": r.set_name, "set_version": r.set_version,
                           "fingerprint": r.fingerprint, "knobs": r.knobs, "answerer": r.answerer,
                           "grader": r.grader, "reuse": r.reuse, "glossary_entries": r.glossary_entries,
                           "actor": r.actor, "created_at": r.created_at.isoformat() if r.created_at else None,
                           "questions": r.question_count, "counts": r.counts, "stored_bytes": r.stored_bytes,
                           "baseline": r.name == baseline} for r in found], ensure_ascii=False, indent=2))
        return 0
    if not found:
        print("还没有保存过运行。用 python -m core eval 题集 --save-run 名字 保存一次。")
        return 0
    for r in found:
        mark = "【基准】" if r.name == baseline else ""
        when = r.created_at.strftime("%Y-%m-%d %H:%M") if r.created_at else ""
        print(f"{mark}{r.name}  {when}  {r.actor}  {r.kind_label}  题集 {r.set_name}"
              f"{'' if r.set_version is None else f' 第 {r.set_version} 版'}  "
              f"判断正确 {r.correct}/{r.question_count}  资料指纹 {r.fingerprint[:12]}  答题 {r.answerer}")
    return 0


def compare_runs(args: argparse.Namespace) -> int:
    result = compare_stored(store(), args.before, args.after)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return 0
    print(format_comparison(result))
    return 0


def mark_baseline(args: argparse.Namespace) -> int:
    store().mark_baseline(args.name, actor=actor())
    print(f"已把「{args.name}」设为基准运行。")
    return 0


def format_comparison(c: RunComparison) -> str:
    a, b = c.before.info, c.after.info
    lines = [f"比较：{a.name}（{a.question_count} 题）→ {b.name}（{b.question_count} 题）",
             f"判断正确：{c.correct[0]} → {c.correct[1]}（{c.correct[1] - c.correct[0]:+d}）"]
    lines += [f"  {o}：{x} → {y}（{y - x:+d}）" for o, x, y in c.counts if x or y]
    lines.append("\n参数和设置的不同：" + ("（没有）" if not (c.knobs or c.settings) else ""))
    lines += [f"  {k}：{x} → {y}" for k, (x, y) in c.knobs.items()]
    lines += [f"  {k}：{x} → {y}" for k, (x, y) in c.settings.items()]
    lines += [f"  同义词表新增：{t} = {s}" for t, s in c.glossary_added]
    lines += [f"  同义词表删除：{t} = {s}" for t, s in c.glossary_removed]
    lines.append(f"\n结果变了的题：{len(c.flips)} 道" + ("" if c.flips else "（没有）"))
    for direction, flips in c.grouped():
        lines.append(f"【{direction}】{len(flips)} 道")
        for f in flips:
            checks = (f"；核对 {','.join(f.before.checks) or '无'} → {','.join(f.after.checks) or '无'}"
                      if f.before.checks != f.after.checks else "")
            lines.append(f"  {f.question}（预期 {f.expected}）：{f.before.outcome} → {f.after.outcome}{checks}")
            lines.append(f"      之前：{f.before.reason}  [{f.before.top_hit or '无片段'}]")
            lines.append(f"      之后：{f.after.reason}  [{f.after.top_hit or '无片段'}]")
    if c.only_before or c.only_after:
        lines.append(f"\n只在 {a.name} 里的题 {len(c.only_before)} 道，只在 {b.name} 里的题 {len(c.only_after)} 道")
    lines.append(f"\n资料的变化：{len(c.files)} 个文件" + ("（资料相同）" if not c.files else ""))
    for fc in c.files:
        lines.append(f"  {fc.file}（{fc.change}；版本 {fc.before_version or '—'} → {fc.after_version or '—'}）")
        for s in fc.sections:
            lines.append(f"    小节「{s.heading}」{s.change}")
            for row in s.diff[:MAX_DIFF_ROWS]:
                if row.old_no is not None and row.kind != "相同":
                    lines.append(f"      - {row.old}")
                if row.new_no is not None and row.kind != "相同":
                    lines.append(f"      + {row.new}")
    return "\n".join(lines)
