"""Does the answer to a student's own case state the right final amount, and never a wrong one?

Run from the repository root:  .venv/bin/python -m bench.own_figures [--corpus 资料文件夹] [题集.csv]
(`--corpus`: measure against another copy of the documents — an edited one: the school facts, the index and the
school's glossary pairs beside the documents are read from there; default XIAOE_CORPUS_DIR or corpus/.)

Reads bench/data/own_figures.csv (id, question, kind, final_amount, must_say, working; written blind, see
docs/blind/own-figures-label-review.md) and asks each question through the Assistant as the console composes
it (offline answerer, defaults, starter glossary). The final amount an answer states is the last figure after
「可退」「可退差价」「需补」「转班手续费」 (「转班手续费免费」 is 0), outside sentences labelled 「示例」.
- correct: the final amount equals `final_amount` (±0.01); for a row without one (over_half, incomplete), no
  final amount is stated and a word of `must_say` is (不再受理退费; the missing figure).
- wrong: a final amount is stated and differs from `final_amount`, or one is stated where none is right.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter
from pathlib import Path

from bench.sets import DATA, bench_assistant
from core.checks.grounding import split_sentences
from core.settings import Settings

_FINAL_RE = re.compile(r"(可退差价|可退|需补|转班手续费)\s*(免费|(?:[^，。；]*?=\s*)?(\d+(?:\.\d+)?)\s*元)")
_MUST_SPLIT_RE = re.compile(r"[（）()、，或]")
KINDS = ("refund_after_start", "refund_before_start", "over_half", "transfer_fee", "level_difference", "incomplete")
KIND_NAMES = {"refund_after_start": "开课后退费", "refund_before_start": "开课前退费", "over_half": "超过一半",
              "transfer_fee": "转班手续费", "level_difference": "级别差价", "incomplete": "数字不全"}


def final_amounts(text: str) -> list[float]:
    """Every final amount the answer states, in order (sentences labelled 示例 left out)."""
    out: list[float] = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        if sentence.lstrip().startswith("示例"):
            continue
        for match in _FINAL_RE.finditer(sentence):
            out.append(0.0 if match.group(2) == "免费" else float(match.group(3)))
    return out


def judge(text: str, final_amount: str, must_say: str) -> tuple[bool, bool]:
    """(correct, wrong) for one answer."""
    stated = final_amounts(text)
    if final_amount.strip():
        expected = float(final_amount)
        wrong = any(abs(v - expected) > 0.01 for v in stated)
        return bool(stated) and abs(stated[-1] - expected) <= 0.01 and not wrong, wrong
    words = [w for w in _MUST_SPLIT_RE.split(must_say) if len(w) >= 2]
    return not stated and (not words or any(w in text for w in words)), bool(stated)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.own_figures", description="学员自己的数字：最终金额对不对")
    parser.add_argument("set", nargs="?", type=Path, default=DATA / "own_figures.csv", help="题集 CSV")
    parser.add_argument("--corpus", type=Path, default=None, help="资料文件夹（默认 XIAOE_CORPUS_DIR 或 corpus/）")
    parser.add_argument("--misses", action="store_true", help="表格之后逐条列出没答对的题和回答")
    args = parser.parse_args(argv)
    path = args.set
    if not path.is_file():
        parser.error(f"题集文件「{path}」不存在")
    rows = list(csv.DictReader(path.open(encoding="utf-8-sig", newline="")))
    settings = Settings.from_env()
    if args.corpus is not None:
        if not args.corpus.is_dir():
            parser.error(f"资料文件夹「{args.corpus}」不存在")
        settings = settings.with_(corpus_dir=args.corpus.resolve())
    assistant = bench_assistant(settings)
    tally: dict[str, Counter] = {kind: Counter() for kind in KINDS}
    misses: list[str] = []
    for row in rows:
        answer = assistant.ask(row["question"])
        correct, wrong = judge("" if answer.refused else answer.text, row["final_amount"], row["must_say"])
        counts = tally.setdefault(row["kind"], Counter())
        counts.update(rows=1, correct=int(correct), wrong=int(wrong), refused=int(answer.refused))
        if not correct:
            state = "说错金额" if wrong else ("闸门拒答" if answer.refused else "没说出金额")
            misses.append(f"- {row.get('id', '')} {state}（应为 {row['final_amount'] or row['must_say']}）：{row['question']}\n"
                          f"  {answer.reason if answer.refused else answer.text}")
    print(f"# 学员自己的数字：最终金额对不对（{path.name}，资料 {settings.corpus_dir}，{assistant.knobs.describe()}，"
          "离线答题器，初始同义词表）\n")
    print("| 类别 | 题数 | 最终金额正确 | 说错金额 | 闸门拒答 |")
    print("| --- | --- | --- | --- | --- |")
    total: Counter = Counter()
    for kind, counts in tally.items():
        if not counts["rows"]:
            continue
        total.update(counts)
        print(_row(KIND_NAMES.get(kind, kind), counts))
    print(_row("**合计**", total))
    if args.misses and misses:
        print("\n没答对的题：\n" + "\n".join(misses))
    return 0


def _row(label: str, counts: Counter) -> str:
    n = counts["rows"]
    return f"| {label} | {n} | {counts['correct']}/{n} ({counts['correct'] / n:.1%}) | {counts['wrong']} | {counts['refused']} |"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
