"""Compare two stored 1,000-question runs: storage per run, the compare in core, and the tuning page drawing it.

The 1,000 questions are bench/tuning_speed.py's deterministic set (the default set with polite prefixes and
closings). Run A is the gate at the knobs in force; run B is the gate at a threshold of 0.30 with one planted
sentence of the corpus edited in a copy, so the compare has hundreds of flips and one changed section to diff.
Both go through the one Assistant and are stored with core.stores.runs.RunStore on a fresh SQLite file.
Printed: per run the stored (compressed) payload, its uncompressed JSON, the section texts it added and the
growth of the SQLite file; then `compare_stored` in core; then the tuning page's whole script run (AppTest,
server-side, the 运行记录 tab open comparing A and B), wall and CPU time of the script thread, 10 reruns.

Run: .venv/bin/python -m bench.runs_compare
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ("01-口语课分级说明.md", "每周上 2 课时，八周结课。", "上课的周数和每周课时请咨询班主任。")
BUDGET_MS = 1000.0
RERUNS = 10


def store_runs(tmp: Path) -> list[tuple[str, int, int, int, int]]:
    """Evaluate and store A and B; per run (name, stored payload, raw payload, section bytes added, file growth)."""
    from bench.sets import bench_assistant
    from bench.tuning_speed import perturbed_set
    from core.corpus.snapshot import snapshot
    from core.evaluation.metrics import evaluate_at, evaluate_set
    from core.evaluation.runs import run_from_evaluation
    from core.settings import Settings
    from core.stores.db import Database
    from core.stores.runs import RunStore

    settings = Settings.from_env()
    assistant = bench_assistant(settings)
    qset = perturbed_set()
    evaluated = evaluate_set(assistant, qset)
    edited = tmp / "corpus"
    shutil.copytree(settings.corpus_dir, edited)
    name, old, new = PLANTED
    path = edited / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    db_file = Path(settings.db_url.removeprefix("sqlite:///"))
    store = RunStore(Database(settings.db_url))
    out = []
    for run_name, knobs, corpus in (("A", assistant.knobs, snapshot(settings.corpus_dir)),
                                    ("B", assistant.knobs.with_(threshold=0.30), snapshot(edited))):
        size_before = _file_bytes(db_file)
        sections_before = _section_bytes(store)
        store.save(run_from_evaluation(run_name, assistant, evaluate_at(evaluated, knobs), set_name="千题测速",
                                       set_version=None, actor="bench", corpus=corpus))
        stored, raw = store.payload_bytes(run_name)
        out.append((run_name, stored, raw, _section_bytes(store) - sections_before,
                    _file_bytes(db_file) - size_before))
    store.db.dispose()
    return out


def _file_bytes(db_file: Path) -> int:
    """The database file plus its write-ahead log (SQLite in WAL mode writes there first)."""
    return sum(p.stat().st_size for p in (db_file, db_file.with_name(db_file.name + "-wal")) if p.exists())


def _section_bytes(store) -> int:
    from sqlalchemy import func, select

    from core.stores.runs import run_sections

    with store.db.read() as conn:
        return int(conn.execute(select(func.coalesce(func.sum(func.length(run_sections.c.body)), 0))).scalar())


def core_compare_ms() -> tuple[list[float], int, int]:
    from core.evaluation.run_compare import compare_stored
    from core.settings import Settings
    from core.stores.db import Database
    from core.stores.runs import RunStore

    store = RunStore(Database(Settings.from_env().db_url))
    times, result = [], None
    for _ in range(RERUNS):
        start = time.perf_counter()
        result = compare_stored(store, "A", "B")
        times.append((time.perf_counter() - start) * 1000)
    store.db.dispose()
    return times, len(result.flips), len(result.files)


def apptest_ms() -> list[tuple[float, float]]:
    """(wall ms, CPU ms) of the tuning page's script thread, the 运行记录 tab comparing A → B."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from bench.tuning_speed import timed_script_runs

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120).run()
    at.switch_page("app_pages/tuning.py").run()
    at.session_state["tune_tab"] = "运行记录"
    at.run()
    at.selectbox(key="tune_compare_a").set_value("A")
    at.selectbox(key="tune_compare_b").set_value("B").run()
    assert not at.exception, at.exception
    assert any("A → B" in m.value for m in at.markdown), "the compare view was not drawn"
    out = []
    with timed_script_runs() as runs:
        for _ in range(RERUNS):
            runs.clear()
            at.run()
            assert not at.exception, at.exception
            out.append((sum(w for w, _ in runs), sum(c for _, c in runs)))
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(XIAOE_DATA_DIR=str(Path(tmp) / "data"), XIAOE_AUTH="off")
        stored = store_runs(Path(tmp))
        core_times, flips, files = core_compare_ms()
        page = apptest_ms()
    print("每次运行的存储（1,000 题）")
    print("运行  压缩后的逐题数据  未压缩 JSON  新增小节原文  SQLite 文件增长")
    for name, packed, raw, sections, growth in stored:
        print(f"{name:<4}  {packed / 1024:>12.1f} KB  {raw / 1024:>8.1f} KB  {sections / 1024:>9.1f} KB"
              f"  {growth / 1024:>11.1f} KB")
    print(f"\n比较 A → B：{flips} 道题结果变了，{files} 个资料文件有变化")
    print("测量                                   中位数      最慢")
    print(f"core compare_stored（读两次运行+比较）  {statistics.median(core_times):>7.1f} ms  {max(core_times):>7.1f} ms")
    walls, cpus = [w for w, _ in page], [c for _, c in page]
    print(f"调优页整页重跑（AppTest，墙钟）       {statistics.median(walls):>7.1f} ms  {max(walls):>7.1f} ms")
    print(f"调优页整页重跑（AppTest，脚本线程 CPU）{statistics.median(cpus):>7.1f} ms  {max(cpus):>7.1f} ms")
    ok = statistics.median(walls) <= BUDGET_MS
    print(f"目标：整页重跑 ≤ {BUDGET_MS:.0f} ms（中位数）— {'达到' if ok else '未达到'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
