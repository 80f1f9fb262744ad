"""The console at scale, measured in a child process so its memory is the large corpus's alone.

Used by bench/console_speed.py (`--large N`, `--huge N`). The child builds a generated corpus
(bench/console_speed.synthetic_corpus) and, through AppTest from the router, measures: the first
build from scratch, the first and later questions on it, a threshold move, the Sources page, a
rebuild after one file is edited (cache cleared, as a save did) with the first and later
question after it, and that process's peak memory; then a second child, a restart on the saved
index: read back, first and later questions, and its resident memory once serving (steady). The same child
runs against any checkout (`--root`), so the numbers of an earlier commit come from the same steps.
`--huge` measures the core alone (build, query p50/p95, memory): no page at a million chunks.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EDIT = "\n## 补充说明\n\n第 7 册补充：转班手续费在学期过半后另加 30 元，由教务在 2 个工作日内审核。\n"


def rss_mb() -> tuple[float, float]:
    """(now, peak) resident memory of this process in MB."""
    with open("/proc/self/statm") as statm:
        now = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return now, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _clock(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _check(at) -> None:
    if at.exception:
        raise RuntimeError(f"the app raised: {at.exception}")


def _ask(at, question: str) -> float:
    at.text_input(key="question").set_value(question)
    ms = _clock(lambda: at.button(key="ask").click().run())
    _check(at)
    return ms


def child_large(root: Path, data: str, corpus: str, repeat: int) -> dict:
    """Build from scratch, ask, edit one file and rebuild, ask again (the corpus is already generated)."""
    from streamlit.testing.v1 import AppTest

    router = str(root / "streamlit_app.py")
    times: dict[str, list[float]] = {k: [] for k in (
        "cold_build", "first", "submit", "threshold", "sources", "edit_rebuild", "first_after_edit",
        "later_after_edit")}
    asked = [f"第 {n} 册转班的手续费是多少？" for n in range(3 * repeat + 3)]
    os.environ.update(XIAOE_AUTH="off", XIAOE_DATA_DIR=data, XIAOE_CORPUS_DIR=corpus)
    start_rss = rss_mb()[0]
    times["cold_build"].append(_clock(lambda: _check(AppTest.from_file(router, default_timeout=900).run())))
    at = AppTest.from_file(router, default_timeout=900).run()
    times["first"].append(_ask(at, asked.pop()))
    for _ in range(repeat):
        times["submit"].append(_ask(at, asked.pop()))
        for value in (0.05, 0.35, 0.2):
            times["threshold"].append(_clock(lambda v=value: at.slider(key="threshold").set_value(v).run()))
            _check(at)
    for number in range(min(repeat, 7)):
        page = AppTest.from_file(router, default_timeout=900)
        page.query_params["source"] = f"{number * 37:05d}-制度汇编.md"
        page.query_params["chunk"] = str(number * 29)
        page.run()
        times["sources"].append(_clock(lambda p=page: p.switch_page("app_pages/sources.py").run()))
        _check(page)
    edited = Path(corpus) / "00007-制度汇编.md"
    edited.write_text(edited.read_text(encoding="utf-8") + EDIT, encoding="utf-8")
    import streamlit as st

    st.cache_resource.clear()  # what a save did before the index holder: the next run rebuilds
    times["edit_rebuild"].append(_clock(lambda: _check(AppTest.from_file(router, default_timeout=900).run())))
    at = AppTest.from_file(router, default_timeout=900).run()
    times["first_after_edit"].append(_ask(at, asked.pop()))
    times["later_after_edit"].extend(_ask(at, asked.pop()) for _ in range(repeat))
    gc.collect()
    now, peak = rss_mb()
    return {"times": times, "rss_start": start_rss, "rss_after_rebuild": now, "rss_peak": peak}


def child_restart(root: Path, data: str, corpus: str, repeat: int) -> dict:
    """A new process on the index saved by `child_large`: read back, ask, and its steady memory."""
    from streamlit.testing.v1 import AppTest

    router = str(root / "streamlit_app.py")
    os.environ.update(XIAOE_AUTH="off", XIAOE_DATA_DIR=data, XIAOE_CORPUS_DIR=corpus)
    times: dict[str, list[float]] = {"restart": [], "first_after_restart": [], "later_after_restart": []}
    import pandas  # noqa: F401  (modules and jieba's lexicon loaded first: the restart row is about the index)

    import ui.state  # noqa: F401
    from core import assistant  # noqa: F401
    from core.language import lexicon

    lexicon.lexicon()
    times["restart"].append(_clock(lambda: _check(AppTest.from_file(router, default_timeout=900).run())))
    at = AppTest.from_file(router, default_timeout=900).run()
    asked = [f"第 {n} 册转班的手续费是多少？" for n in range(40, 41 + repeat)]
    times["first_after_restart"].append(_ask(at, asked.pop()))
    times["later_after_restart"].extend(_ask(at, asked.pop()) for _ in range(repeat))
    gc.collect()
    now, peak = rss_mb()
    return {"times": times, "rss_steady": now, "rss_restart_peak": peak}


def measure_large(root: Path, chunks: int, repeat: int) -> dict:
    """Both children on one generated corpus; their results merged."""
    from bench.console_speed import synthetic_corpus

    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as corpus:
        synthetic_corpus(Path(corpus), chunks)
        built = _run("large", root, data, corpus, repeat)
        restarted = _run("restart", root, data, corpus, repeat)
    return {**built, **restarted, "times": {**built["times"], **restarted["times"]}}


def _run(kind: str, root: Path, data: str, corpus: str, repeat: int) -> dict:
    out = subprocess.run([sys.executable, __file__, kind, str(root), data, corpus, str(repeat)],
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONWARNINGS": "ignore",  # the checkout measured comes first
                              "PYTHONPATH": f"{root}:{Path(__file__).resolve().parent.parent}"})
    if out.returncode != 0:
        raise RuntimeError(f"console_large.py {kind} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def child_huge(root: Path, chunks: int, queries: int) -> dict:
    from bench.console_speed import synthetic_corpus
    from core.assistant import build_assistant
    from core.retrieval.store import load_or_build
    from core.settings import Settings

    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as corpus:
        synthetic_corpus(Path(corpus), chunks)
        settings = Settings.from_env({"XIAOE_DATA_DIR": data, "XIAOE_CORPUS_DIR": corpus})
        start_rss = rss_mb()[0]
        started = time.perf_counter()
        bundle = load_or_build(settings)
        build_s = time.perf_counter() - started
        assistant = build_assistant(settings, bundle, None)
        query_ms = [_clock(lambda n=n: assistant.gate(assistant.retrieve(f"第 {n * 17} 册转班的手续费是多少？")))
                    for n in range(queries)]
        gc.collect()
        now, peak = rss_mb()
    return {"chunks": len(bundle.index), "build_s": build_s, "query_p50": statistics.median(query_ms),
            "query_p95": sorted(query_ms)[min(len(query_ms) - 1, round(0.95 * (len(query_ms) - 1)))],
            "rss_start": start_rss, "rss_steady": now, "rss_peak": peak}


if __name__ == "__main__":  # a child: python bench/console_large.py large|restart ROOT DATA CORPUS N, or huge ROOT CHUNKS N
    kind, root = sys.argv[1], Path(sys.argv[2])
    if kind == "huge":
        result = child_huge(root, int(sys.argv[3]), int(sys.argv[4]))
    else:
        result = (child_large if kind == "large" else child_restart)(root, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    print(json.dumps(result, ensure_ascii=False))
