"""Retrieval speed at 1,000 / 10,000 / 100,000 chunks: the default index vs the seed's ways of ranking.

Run from the repository root:  .venv/bin/python bench/retrieval_speed.py   (about 3 minutes)

Corpus: the CMRC dev passages cut by the product's splitter (160/40) into ~3,800 chunks; larger
sizes add copies in which 10% of the characters are replaced by characters drawn from the
corpus and the text is rotated (numpy seed = copy number), so the vocabulary grows as a real
corpus would. Questions: 200 CMRC dev questions (random.Random(0)).

Rows per size:
- default: build_index, save_index + load_index (one .npz), search_with_score(k=10) over 200
  questions, memory = SearchIndex.memory_bytes();
- InMemoryVectorStore + HashingEmbeddings (dim 512): add_documents, similarity_search_with_score
  (k=10), memory = growth of the process's resident set while adding;
- the seed's Python loop over the same store (bench/seed_baseline.py).
The two slow rankers are sampled: the first n of the 200 questions (n in the table).
Every ranker gets 3 untimed warm-up questions first.
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import numpy as np  # noqa: E402
from langchain_core.documents import Document  # noqa: E402

from bench.cmrc import ATTRIBUTION, load_cmrc  # noqa: E402
from bench.seed_baseline import build_store, loop_search  # noqa: E402
from core.corpus.loader import make_splitter, split_text  # noqa: E402
from core.retrieval.index import build_index, search_with_score, top_k  # noqa: E402
from core.retrieval.store import load_index, save_index  # noqa: E402

SIZES = (1_000, 10_000, 100_000)
QUESTIONS = 200
STORE_SAMPLE = {1_000: 200, 10_000: 50, 100_000: 5}  # InMemoryVectorStore questions per size
LOOP_SAMPLE = {1_000: 50, 10_000: 10, 100_000: 2}     # seed loop questions per size
WARM_UP = 3
SUBSTITUTE = 0.10


def base_chunks(passages: list[Document]) -> list[str]:
    splitter = make_splitter(160, 40)
    return [c.page_content for p in passages for c in split_text(p.metadata["source"], p.page_content, splitter)]


def corpus(base: list[str], size: int) -> list[Document]:
    """`size` chunks: the base chunks, then perturbed copies (deterministic)."""
    pool = np.frombuffer("".join(base).encode("utf-32-le"), dtype=np.uint32)
    texts = list(base[:size])
    copy = 0
    while len(texts) < size:
        copy += 1
        rng = np.random.default_rng(copy)
        for text in base[:size - len(texts)]:
            codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).copy()
            swap = rng.random(codes.shape[0]) < SUBSTITUTE
            codes[swap] = pool[rng.integers(0, pool.shape[0], int(swap.sum()))]
            texts.append(np.roll(codes, int(rng.integers(0, codes.shape[0]))).tobytes().decode("utf-32-le"))
    return [Document(page_content=t, metadata={"source": f"c{i // 1000}.md", "chunk": i}) for i, t in enumerate(texts)]


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def latencies(search, questions: list[str]) -> tuple[float, float]:
    """p50 and p95 in milliseconds of `search(question)`, after a few untimed calls."""
    for q in questions[-WARM_UP:]:
        search(q)
    gc.collect()
    seconds = []
    for q in questions:
        start = time.perf_counter()
        search(q)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds) * 1000, float(np.percentile(seconds, 95)) * 1000


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def measure(chunks: list[Document], questions: list[str], folder: Path) -> dict:
    size = len(chunks)
    row: dict = {"size": size}
    index, row["build"] = timed(build_index, chunks)
    path = folder / f"speed-{size}.npz"
    _, row["save"] = timed(save_index, index, path)
    (loaded, _), row["load"] = timed(load_index, path)
    row["p50"], row["p95"] = latencies(lambda q: search_with_score(loaded, q, 10), questions)
    row["memory"] = index.memory_bytes()
    row["file"] = path.stat().st_size

    before = resident_bytes()
    store, row["store_build"] = timed(build_store, chunks)
    row["store_memory"] = resident_bytes() - before
    n = STORE_SAMPLE[size]
    row["store_n"] = n
    row["store_p50"], row["store_p95"] = latencies(lambda q: store.similarity_search_with_score(q, k=10), questions[:n])
    n = LOOP_SAMPLE[size]
    row["loop_n"] = n
    row["loop_p50"], row["loop_p95"] = latencies(lambda q: loop_search(store, q, 10), questions[:n])
    return row


def quality_check(data) -> str:
    """CMRC hit@1 of the default index, built in memory and after a save/load round trip."""
    index = build_index(data.passages)
    gold = data.gold_positions
    with tempfile.TemporaryDirectory() as tmp:
        save_index(index, Path(tmp) / "cmrc.npz")
        loaded, _ = load_index(Path(tmp) / "cmrc.npz")
    hits = [np.mean([top_k(ix.retriever.scores(q), 1)[0] == g for q, g in zip(data.questions, gold)])
            for ix in (index, loaded)]
    return f"CMRC dev hit@1：内存中 {hits[0]:.4f}，保存再载入后 {hits[1]:.4f}"


def main() -> int:
    data = load_cmrc()
    questions = random.Random(0).sample(data.questions, QUESTIONS)
    base = base_chunks(data.passages)
    print(f"CMRC 段落切成 {len(base)} 个基础片段（平均 {np.mean([len(b) for b in base]):.0f} 字）\n")
    print("| 片段数 | 默认：建索引 s | 保存 s | 载入 s | 每问 p50 ms | p95 ms | 内存 MB | "
          "InMemoryVectorStore：建 s | p50 ms | p95 ms | 内存 MB | 倍数 | 种子循环 p50 ms | 倍数 |")
    print("|" + "---|" * 14)
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            r = measure(corpus(base, size), questions, Path(tmp))
            print(f"| {size:,} | {r['build']:.2f} | {r['save']:.2f} | {r['load']:.3f} | {r['p50']:.3f} | {r['p95']:.3f} | "
                  f"{r['memory'] / 1e6:.1f} | {r['store_build']:.1f} | {r['store_p50']:.1f} (n={r['store_n']}) | "
                  f"{r['store_p95']:.1f} | {r['store_memory'] / 1e6:.0f} | {r['store_p50'] / r['p50']:,.0f}× | "
                  f"{r['loop_p50']:.1f} (n={r['loop_n']}) | {r['loop_p50'] / r['p50']:,.0f}× |", flush=True)
    print(f"\n{quality_check(data)}")
    print(f"\n数据：{ATTRIBUTION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
