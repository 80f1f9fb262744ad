"""What an admin's tidying of the 资料缺口 board does for tomorrow's askings: topics merged and questions moved today,
and where the next day's questions land.

Run from the repository root:  .venv/bin/python -m bench.gaps_loop [FILE.csv ...] [--seeds 0.2 0.3 ...]

Default: the four labelled gap files (gap_dev.csv and the three blind gap sets, each measured once before: never a
blind set before its one measurement). Not every file is shuffled (gap_set_v2.csv lists its topics one after
another), so the rows alternate: the odd rows (1st, 3rd …) are today, the even rows tomorrow.
- Today: the board groups today's questions (the shipped rule, no hints). An admin tidies it as the page lets one:
  for each label-topic, the board topic holding most of its questions is where it belongs (「并入话题」 merges every
  other topic whose majority is that label into it; 「移到话题」 moves each placed question whose topic's majority
  is another label); a question is pinned only when such a topic exists (the page moves into existing topics only),
  and questions left in noise stay there. The label stands for the admin's judgement; the actions are counted.
- Tomorrow: the board regroups everything, today's pinned questions carrying their topic as hint, exactly as
  core.gaps.board.collect passes pins. A tomorrow question is right when it lands in the pinned topic of its
  label, wrong when it lands in a pinned topic of another label (or is noise and lands in one).
The same two days are also run untidied (no hints), the board as it would be without the admin.
Printed per file and seed bar: the admin's actions, tomorrow's labelled questions in their own pinned topic,
wrong joins, and the whole board's quality (bench.gaps: purity, top-10, noise, fragmentation).
The seed bar is picked by the rule in docs/gaps.md (「整理话题」), written before these candidates were measured.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.gaps import DEV_FILES, quality
from bench.sets import DATA, bench_assistant
from core.gaps.grouping import RULE, Grouping, Rule
from core.gaps.questions import group_retrievals, read_questions, retrieve_all

FILES = (*DEV_FILES, DATA / "gap_set_v3.csv")
SEEDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
NOISE = "noise"
MAX_WRONG_SHARE = 0.10  # the rule: at most this share of tomorrow's joins into pinned topics may be wrong, per file


@dataclass(frozen=True)
class Tidy:
    """Today's board tidied: each pinned question's hint, and the admin actions it took."""

    hints: tuple[str, ...]  # by position over the whole file ("" for tomorrow's and unpinned questions)
    merges: int
    moves: int


@dataclass(frozen=True)
class Tomorrow:
    right: int  # tomorrow's labelled questions in their label's pinned topic
    wrong: int  # tomorrow's questions in a pinned topic of another label (noise rows included)
    labelled: int  # tomorrow's labelled questions whose label has a pinned topic
    joined: int  # tomorrow's questions in any pinned topic


def tidy(today: Grouping, labels: Sequence[str], total: int) -> Tidy:
    """Pin every placed question of today to its label's home topic, counting the merges and moves."""
    majority = [Counter(labels[i] for i in g.members).most_common(1)[0][0] for g in today.groups]
    home: dict[str, int] = {}
    for label in {labels[i] for g in today.groups for i in g.members} - {NOISE}:
        held = [(sum(labels[i] == label for i in g.members), -n, n) for n, g in enumerate(today.groups)
                if majority[n] == label]
        if held:
            home[label] = max(held)[2]
    merges = sum(max(0, sum(m == label for m in majority) - 1) for label in home)
    hints = [""] * total
    moves = 0
    for n, g in enumerate(today.groups):
        for i in g.members:
            label = labels[i]
            if label not in home:
                continue
            target = home[label]
            if majority[n] != label:
                moves += 1
            hints[i] = f"#{target}"
    return Tidy(hints=tuple(hints), merges=merges, moves=moves)


