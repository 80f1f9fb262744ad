"""How fast and how sure is the 敏感词 automaton?

Run from the repository root:  .venv/bin/python -m bench.sensitive [--words 10000]

Builds the automaton (core.privacy.sensitive) over the shipped starter list plus `--words` made-up words (3 to 5
characters drawn with a fixed seed from the CJK block, so they are no real words), then:
- speed: every student question of the labelled sets (every text cell of bench/data/*.csv) matched once; the
  median and 99th percentile time per message, and the same for a loop over the words (`word in text`);
- planted: one listed word put at a random place in each message and three in each document of the corpus;
  the share caught;
- false hits: listed words found in the unchanged corpus and labelled sets (should be none).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import time
from pathlib import Path

from core.privacy.sensitive import WORD, Matcher, Word
from core.stores.sensitive_words import STARTER

DATA = Path(__file__).resolve().parent / "data"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def starter_words() -> list[Word]:
    with STARTER.open(encoding="utf-8-sig", newline="") as handle:
        return [Word(r["word"], r["category"], r["kind"]) for r in csv.DictReader(handle)]


def made_up(count: int, seed: int = 43) -> list[Word]:
    rng = random.Random(seed)
    out: set[str] = set()
    while len(out) < count:
        out.add("".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(3, 5))))
    return [Word(w, "测试") for w in sorted(out)]


def set_texts() -> list[str]:
    """Every non-numeric text cell of every labelled set (bench/data/*.csv)."""
    texts: list[str] = []
    for path in sorted(DATA.glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.reader(handle):
                texts += [cell for cell in row if cell.strip() and not cell.strip().replace(".", "").isdigit()]
    return texts


def corpus_texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.md"))]


def _timed(function, texts: list[str]) -> list[float]:
    out = []
    for text in texts:
        start = time.perf_counter()
        function(text)
        out.append((time.perf_counter() - start) * 1e6)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=10_000)
    args = parser.parse_args(argv)
    words = starter_words() + made_up(args.words)
    listed = [w.text for w in words if w.kind == WORD]
    start = time.perf_counter()
    matcher = Matcher(words)
    built_ms = (time.perf_counter() - start) * 1000
    messages = set_texts()
    documents = corpus_texts()
    fast = _timed(matcher.find, messages)
    loop = _timed(lambda text: [w for w in listed if w in text], messages[:500])
    rng = random.Random(7)
    caught = total = 0
    for text in messages:
        word = rng.choice(listed)
        at = rng.randint(0, len(text))
        total += 1
        caught += any(h.word == word for h in matcher.find(text[:at] + word + text[at:]))
    doc_caught = doc_total = 0
    for text in documents:
        for _ in range(3):
            word = rng.choice(listed)
            at = rng.randint(0, len(text))
            doc_total += 1
            doc_caught += any(h.word == word for h in matcher.find(text[:at] + word + text[at:]))
    false_hits = [h.word for text in messages + documents for h in matcher.find(text)]
    print(f"词表：{len(listed)} 个敏感词（随附初始词表 + {args.words} 个编造的词），白名单 {len(words) - len(listed)} 个；"
          f"建自动机 {built_ms:.0f} ms\n")
    print("| 做法 | 消息数 | 中位数 | 99 分位 |")
    print("| --- | --- | --- | --- |")
    print(f"| 自动机（pyahocorasick） | {len(messages)} | {statistics.median(fast):.1f} µs | "
          f"{sorted(fast)[int(len(fast) * 0.99) - 1]:.1f} µs |")
    print(f"| 逐词循环（word in text） | {len(loop)} | {statistics.median(loop):.0f} µs | "
          f"{sorted(loop)[int(len(loop) * 0.99) - 1]:.0f} µs |")
    print(f"\n埋进消息的词找到：{caught}/{total}；埋进资料的词找到：{doc_caught}/{doc_total}")
    print(f"原样的资料和标注题集里的误中：{len(false_hits)}" + (f"（{'、'.join(sorted(set(false_hits)))}）" if false_hits else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
