"""Retrieval quality: the seed's hashing retriever beside the default, on CMRC dev and on the school's set.

Run from the repository root:  .venv/bin/python bench/retrieval_quality.py

CMRC protocol (../shared/bench/cmrc2018-dev/LICENSE.md): index whole passages; hit@1/3/5 and
MRR@10 on the full index; ROC AUC of the top-1 score, answerable vs held-out, on the index
without the held-out 20%. Ranks come from `core.retrieval.index.top_k` (stable tie-break), as in the
product. The seed and the previous default (TF-IDF cosine) read chunk text only, as they did;
the default also reads each chunk's section heading (CMRC passages have none).

School set: bench/data/calibration.csv on the shipped corpus (26 chunks): the top-1 chunk
must come from the expected file; AUC of the top-1 score, answerable vs 应拒答.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import numpy as np  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from scipy import sparse  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from bench.cmrc import ATTRIBUTION, load_cmrc  # noqa: E402
from core.corpus.loader import load_documents  # noqa: E402
from core.evaluation.calibration import SETS_DIR  # noqa: E402
from core.language.text import normalize  # noqa: E402
from core.retrieval.embeddings import HashingEmbeddings  # noqa: E402
from core.retrieval.index import DenseRetriever, LexicalRetriever, Retriever, build_index, top_k  # noqa: E402

CALIBRATION = SETS_DIR / "calibration.csv"
REFUSE = "应拒答"


@dataclass(frozen=True, eq=False)
class TfidfCosine:
    """The previous default: sklearn TF-IDF (sublinear tf, smooth idf, l2) over char 1–2-grams, cosine."""

    vectorizer: TfidfVectorizer
    matrix: sparse.csr_matrix
    name: str = "tfidf"

    @classmethod
    def fit(cls, texts: list[str]) -> TfidfCosine:
        vectorizer = TfidfVectorizer(analyzer="char", preprocessor=normalize, lowercase=False, ngram_range=(1, 2),
                                     sublinear_tf=True, dtype=np.float32)
        return cls(vectorizer, vectorizer.fit_transform(texts).tocsr())

    def scores(self, query: str) -> np.ndarray:
        return np.asarray((self.matrix @ self.vectorizer.transform([query]).T).todense()).ravel().astype(np.float32)


def _texts(chunks: list[Document]) -> list[str]:
    return [c.page_content for c in chunks]


SEED = ("种子：HashingEmbeddings 余弦", lambda chunks: DenseRetriever.fit(_texts(chunks), HashingEmbeddings()))
TFIDF = ("参考：TF-IDF 字 1–2 元余弦（旧默认）", lambda chunks: TfidfCosine.fit(_texts(chunks)))
NO_HEADING = ("默认打分，但不读小节标题", lambda chunks: LexicalRetriever.fit(_texts(chunks)))
DEFAULT = ("默认：BM25 字 1–2 元 idf² 覆盖率", lambda chunks: build_index(chunks).retriever)


def ranks_and_tops(retriever: Retriever, questions: list[str], gold: list[int] | None) -> tuple[list[int], list[float], list[float]]:
    """Rank of the gold chunk per question (11 when below 10), top-1 score, and latency in seconds."""
    ranks, tops, seconds = [], [], []
    for i, question in enumerate(questions):
        start = time.perf_counter()
        scores = retriever.scores(question)
        best = top_k(scores, 10)
        seconds.append(time.perf_counter() - start)
        tops.append(float(scores[best[0]]) if best.size else 0.0)
        if gold is not None:
            hit = np.flatnonzero(best == gold[i])
            ranks.append(int(hit[0]) + 1 if hit.size else 11)
    return ranks, tops, seconds


def cmrc_table() -> list[str]:
    data = load_cmrc()
    reduced = data.reduced()
    gold = data.gold_positions
    lines = ["| 检索方式 | hit@1 | hit@3 | hit@5 | MRR@10 | 拒答 AUC | 建索引 s | 每问 p50 ms |",
             "|---|---|---|---|---|---|---|---|"]
    for name, make in (SEED, TFIDF, DEFAULT):  # CMRC passages have no headings: NO_HEADING == DEFAULT
        start = time.perf_counter()
        full = make(data.passages)
        build = time.perf_counter() - start
        ranks, _, seconds = ranks_and_tops(full, data.questions, gold)
        _, tops, _ = ranks_and_tops(make(reduced), data.questions, None)
        r = np.array(ranks)
        mrr = float(np.where(r <= 10, 1.0 / r, 0.0).mean())
        auc = roc_auc_score(data.answerable, tops)
        lines.append(f"| {name} | {(r <= 1).mean():.4f} | {(r <= 3).mean():.4f} | {(r <= 5).mean():.4f} | "
                     f"{mrr:.4f} | {auc:.4f} | {build:.2f} | {statistics.median(seconds) * 1000:.2f} |")
    return lines


def school_table() -> list[str]:
    chunks = load_documents(ROOT / "corpus")
    rows = list(csv.DictReader(CALIBRATION.open(encoding="utf-8")))
    answerable = [r["expected"] != REFUSE for r in rows]
    lines = ["| 检索方式 | 首条来自正确文件 | 首条是正确小节 | 拒答 AUC | 可答题最低首分 | 应拒题最高首分 |",
             "|---|---|---|---|---|---|"]
    for name, make in (SEED, TFIDF, NO_HEADING, DEFAULT):
        retriever = make(chunks)
        file_ok = section_ok = 0
        tops = []
        for row, can in zip(rows, answerable):
            scores = retriever.scores(row["question"])
            best = int(top_k(scores, 1)[0])
            tops.append(float(scores[best]))
            meta = chunks[best].metadata
            file_ok += can and meta["source"] == row["expected"]
            section_ok += can and meta["source"] == row["expected"] and meta["heading"] == row["section"]
        tops_a = [t for t, can in zip(tops, answerable) if can]
        tops_u = [t for t, can in zip(tops, answerable) if not can]
        n = sum(answerable)
        lines.append(f"| {name} | {file_ok}/{n} | {section_ok}/{n} | {roc_auc_score(answerable, tops):.4f} | "
                     f"{min(tops_a):.3f} | {max(tops_u):.3f} |")
    return lines


def main() -> int:
    print("## CMRC 2018 dev：848 段全文入索引，3219 问\n")
    print("\n".join(cmrc_table()))
    print(f"\n数据：{ATTRIBUTION}；拒答 AUC 按 LICENSE.md 的留出协议（留出 20% 段落）。\n")
    print(f"## 本校资料：{CALIBRATION.relative_to(ROOT)}（26 个片段，46 问可答、20 问应拒答）\n")
    print("\n".join(school_table()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