def tomorrow(grouping: Grouping, labels: Sequence[str], hints: Sequence[str], start: int) -> Tomorrow:
    label_of_hint = {h: labels[i] for i, h in enumerate(hints) if h}
    right = wrong = joined = 0
    for g in grouping.groups:
        if not g.hint:
            continue
        for i in g.members:
            if i < start:
                continue
            joined += 1
            if labels[i] == label_of_hint[g.hint]:
                right += 1
            else:
                wrong += 1
    pinned = set(label_of_hint.values())
    labelled = sum(1 for i in range(start, len(labels)) if labels[i] in pinned)
    return Tomorrow(right=right, wrong=wrong, labelled=labelled, joined=joined)


def run_file(assistant, path: Path, seeds: Sequence[float]) -> tuple[list[str], dict[float, Tomorrow]]:
    found_rows = read_questions(path)
    rows = (*found_rows[0::2], *found_rows[1::2])  # today, then tomorrow
    labels = [r.extra.get("topic", "") for r in rows]
    retrievals = retrieve_all(assistant, [r.question for r in rows])
    start = (len(rows) + 1) // 2
    today = group_retrievals(retrievals[:start])
    done = tidy(today, labels[:start], len(rows))
    lines = [f"## {path.name}：今天 {start} 条、明天 {len(rows) - start} 条；管理员今天整理：并入话题 {done.merges} 次、"
             f"移到话题 {done.moves} 次，钉住 {sum(bool(h) for h in done.hints)} 个问题\n",
             "| 分组 | 明天的问题进了自己的话题 | 进了别的已整理话题 | 全部：纯度 · 最大 10 个话题 · 噪声留在噪声里 · 集中度 |",
             "| --- | --- | --- | --- |"]
    untidied = quality(group_retrievals(retrievals), labels)
    lines.append(f"| 不整理（出厂规则，没有提示） | – | – | {_cells(untidied)} |")
    found = {}
    for seed in seeds:
        rule = replace(RULE, seed=seed)
        grouping = group_retrievals(retrievals, done.hints, rule)
        t = found[seed] = tomorrow(grouping, labels, done.hints, start)
        mark = "（出厂）" if seed == RULE.seed else ""
        lines.append(f"| 整理后，挂靠 {seed:g}{mark} | {t.right}/{t.labelled} ({_share(t.right, t.labelled)}) | "
                     f"{t.wrong}/{t.joined} ({_share(t.wrong, t.joined)}) | {_cells(quality(grouping, labels))} |")
    return lines, found


def pick(results: dict[float, list[Tomorrow]]) -> float | None:
    """The written rule: on every file at most MAX_WRONG_SHARE of tomorrow's joins are wrong; then the most tomorrow
    questions in their own topic over all files; ties: the higher bar (fewer joins by chance)."""
    ok = {seed: sum(t.right for t in found) for seed, found in results.items()
          if all(t.wrong <= MAX_WRONG_SHARE * t.joined for t in found)}
    return max(ok, key=lambda seed: (ok[seed], seed)) if ok else None


def _share(n: int, total: int) -> str:
    return f"{n / total:.1%}" if total else "–"


def _cells(q) -> str:
    return f"{q.purity:.1%} · {q.top10:.1%} · {q.noise_recall:.1%} · {q.fragmentation:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="labelled gap files (default: the four measured ones)")
    parser.add_argument("--seeds", nargs="*", type=float, default=list(SEEDS), help="seed bars to compare")
    args = parser.parse_args(argv)
    for seed in args.seeds:
        Rule(seed=seed)  # validates the bar
    assistant = bench_assistant()
    results: dict[float, list[Tomorrow]] = {seed: [] for seed in args.seeds}
    for path in args.files or FILES:
        lines, found = run_file(assistant, path, args.seeds)
        print("\n".join(lines), end="\n\n")
        for seed, t in found.items():
            results[seed].append(t)
    chosen = pick(results)
    print("按事先写下的规矩选出的挂靠下限：" + (f"{chosen:g}" if chosen is not None else "没有候选合格")
          + f"（出厂 {RULE.seed:g}）")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
