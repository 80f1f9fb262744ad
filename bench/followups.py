"""Are follow-ups read right in their conversation, without a model?

Run from the repository root:  .venv/bin/python -m bench.followups bench/data/followups_v1.csv [--ablation]
                                [--threads odd|even]

Reads a threads file (thread, turn, message, kind, standalone, must_contain, must_not_contain) and plays each thread
in turn order through the Assistant as the console composes it (offline answerer, defaults, starter glossary, no
approved answers): each message is read in its conversation (Assistant.in_context, the previous turn as the desk
keeps it: its standalone question and whether it was refused), then answered, so a refused turn is refused by the
real gate. Scoring, per row:
- a follow-up (any kind but first, topic_switch, after_refusal) is correct when every 「;」 group of must_contain
  has one 「|」 alternative in the standalone question and no must_not_contain word is in it;
- first, topic_switch and after_refusal rows are correct when the message is left unchanged; an after_refusal row
  that was changed counts as carried over after a refused turn.
`--ablation` switches each follow-up rule off once (XIAOE_FOLLOWUP_RULES) and prints the same table.
`--threads odd|even` keeps only the threads whose number is odd (or even): one half to develop on, the other held back
to see whether a change generalises.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from bench.sets import bench_assistant
from core.assistant import Assistant
from core.conversations import RULE_NAMES, parse_rules
from core.settings import Settings
from core.values.conversations import Turn

UNCHANGED_KINDS = ("first", "topic_switch", "after_refusal")
GOALS = {"follow-ups": 0.90, "topic switches": 0.95}


def read_rows(path: Path) -> dict[str, list[dict]]:
    threads: dict[str, list[dict]] = defaultdict(list)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            threads[row["thread"]].append(row)
    return {name: sorted(rows, key=lambda r: int(r["turn"])) for name, rows in threads.items()}


def holds(question: str, must_contain: str, must_not_contain: str) -> bool:
    """Every 「;」 group of `must_contain` has one 「|」 alternative in `question`, and no word of
    `must_not_contain` (「;」 or 「|」 separated) is in it; letter case aside, as the sets' writers state (App/app)."""
    question = question.casefold()
    groups = [g for g in (must_contain or "").casefold().split(";") if g.strip()]
    if not all(any(alt.strip() and alt.strip() in question for alt in group.split("|")) for group in groups):
        return False
    forbidden = [w.strip() for part in (must_not_contain or "").casefold().split(";") for w in part.split("|")
                 if w.strip()]
    return not any(word in question for word in forbidden)


def half(threads: dict[str, list[dict]], which: str) -> dict[str, list[dict]]:
    """The threads whose number is odd (`which` = "odd") or even ("even"); "all" keeps every thread."""
    if which == "all":
        return threads
    parity = 1 if which == "odd" else 0
    numbers = {name: re.sub(r"\D", "", name) for name in threads}  # 「17」 or 「T017」
    return {name: rows for name, rows in threads.items() if numbers[name] and int(numbers[name]) % 2 == parity}


def score(assistant: Assistant, threads: dict[str, list[dict]]) -> list[dict]:
    out = []
    for rows in threads.values():
        previous: Turn | None = None
        for row in rows:
            read = assistant.in_context(row["message"], previous)
            outcome = assistant.respond(read.question)
            kind = row["kind"].strip()
            if kind in UNCHANGED_KINDS:
                correct = read.question == assistant.validate(row["message"])
            else:
                correct = holds(read.question, row["must_contain"], row["must_not_contain"])
            out.append({"thread": row["thread"], "turn": row["turn"], "kind": kind, "message": row["message"],
                        "question": read.question, "read_as": read.kind, "correct": correct,
                        "expected": row["standalone"]})
            previous = assistant.turn_of(outcome)
    return out


def table(results: list[dict]) -> list[str]:
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        by_kind[r["kind"]].append(r["correct"])
    lines = ["| 类型 | 条数 | 正确 | 比例 |", "| --- | --- | --- | --- |"]
    for kind in sorted(by_kind):
        marks = by_kind[kind]
        lines.append(f"| {kind} | {len(marks)} | {sum(marks)} | {sum(marks) / len(marks):.1%} |")
    follow = [r["correct"] for r in results if r["kind"] not in UNCHANGED_KINDS]
    switches = [r["correct"] for r in results if r["kind"] == "topic_switch"]
    carried = sum(not r["correct"] for r in results if r["kind"] == "after_refusal")
    refusals = sum(r["kind"] == "after_refusal" for r in results)
    lines.append("")
    if follow:
        lines.append(f"追问改写正确（目标 ≥ 90%）：{sum(follow)}/{len(follow)} = {sum(follow) / len(follow):.1%}")
    if switches:
        lines.append(f"换话题原样不动（目标 ≥ 95%）：{sum(switches)}/{len(switches)} = {sum(switches) / len(switches):.1%}")
    lines.append(f"拒答之后带上了上文（目标 0）：{carried}/{refusals}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--ablation", action="store_true")
    parser.add_argument("--misses", action="store_true", help="也列出每一条没读对的")
    parser.add_argument("--threads", choices=("all", "odd", "even"), default="all",
                        help="只测编号为单数（odd）或双数（even）的对话：一半用来开发，另一半留着看改动能不能推广")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        print(f"找不到题集文件「{args.file}」。", file=sys.stderr)
        return 1
    threads = half(read_rows(args.file), args.threads)
    settings = Settings.from_env().with_(reuse="off")
    assistant = bench_assistant(settings)
    results = score(assistant, threads)
    which = {"all": "", "odd": "（单数编号的对话）", "even": "（双数编号的对话）"}[args.threads]
    print(f"{args.file}{which}：{len(threads)} 段对话，{len(results)} 条消息（离线、默认参数、无已审答案）\n")
    print("\n".join(table(results)))
    if args.misses:
        for r in results:
            if not r["correct"]:
                print(f"- {r['thread']}#{r['turn']} [{r['kind']}] {r['message']} → {r['question']}（期望 {r['expected']}）")
    if args.ablation:
        for name in RULE_NAMES:
            off = replace(assistant, followup_rules=parse_rules(f"-{name}"))
            print(f"\n关掉 {name}：")
            print("\n".join(table(score(off, threads))[-3:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
