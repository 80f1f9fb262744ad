"""Does a long-running console grow? 200 corpus saves + rebuilds in one process, three GC policies side by side.

Run from the repository root:  .venv/bin/python -m bench.memory_over_time [--saves 200] [--chunks 0]

Each policy runs in its own child process, on a copy of the shipped corpus (or, with --chunks N, a
generated corpus of about N chunks, bench/console_speed.synthetic_corpus) and its own SQLite file. One
round is what a console does after an admin saves a document: CorpusAdmin.save, IndexHolder.refresh
(sync, rebuild, swap), a new Assistant built for the new index, one question answered. After rounds
0, 25%, 50%, 75% and 100% it records resident memory and the number of objects the cyclic collector
tracks; at the end, the time of one full collection (the pause a slider move could meet) and how many
objects a collection still finds unreachable. Policies:
  none    no gc.freeze at all
  freeze  gc.collect(); gc.freeze() after every swap and assistant build (core.memory.keep_long_lived: the console)
  settle  gc.unfreeze(); gc.collect(); gc.freeze(): thaw first, so that cyclic garbage of a replaced index
          frozen earlier could be collected too
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ("none", "freeze", "settle")
EDITED = "02-退费与转班制度.md"
QUESTION = "我报的二级 交了4200 上了6节课 现在退能退多少"


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _policy(name: str):
    import core.memory

    if name == "none":
        return lambda: None
    if name == "freeze":
        return core.memory.keep_long_lived

    def settle() -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    return settle


def child(policy: str, saves: int, chunks: int) -> dict:
    """One console process: `saves` rounds of save → rebuild → new assistant → one question."""
    import core.memory
    import core.serving.holder as holder_module
    from core.answerability.glossary import load_starter
    from core.assistant import build_assistant
    from core.serving.holder import IndexHolder, prepare_analyzer
    from core.settings import Settings
    from core.stores.corpus_admin import CorpusAdmin
    from core.stores.db import open_database
    from core.stores.roles import User

    keep = _policy(policy)
    core.memory.keep_long_lived = keep
    holder_module.keep_long_lived = keep
    work = Path(tempfile.mkdtemp(prefix="xiaoe-mem-"))
    corpus = work / "corpus"
    if chunks:
        from bench.console_speed import synthetic_corpus

        synthetic_corpus(corpus, chunks)
    else:
        shutil.copytree(ROOT / "corpus", corpus)
    settings = Settings(corpus_dir=corpus, data_dir=work / "data")
    holder = IndexHolder(settings, prepare=prepare_analyzer(settings))
    holder.refresh()
    admin = CorpusAdmin(open_database(settings.db_url), corpus)
    boss = User("boss", "校长", "admin")
    glossary = load_starter()
    name = EDITED if (corpus / EDITED).exists() else sorted(p.name for p in corpus.glob("*.md"))[0]
    original = (corpus / name).read_text(encoding="utf-8")
    marks = sorted({0, saves // 4, saves // 2, 3 * saves // 4, saves})
    rows = []
    start = time.perf_counter()
    for round_ in range(saves + 1):
        if round_:
            admin.save(boss, name, original + f"\n\n第 {round_} 次修改的补充说明。\n")
            holder.refresh()
        assistant = build_assistant(settings, holder.bundle(), glossary)
        keep()  # what ui/state does after building the cached assistant
        assistant.respond(QUESTION)
        if round_ in marks:
            rows.append({"round": round_, "rss_mb": round(rss_mb(), 1), "tracked": len(gc.get_objects()),
                         "frozen": gc.get_freeze_count()})
    seconds = time.perf_counter() - start
    pause = time.perf_counter()
    unreachable = gc.collect()
    pause_ms = (time.perf_counter() - pause) * 1000
    shutil.rmtree(work, ignore_errors=True)
    return {"policy": policy, "rows": rows, "pause_ms": round(pause_ms, 1), "unreachable": unreachable,
            "seconds": round(seconds, 1)}


def run(policy: str, saves: int, chunks: int) -> dict:
    out = subprocess.run([sys.executable, "-m", "bench.memory_over_time", "--child", policy, "--saves", str(saves),
                          "--chunks", str(chunks)], cwd=ROOT, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"child {policy} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=0, help="generated corpus of about this many chunks (0: shipped)")
    parser.add_argument("--child", choices=POLICIES)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.saves, args.chunks)))
        return 0
    results = [run(policy, args.saves, args.chunks) for policy in POLICIES]
    corpus = f"生成的约 {args.chunks:,} 个片段" if args.chunks else "随附资料"
    print(f"### {args.saves} 次保存 + 重建，一个进程（{corpus}）\n")
    print("| 策略 | " + " | ".join(f"第 {r['round']} 次 RSS MB / 跟踪对象" for r in results[0]["rows"])
          + " | 冻结对象 | 一次完整回收 | 回收到的不可达对象 | 总用时 |")
    print("|---" * (len(results[0]["rows"]) + 5) + "|")
    for r in results:
        cells = " | ".join(f"{row['rss_mb']} / {row['tracked']:,}" for row in r["rows"])
        print(f"| {r['policy']} | {cells} | {r['rows'][-1]['frozen']:,} | {r['pause_ms']} ms | {r['unreachable']:,} | "
              f"{r['seconds']} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
