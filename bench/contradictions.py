"""How many sentences does a save list as still stating the rule it changed (core.reuse.drift.still_stating)?

Run from the repository root:  .venv/bin/python -m bench.contradictions [--list]

Two kinds of edits to the shipped corpus, each applied alone: every sentence's first number raised by one
(「最长保留 6 个月」 → 「7 个月」), or, for a sentence without a number, the sentence deleted; and every distinct edit of
the development reuse sets (reuse_dev.csv, reuse_set.csv, reuse_set_v2.csv: already measured, never a blind set
before its one measurement), which their writers wrote as realistic changes of a rule. For each kind it prints how
many edits there were, how many listed at least one sentence and how many sentences were listed; `--list` prints
every listed sentence under its edit, for reading. There is no label of which listed sentences truly still state the
old rule, so this counts; it does not score.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bench.sets import DATA
from core.checks.cited_sentence import sentences
from core.reuse.drift import still_stating
from core.sets.reuse_format import read_reuse_set

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
DEV_FILES = ("reuse_dev.csv", "reuse_set.csv", "reuse_set_v2.csv")
NUMBER = re.compile(r"\d+")


def synthetic(texts: dict[str, str]) -> list[tuple[str, str, str, str]]:
    """(kind, file, old sentence, new sentence) for every sentence that states something (no heading, no question)."""
    edits = []
    for source, text in texts.items():
        for start, end in sentences(text):
            sentence = text[start:end].strip()
            if sentence.startswith("#") or sentence.endswith(("？", "?")):
                continue
            found = NUMBER.search(sentence)
            if found:
                edits.append(("数字加一", source, sentence,
                              sentence[:found.start()] + str(int(found.group()) + 1) + sentence[found.end():]))
            else:
                edits.append(("整句删掉", source, sentence, ""))
    return edits


def from_reuse_sets() -> list[tuple[str, str, str, str]]:
    seen, edits = set(), []
    for name in DEV_FILES:
        for case in read_reuse_set(DATA / name):
            edit = case.edit
            if edit is not None and (edit.source, edit.old, edit.new) not in seen:
                seen.add((edit.source, edit.old, edit.new))
                edits.append(("复用题集里的改动", edit.source, edit.old, edit.new))
    return edits


def main(argv: list[str] | None = None) -> None:
    show = "--list" in (argv if argv is not None else sys.argv[1:])
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.md"))}
    counts: dict[str, list[int]] = {}
    for kind, source, old, new in synthetic(texts) + from_reuse_sets():
        before = texts[source]
        if old not in before:
            continue
        after = {**texts, source: before.replace(old, new, 1)}
        found = still_stating({source: (before, after[source])}, after)
        row = counts.setdefault(kind, [0, 0, 0])
        row[0], row[1], row[2] = row[0] + 1, row[1] + bool(found), row[2] + len(found)
        if show and found:
            print(f"== {source}：「{old}」→「{new}」")
            for c in found:
                print(f"   {c.source} · {c.heading or '文首'}：{c.sentence}")
    print("| 改动 | 次数 | 列出了句子的次数 | 列出的句子 |")
    print("|---|---|---|---|")
    for kind, (edits, listing, listed) in counts.items():
        print(f"| {kind} | {edits} | {listing} | {listed} |")


if __name__ == "__main__":
    main()
