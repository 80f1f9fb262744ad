"""How fast does the console answer, re-filter and start? Measured server-side with AppTest.

Run from the repository root: `.venv/bin/python bench/console_speed.py [--repeat N] [--large 100000]`.
Uses the shipped corpus and the offline answerer, with data in a temporary folder. Measures:
submit → rendered Ask page; a threshold change (re-filter only, no retrieval, no model); the
Sources page opened at a chunk; a cold start (new process with Streamlit already imported:
app modules, index build, first render) and a first render right after the index cache was
cleared. Browser paint time is not included (see tests/e2e for what the browser does).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from core.evaluation.calibration import SETS_DIR

ROOT = Path(__file__).resolve().parent.parent
ROUTER = str(ROOT / "streamlit_app.py")
QUESTIONS = SETS_DIR / "student_questions.csv"

COLD_START = """
import sys, time
from streamlit.testing.v1 import AppTest
start = time.perf_counter()
at = AppTest.from_file({router!r}, default_timeout=60).run()
assert not at.exception, at.exception
print(time.perf_counter() - start)
"""


def questions(limit: int) -> list[str]:
    with QUESTIONS.open(encoding="utf-8") as handle:
        return [row["question"] for row in csv.DictReader(handle)][:limit]


def clock(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def check(at) -> None:
    if at.exception:
        raise RuntimeError(f"the app raised: {at.exception}")


def ask_and_slide(at, asked: list[str], times: dict[str, list[float]]) -> None:
    """Submit each question (the first one separately timed), then move the threshold three times."""
    for number, question in enumerate(asked):
        at.text_input(key="question").set_value(question)
        times["first" if number == 0 else "submit"].append(clock(lambda: at.button(key="ask").click().run()))
        check(at)
        for value in (0.05, 0.35, 0.2):
            times["threshold"].append(clock(lambda v=value: at.slider(key="threshold").set_value(v).run()))
            check(at)


def open_sources(links: list[tuple[str, int]], times: dict[str, list[float]]) -> None:
    """Open the Sources page at each (file, chunk), as a citation link does."""
    from streamlit.testing.v1 import AppTest

    for source, chunk in links:
        sources = AppTest.from_file(ROUTER, default_timeout=60)
        sources.query_params["source"] = source
        sources.query_params["chunk"] = str(chunk)
        sources.run()
        times["sources"].append(clock(lambda s=sources: s.switch_page("app_pages/sources.py").run()))
        check(sources)


def measure(repeat: int) -> dict[str, list[float]]:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    times: dict[str, list[float]] = {"first": [], "submit": [], "threshold": [], "sources": [], "cold": [],
                                     "rebuilt": []}
    at = AppTest.from_file(ROUTER, default_timeout=60).run()  # warm: modules imported, index built
    check(at)
    ask_and_slide(at, questions(repeat + 1), times)
    open_sources([("01-口语课分级说明.md", number) for number in range(min(repeat, 7))], times)
    for _ in range(3):
        st.cache_resource.clear()
        times["rebuilt"].append(clock(lambda: check(AppTest.from_file(ROUTER, default_timeout=60).run())))
        script = COLD_START.format(root=str(ROOT), router=ROUTER)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})  # the checkout measured comes first
        times["cold"].append(float(out.stdout.strip().splitlines()[-1]) * 1000)
    return times


ROWS = [  # key, what, target (ms); "first" has no target of its own: it is reported, not judged
    ("first", "首次提问（含建立可答性分析器，每个索引一次）", None),
    ("submit", "提问：提交 → 页面渲染完成（离线答题器）", 300),
    ("threshold", "移动阈值：重新筛选并渲染（不检索、不调模型）", 100),
    ("sources", "资料原文：打开文件并定位片段", 300),
    ("rebuilt", "清空索引缓存后首次渲染（重建索引）", 3000),
    ("cold", "冷启动：新进程首次渲染（导入模块 + 建索引）", 3000),
]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def synthetic_corpus(folder: Path, chunks: int) -> None:
    """Files of 200 sections × ~1 chunk each (the loader cuts at 160 chars), `chunks` in all."""
    per_file = 200
    for number in range(-(-chunks // per_file)):
        sections = [f"## 第 {number} 册 第 {s} 节\n\n第 {number} 册第 {s} 节：学员在开课后第 {s % 16 + 1} 课时内"
                    f"申请转班，按第 {number % 7 + 2} 条办理，手续费 {s % 5 * 50} 元，由教务在 {s % 3 + 1} 个工作日内审核。\n"
                    for s in range(per_file)]
        (folder / f"{number:05d}-制度汇编.md").write_text("".join(sections), encoding="utf-8")


def memory_line() -> str:
    """Resident memory of this process (the app runs in-process under AppTest): now and peak."""
    import resource

    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm") as statm:
        now = int(statm.read().split()[1]) * page / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return f"进程常驻内存（RSS）：当前 {now:.0f} MB，峰值 {peak:.0f} MB"


def report(title: str, times: dict[str, list[float]]) -> None:
    print(title)
    print(f"{'指标':<40}{'次数':>6}{'中位数 ms':>12}{'p95 ms':>10}{'目标 ms':>10}  结果")
    for key, what, target in ROWS:
        values = times.get(key)
        if not values:
            continue
        median = statistics.median(values)
        if target is None:
            print(f"{what:<40}{len(values):>6}{median:>12.0f}{p95(values):>10.0f}{'—':>10}  —")
            continue
        verdict = "达标" if p95(values) <= target else ("中位数达标" if median <= target else "未达标")
        print(f"{what:<40}{len(values):>6}{median:>12.0f}{p95(values):>10.0f}{target:>10}  {verdict}")


LARGE_ROWS = [  # key, what, target (ms or MB), unit
    ("cold_build", "首次建立索引（从零切分 + 索引 + 可答性词表）", 3000, "ms"),
    ("first", "首次提问（新索引上的第一个问题）", None, "ms"),
    ("submit", "提问：提交 → 页面渲染完成（之后的问题）", 300, "ms"),
    ("threshold", "移动阈值：重新筛选并渲染", 100, "ms"),
    ("sources", "资料原文：打开文件并定位片段", 300, "ms"),
    ("edit_rebuild", "改动一个文件后重建索引", 3000, "ms"),
    ("first_after_edit", "重建后的第一个问题", None, "ms"),
    ("later_after_edit", "重建后的后续问题", 300, "ms"),
    ("restart", "重启（新进程，模块已导入）：读回索引并首次渲染", 3000, "ms"),
    ("first_after_restart", "重启后的第一个问题", None, "ms"),
    ("later_after_restart", "重启后的后续问题", 300, "ms"),
]
BEFORE = ROOT / "bench" / "console_speed_before.json"  # the same child run on fe6ae9b (see --save-before)
PREVIOUS = ROOT / "bench" / "console_speed_previous.json"  # the same child run at the start of the last round (--save-previous)


def run_child(kind: str, root: Path, chunks: int, n: int) -> dict:
    """bench/console_large.py in fresh processes (their memory is the corpus's alone)."""
    from bench import console_large

    if kind == "large":
        return console_large.measure_large(root, chunks, n)
    return _huge(root, chunks, n)


def _huge(root: Path, chunks: int, n: int) -> dict:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "console_large.py"), "huge", str(root), str(chunks), str(n)],
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": f"{root}:{ROOT}"})
    if out.returncode != 0:
        raise RuntimeError(f"console_large.py huge failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cell(values: list[float] | None) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.0f}" + (f"/{p95(values):.0f}" if len(values) > 1 else "")


def report_large(chunks: int, now: dict, before: dict | None, previous: dict | None = None) -> None:
    """`before`: the fe6ae9b run; `previous`: another stored run (--save-previous), e.g. the start of this round."""
    columns = [(f"之前（{run['commit']}）", run) for run in (before, previous) if run]
    print(f"\n生成的大语料（约 {chunks:,} 个片段；单位 ms，多次时为 中位数/p95）")
    print(f"{'指标':<34}" + "".join(f"{label:>18}" for label, _ in columns) + f"{'现在':>14}{'目标':>8}  结果")
    for key, what, target, _ in LARGE_ROWS:
        mine = now["times"].get(key)
        if key in ("first_after_edit", "first_after_restart", "first"):
            later = now["times"][{"first": "submit", "first_after_edit": "later_after_edit",
                                  "first_after_restart": "later_after_restart"}[key]]
            verdict = "达标" if mine and statistics.median(mine) <= 1.5 * statistics.median(later) else "未达标"
            target_text = "≤1.5×后续"
        elif target is None or not mine:
            verdict, target_text = "—", "—"
        else:
            verdict = "达标" if statistics.median(mine) <= target else "未达标"
            target_text = str(target)
        olds = "".join(f"{_cell(run['times'].get(key)):>18}" for _, run in columns)
        print(f"{what:<34}{olds}{_cell(mine):>14}{target_text:>8}  {verdict}")
    for key, what, target in (("rss_steady", "RSS 稳定（重启后服务中，MB）", 400),
                              ("rss_peak", "RSS 峰值（建索引 + 改文件重建的进程，MB）", 700),
                              ("rss_after_rebuild", "RSS（同一进程重建两次之后，MB）", None)):
        olds = "".join(f"{(f'{run[key]:.0f}' if key in run else '—'):>18}" for _, run in columns)
        verdict = "—" if target is None else ("达标" if now[key] <= target else "未达标")
        print(f"{what:<34}{olds}{now[key]:>14.0f}{target or '—':>8}  {verdict}")


def report_huge(result: dict) -> None:
    print(f"\n只测核心（不经页面）：{result['chunks']:,} 个片段")
    print(f"建立索引 {result['build_s']:.1f} s；检索 + 可答性判断 p50 {result['query_p50']:.0f} ms、"
          f"p95 {result['query_p95']:.0f} ms；RSS 稳定 {result['rss_steady']:.0f} MB、峰值 {result['rss_peak']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="questions to ask (threshold moves: 3 per question)")
    parser.add_argument("--large", type=int, default=0, metavar="CHUNKS",
                        help="also measure on a generated corpus of about CHUNKS chunks (e.g. 100000), in a child process")
    parser.add_argument("--huge", type=int, default=0, metavar="CHUNKS",
                        help="measure the core alone (build, query p50/p95, RSS) on CHUNKS chunks (e.g. 1000000)")
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    parser.add_argument("--save-before", metavar="COMMIT",
                        help=f"with --large: store the result as the 'before' column in {BEFORE.name}")
    parser.add_argument("--save-previous", metavar="COMMIT",
                        help=f"with --large: store the result as a second 'before' column in {PREVIOUS.name}")
    parser.add_argument("--skip-shipped", action="store_true", help="skip the shipped-corpus table")
    args = parser.parse_args()
    if not args.skip_shipped:
        os.environ["XIAOE_AUTH"] = "off"  # measure the pages, not the login form
        with tempfile.TemporaryDirectory() as data:
            os.environ["XIAOE_DATA_DIR"] = data
            os.environ["XIAOE_CORPUS_DIR"] = str(ROOT / "corpus")
            report("随附资料（corpus/，离线答题器）", measure(args.repeat))
            print(memory_line())
    if args.large:
        result = run_child("large", args.root.resolve(), args.large, min(args.repeat, 5))
        saving = False
        for path, commit in ((BEFORE, args.save_before), (PREVIOUS, args.save_previous)):
            if commit:
                saving = True
                path.write_text(json.dumps({"commit": commit, "chunks": args.large, **result},
                                           ensure_ascii=False, indent=1), encoding="utf-8")
        stored = [json.loads(path.read_text(encoding="utf-8")) if path.exists() and not saving else None
                  for path in (BEFORE, PREVIOUS)]
        stored = [run if run and run.get("chunks") == args.large else None for run in stored]  # same size only
        report_large(args.large, result, *stored)
    if args.huge:
        report_huge(run_child("huge", args.root.resolve(), args.huge, 50))


if __name__ == "__main__":
    main()
