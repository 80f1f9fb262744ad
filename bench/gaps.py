"""Measure the 资料缺口 grouping (core.gaps.grouping) on a labelled file of questions the documents do not answer.

Run from the repository root:  .venv/bin/python -m bench.gaps [FILE.csv ...] [--noise-label noise] [--grid] [--largest N]
FILE has the columns id, question, topic (default: bench/data/gap_dev.csv; several files are measured one after
another); a row whose topic is the noise label (default `noise`) is a greeting or fragment that should fit no
topic. Every question goes through the same Assistant and grouping as `python -m core gaps FILE.csv` and the
board (core.gaps.questions.group_questions; the shipped starter glossary and knobs). Prints markdown: purity
(the share of the questions in topics that carry their topic's majority label), the share of the non-noise
questions held by the 10 largest topics and the share a grouping equal to the labels would reach (its ceiling),
noise recall (noise rows left in noise), coverage (labelled questions in a topic of ≥ 3), how many label-topics
are split over several topics, fragmentation (the mean share of a label-topic held by its largest topic: 1.0 is
never split), B-cubed F, then every topic.
`--grid` (development files only, by default all three: never tune on a blind set) measures every candidate rule
of bench/gaps_grid.py on each file and prints the one the written selection rule picks, the shipped row marked.
`--largest N` keeps only the N largest label-topics and the noise rows
(the development file has 43 topics; a blind set of 14 is another shape).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

from bench.gaps_grid import candidates, describe, pick, qualifies
from bench.sets import DATA, bench_assistant
from core.gaps.grouping import RULE, Grouping
from core.gaps.questions import FileQuestion, group_retrievals, read_questions, retrieve_all

DEV_FILES = (DATA / "gap_dev.csv", DATA / "gap_set.csv", DATA / "gap_set_v2.csv")  # the rule is picked on these
DEV_FILE = DEV_FILES[0]
# The blind set not yet measured (gap_set.csv and gap_set_v2.csv were measured once each and are development data).
BLIND_FILE = DATA / "gap_set_v3.csv"
TARGETS = {"purity": 0.8, "top10": 0.8, "noise": 0.8}


@dataclass(frozen=True)
class Quality:
    """The figures the issue asks for, from a grouping and the labels."""

    purity: float
    top10: float
    noise_recall: float
    coverage: float
    split: int
    labels: int
    topics: int
    bcubed_f: float
    top10_ceiling: float  # the top-10 share a grouping equal to the labels would reach
    fragmentation: float  # mean over label-topics of the share held by its largest topic (1.0: never split)


def quality(grouping: Grouping, labels: Sequence[str], noise_label: str = "noise") -> Quality:
    """Purity over the questions placed in topics; top-10 share, coverage over the non-noise questions; noise
    recall over the noise rows; a label-topic is split when its questions sit in two or more topics."""
    groups = [g.members for g in grouping.groups]
    placed = sum(len(g) for g in groups)
    majority = sum(Counter(labels[i] for i in g).most_common(1)[0][1] for g in groups)
    topical = [i for i, label in enumerate(labels) if label != noise_label]
    noise_rows = [i for i, label in enumerate(labels) if label == noise_label]
    by_size = sorted(groups, key=len, reverse=True)
    in_top10 = sum(1 for g in by_size[:10] for i in g if labels[i] != noise_label)
    covered = sum(1 for g in groups if len(g) >= 3 for i in g if labels[i] != noise_label)
    left = set(grouping.noise)
    where: dict[str, set[int]] = {}
    for n, g in enumerate(groups):
        for i in g:
            where.setdefault(labels[i], set()).add(n)
    split = sum(1 for label, found in where.items() if label != noise_label and len(found) > 1)
    sizes = Counter(labels[i] for i in topical)
    return Quality(purity=majority / placed if placed else 0.0, top10=in_top10 / len(topical) if topical else 0.0,
                   noise_recall=sum(i in left for i in noise_rows) / len(noise_rows) if noise_rows else 0.0,
                   coverage=covered / len(topical) if topical else 0.0, split=split,
                   labels=len({labels[i] for i in topical}), topics=len(groups),
                   bcubed_f=bcubed_f(grouping, labels, noise_label),
                   top10_ceiling=sum(n for _, n in sizes.most_common(10)) / len(topical) if topical else 0.0,
                   fragmentation=fragmentation(grouping, labels, noise_label))


def fragmentation(grouping: Grouping, labels: Sequence[str], noise_label: str = "noise") -> float:
    """Mean over label-topics of the share of its questions in its single largest topic: 1.0 when no label-topic
    is split (nor left in noise), lower the more pieces a missing document is cut into. Unlike the top-10 share it
    does not depend on how many label-topics a set has."""
    sizes = Counter(label for label in labels if label != noise_label)
    largest: Counter[str] = Counter()
    for g in grouping.groups:
        for label, n in Counter(labels[i] for i in g.members).items():
            largest[label] = max(largest[label], n)
    return sum(largest[label] / n for label, n in sizes.items()) / len(sizes) if sizes else 0.0


def bcubed_f(grouping: Grouping, labels: Sequence[str], noise_label: str = "noise") -> float:
    """B-cubed F: per question, the precision and recall of its topic against its label; a noise row and a
    question left in noise each stand alone."""
    topic_of = {i: n for n, g in enumerate(grouping.groups) for i in g.members}
    predicted = [topic_of.get(i, ("noise", i)) for i in range(len(labels))]
    gold = [label if label != noise_label else ("noise", i) for i, label in enumerate(labels)]
    p_size, g_size, both = Counter(predicted), Counter(gold), Counter(zip(predicted, gold))
    n = len(labels)
    precision = sum(both[(p, g)] / p_size[p] for p, g in zip(predicted, gold)) / n
    recall = sum(both[(p, g)] / g_size[g] for p, g in zip(predicted, gold)) / n
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def summary(q: Quality) -> str:
    def mark(name: str, value: float) -> str:
        return f"{value:.1%}" + (" ✓" if value >= TARGETS[name] else " ✗") if name in TARGETS else f"{value:.1%}"

    return (f"| {mark('purity', q.purity)} | {mark('top10', q.top10)} | {q.top10_ceiling:.1%} | "
            f"{mark('noise', q.noise_recall)} | {q.coverage:.1%} | {q.split}/{q.labels} | {q.fragmentation:.3f} | "
            f"{q.topics} | {q.bcubed_f:.3f} |")


HEADER = ("| 纯度（目标 ≥ 80%） | 最大 10 个话题占非噪声题（目标 ≥ 80%） | 同上，按标签完全分对的上限 | "
          "噪声留在噪声里（目标 ≥ 80%） | 覆盖（在 ≥ 3 题的话题里） | 被拆开的标签话题 | 集中度（1 = 从不拆开） | "
          "话题数 | B-cubed F |\n" + "| --- " * 9 + "|")


def topic_table(grouping: Grouping, rows: Sequence[FileQuestion], labels: Sequence[str]) -> list[str]:
    lines = ["| 话题 | 题数 | 多数标签（占比） | 例子 |", "| --- | --- | --- | --- |"]
    for g in grouping.groups:
        label, n = Counter(labels[i] for i in g.members).most_common(1)[0]
        examples = " / ".join(rows[i].question for i in g.members[:3])
        lines.append(f"| {g.label} | {len(g.members)} | {label}（{n / len(g.members):.0%}） | {examples} |")
    lines.append(f"| （噪声） | {len(grouping.noise)} | | "
                 f"{' / '.join(rows[i].question for i in grouping.noise[:5])} |")
    return lines


def grid(files: Sequence[Path], measured_files: Sequence[tuple[list[str], tuple]], noise_label: str) -> None:
    """Every candidate of bench.gaps_grid on every development file, and the one the written rule picks."""
    names = " | ".join(f"{path.name}：纯度 · 噪声 · 集中度 · B-cubed F" for path in files)
    print(f"| 想法 | 与第三轮规则不同的常数 | {names} | 平均 B-cubed F | 平均集中度 | 合格 |")
    print("|" + " --- |" * (len(files) + 5))
    measured = []
    for candidate in candidates():
        results = [quality(group_retrievals(retrievals, rule=candidate.rule), labels, noise_label)
                   for labels, retrievals in measured_files]
        measured.append((candidate, results))
        cells = " | ".join(f"{q.purity:.1%} · {q.noise_recall:.1%} · {q.fragmentation:.3f} · {q.bcubed_f:.3f}"
                           for q in results)
        shipped = " **（出厂）**" if candidate.rule == RULE else ""
        print(f"| {candidate.idea}{shipped} | {describe(candidate.rule)} | {cells} | "
              f"{fmean(q.bcubed_f for q in results):.3f} | {fmean(q.fragmentation for q in results):.3f} | "
              f"{'✓' if qualifies(results) else ''} |")
    chosen = pick(measured)
    if chosen is None:
        print("\n没有候选在每份文件上都合格。")
        return
    candidate = measured[chosen][0]
    print(f"\n按事先写下的规矩选出：{candidate.idea}，{describe(candidate.rule)}"
          + ("（就是出厂规则）。" if candidate.rule == RULE else f"；出厂规则是 {describe(RULE)}，两者不同。"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help=f"labelled CSV files (default: {DEV_FILE.name}; with --grid: the development files)")
    parser.add_argument("--noise-label", default="noise")
    parser.add_argument("--grid", action="store_true",
                        help="measure the candidate rules (bench/gaps_grid.py) and pick one by the written rule")
    parser.add_argument("--largest", type=int, default=0,
                        help="keep only the N largest label-topics (and the noise rows), as a blind set of N topics")
    args = parser.parse_args(argv)
    paths = [Path(f) for f in args.files] or list(DEV_FILES if args.grid else DEV_FILES[:1])
    if args.grid and any(path.resolve() == BLIND_FILE.resolve() for path in paths):
        parser.error("--grid tunes the rule: run it on the development files, never on the blind gap set")
    assistant = bench_assistant()
    measured_files = []
    for path in paths:
        rows = read_questions(path)
        if args.largest:
            sizes = Counter(r.extra.get("topic", "") for r in rows if r.extra.get("topic", "") != args.noise_label)
            kept = {label for label, _ in sizes.most_common(args.largest)} | {args.noise_label}
            rows = tuple(r for r in rows if r.extra.get("topic", "") in kept)
        labels = [r.extra.get("topic", "") for r in rows]
        retrievals = retrieve_all(assistant, [r.question for r in rows])
        topical = sum(label != args.noise_label for label in labels)
        print(f"## {path.name}：{len(rows)} 条（{topical} 条属于 {len(set(labels) - {args.noise_label})} 个标签话题，"
              f"{len(rows) - topical} 条噪声）\n")
        if args.grid:
            measured_files.append((labels, retrievals))
            continue
        grouping = group_retrievals(retrievals, rule=RULE)
        print(f"规则：{RULE}\n")
        print(HEADER)
        print(summary(quality(grouping, labels, args.noise_label)))
        print()
        print("\n".join(topic_table(grouping, rows, labels)))
        print()
    if args.grid:
        grid(paths, measured_files, args.noise_label)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
