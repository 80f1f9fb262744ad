"""`python -m core gaps [FILE.csv] [--json]`: group the questions the documents do not answer into topics.

Without FILE it groups the review queue's refusals, rejected answers and items marked 资料没写, as the
资料缺口 board does (core.gaps.board.collect and analyse; nothing is written: owners, statuses and the
queue are left alone); `ids` are then queue item ids. With FILE (UTF-8 CSV, a `question` column and an
optional `id` column, other columns ignored) it groups those questions; `ids` are the file's ids, or row
numbers from 1. `--json` prints {"topics": [{"label", "ids", "terms"}], "noise": [...]}. The page, this
command and bench/gaps.py group through the same function (core.gaps.questions).
"""

from __future__ import annotations

import argparse
import json
import sys

from core.assistant import open_assistant
from core.gaps.board import analyse, collect, topic_label
from core.gaps.grouping import Grouping
from core.gaps.questions import group_questions, read_questions
from core.settings import Settings
from core.stores.db import open_database
from core.stores.gaps import GapStore
from core.stores.review import ReviewStore

EXAMPLES = 3
EXCERPT_CHARS = 24


def register(subparsers) -> None:
    parser = subparsers.add_parser("gaps", help="资料缺口：把资料没写的问题按话题分组",
                                   description="把资料回答不了的问题按话题分组（离线，用闸门切出的资料外的词和关键词）。"
                                               "不给文件时分组复核队列里的拒答、被驳回和标为「资料没写」的条目（只读，不改任何记录）。")
    parser.add_argument("file", nargs="?", metavar="文件.csv",
                        help="UTF-8 的 CSV：要有「问题」列（英文表头亦可，见 docs/gaps.md），可选「编号」列，其他列忽略；"
                             "省略时分组复核队列")
    parser.add_argument("--json", action="store_true",
                        help="以 JSON 输出每个话题的名称、编号和关键词，以及不属于任何话题的编号")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    assistant = open_assistant(settings, with_model=False)  # grouping needs the analyzer, never a model
    if args.file:
        rows = read_questions(args.file)
        grouping: Grouping | None = group_questions(assistant, [r.question for r in rows])
        ids = [[rows[i].id] for i in range(len(rows))]
        texts = [r.question for r in rows]
        asked = [1] * len(rows)
    else:
        db = open_database(settings.db_url)
        questions = collect(ReviewStore(db), GapStore(db))
        grouping = analyse(assistant, questions).grouping if questions else None
        ids = [[ref.id for ref in q.items] for q in questions]
        texts = [q.question for q in questions]
        asked = [q.askings for q in questions]
    topics = [{"label": topic_label(g), "ids": [i for m in g.members for i in ids[m]], "terms": list(g.terms)}
              for g in (grouping.groups if grouping else ())]
    noise = [i for m in (grouping.noise if grouping else ()) for i in ids[m]]
    if args.json:
        json.dump({"topics": topics, "noise": noise}, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    if not texts:
        print("复核队列里没有拒答、被驳回或标为「资料没写」的条目，没有可以分组的问题。")
        return 0
    assert grouping is not None  # there are questions, so they were grouped
    for n, g in enumerate(grouping.groups, start=1):
        examples = " / ".join(_short(texts[m]) for m in g.members[:EXAMPLES])
        print(f"{n}. {topic_label(g)}\t{len(g.members)} 个问题，问了 {sum(asked[m] for m in g.members)} 次\t例：{examples}")
    print(f"噪声（不属于任何话题）：{len(grouping.noise)} 个问题"
          + (f"，例：{' / '.join(_short(texts[m]) for m in grouping.noise[:EXAMPLES])}" if grouping.noise else ""))
    print(f"共 {len(texts)} 个不同的问题，分成 {len(grouping.groups)} 个话题。")
    return 0


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[:EXCERPT_CHARS] + "…"
