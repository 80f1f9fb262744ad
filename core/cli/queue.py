"""`python -m core queue …`: list the review queue or export it as CSV for Excel."""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.parser import int_between
from core.errors import InvalidReview
from core.settings import Settings
from core.stores.db import open_database
from core.stores.review import Filters, ReviewItem, ReviewStore
from core.stores.review_schema import LANES, STATUS_LABELS, resolve_lane, resolve_status

EXCERPT_CHARS = 30
MAX_LIST = 10_000


def register(subparsers) -> None:
    queue = subparsers.add_parser("queue", help="复核队列：列出或导出待复核的回答")
    actions = queue.add_subparsers(dest="queue_command", metavar="操作")

    listing = actions.add_parser("list", help="列出复核队列（默认最新的 20 条）")
    _add_filters(listing)
    listing.add_argument("--limit", type=int_between(1, MAX_LIST), default=20,
                         help=f"最多显示多少条（1–{MAX_LIST}，默认 20）")
    listing.add_argument("--json", action="store_true", help="以 JSON 输出完整条目（含候选片段）")
    listing.set_defaults(handler=list_items)

    export = actions.add_parser("export", help="把复核队列导出为 CSV 或 Excel 工作簿（.xlsx）")
    export.add_argument("file", metavar="文件.csv", help="导出文件路径（.csv；.xlsx 写成 Excel 工作簿）")
    _add_filters(export)
    export.set_defaults(handler=export_items)

    queue.set_defaults(handler=lambda _args: _help(queue))


def _add_filters(parser: argparse.ArgumentParser) -> None:
    statuses = "、".join(f"{code}/{label}" for code, label in STATUS_LABELS.items())
    parser.add_argument("--status", help=f"按状态筛选：{statuses}")
    parser.add_argument("--lane", help="按通道筛选：通道代码或中文名（如 citation / 引用问题），也可以是问题代码（如 bad_ref）")
    parser.add_argument("--search", default="", help="在问题和回答里搜索这段文字")


def _filters(args: argparse.Namespace) -> Filters:
    status = None
    if args.status:
        status = resolve_status(args.status)
        if status is None:
            raise InvalidReview(f"状态「{args.status}」不存在，可选：{'、'.join(STATUS_LABELS.values())}。")
    lane = reason = None
    if args.lane:
        lane, reason = resolve_lane(args.lane)
        if lane is None and reason is None:
            choices = "、".join(f"{code}（{lane.label}）" for code, lane in LANES.items())
            raise InvalidReview(f"通道「{args.lane}」不存在，可选：{choices}。")
    return Filters(status=status, lane=lane, reason=reason, search=args.search)


def _store() -> ReviewStore:
    return ReviewStore(open_database(Settings.from_env().db_url))


def list_items(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise InvalidReview(f"--limit（{args.limit}）至少是 1。")
    page = _store().list(_filters(args), limit=args.limit)
    if args.json:
        json.dump([item.to_dict() for item in page.items], sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    for item in page.items:
        print(_line(item))
    print(f"共 {page.total} 条符合条件，显示 {len(page.items)} 条。")
    return 0


def export_items(args: argparse.Namespace) -> int:
    count = _store().export(args.file, _filters(args))
    kind = "Excel 工作簿" if args.file.lower().endswith(".xlsx") else "UTF-8 带 BOM 的 CSV，可用 Excel 直接打开"
    print(f"已导出 {count} 条到 {args.file}（{kind}）。")
    return 0


def _line(item: ReviewItem) -> str:
    question = " ".join(item.question.split())
    if len(question) > EXCERPT_CHARS:
        question = question[:EXCERPT_CHARS] + "…"
    codes = ",".join(dict.fromkeys(p.code for p in item.reasons)) or "-"
    return (f"#{item.id}\t{item.created_at.astimezone():%Y-%m-%d %H:%M}\t{item.status_label}\t"
            f"{'·'.join(item.lane_labels)}\t{question}\t{codes}")


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2
