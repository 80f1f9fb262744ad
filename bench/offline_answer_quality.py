"""How often does the offline answer itself state the labelled fact, and how much of it is filler?

Bigrams alone vs bigrams + keywords (compose_answer on the passing chunks) vs the chain's answer step
(Assistant.answer: the same composer after a chunk stating a rule the student's computation needs joins the
passing ones, core.assistant; what the Ask page, the CLI and eval show). The headline figure is the chain's;
the keywords column is what this bench reported before round 4 (it left the rule chunks out).

Run from the repository root:  .venv/bin/python -m bench.offline_answer_quality

For every question of the labelled sets that the decision answers correctly (a passing chunk holds
the key phrase; k=3, defaults, starter glossary), the offline answerer composes its answer from the
passing chunks twice, side by side: from the question's bigrams only (as before: cutoff 0.25) and
with the decision's terms too (what the Assistant's answer step does, cutoff RELATIVE_CUTOFF). A
good answer holds the key phrase (any of its `|` wordings) in its own text, not only in a cited chunk.
Filler: the share of answer sentences holding no content word of the question (no form of any of
the decision's terms with weight > 0, nor a figure of the question as written: 二级, 4200), e.g. 「本制度适用于…全部口语课学员」 under 「口语课一共有几级」.
"""

from __future__ import annotations

import statistics

from bench.sets import CALIBRATION_SETS, DEV_STUDENT_SETS, HELDOUT_SETS, bench_assistant, run
from core.answerability.terms import credit
from core.answering.offline import RELATIVE_CUTOFF, compose_answer
from core.checks.grounding import split_sentences
from core.evaluation.metrics import CORRECT_ANSWER
from core.language.figures import extract_figures
from core.language.text import normalize
from core.sets.format import holds_key_phrase
from core.values import Term

BIGRAM_ONLY_CUTOFF = 0.25  # the answerer's cutoff before it read the decision's terms


def filler_count(text: str, question: str, terms: tuple[Term, ...]) -> tuple[int, int]:
    """(sentences with no content word of the question, sentences) of one answer.

    A content word: a whole form of one of the decision's terms with weight > 0, or one of the
    question's figures as written (二级, 4200). Stricter than the answerer's own filter (half a term).
    """
    words = [t for t in terms if t.weight > 0]
    figures = [normalize(f.text) for f in extract_figures(question)]
    sentences = [normalize(text[a:b]) for a, b in split_sentences(text)]
    empty = sum(1 for s in sentences
                if not any(credit(t, [s]) >= 1.0 for t in words) and not any(f and f in s for f in figures))
    return empty, len(sentences)


Row = tuple[bool, int, int, int]  # holds the fact, characters, sentences, filler sentences


VARIANTS = ("bigrams", "keywords", "chain")


def compare(assistant, evaluated, evaluation) -> dict[str, list[Row]]:
    """Per variant: (holds the fact, characters, sentences, filler sentences) per correctly answered question."""
    rows: dict[str, list[Row]] = {name: [] for name in VARIANTS}
    for q, gate, outcome in zip(evaluated.questions, evaluation.gates, evaluation.outcomes):
        if outcome != CORRECT_ANSWER:
            continue
        references = tuple((n, h.text) for n, h in enumerate(gate.hits, start=1))
        terms = gate.decision.terms
        texts = {name: compose_answer(q.question, references, words, cutoff=cutoff)
                 for name, words, cutoff in (("bigrams", (), BIGRAM_ONLY_CUTOFF), ("keywords", terms, RELATIVE_CUTOFF))}
        texts["chain"] = assistant.answer(gate).text
        for name, text in texts.items():
            filler, sentences = filler_count(text, q.question, terms)
            rows[name].append((holds_key_phrase(text, q.key_phrase), len(text), sentences, filler))
    return rows


def main() -> int:
    assistant = bench_assistant()
    print(f"# 离线回答是否说出了事实（{assistant.knobs.describe()}，初始同义词表；只看判断正确回答的题）\n")
    print("| 题集 | 题数 | 只看二元组：含事实 | 平均字数 | 加上关键词（只用通过的片段）：含事实 | 平均字数 | "
          "问答链的回答（Assistant.answer）：含事实 | 平均字数 | 平均句数 | 无关句占比 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    total: dict[str, list[Row]] = {name: [] for name in VARIANTS}
    for _label, file in (*HELDOUT_SETS, *DEV_STUDENT_SETS, *CALIBRATION_SETS):
        rows = compare(assistant, *run(assistant, file))
        for name in total:
            total[name].extend(rows[name])
        print(_row(file, rows))
    print(_row("**合计**", total))
    return 0


def _row(label: str, rows: dict[str, list[Row]]) -> str:
    n = len(rows["bigrams"])
    if not n:
        return f"| {label} | 0 | – | – | – | – | – | – | – | – |"
    cells = []
    for name in VARIANTS:
        held = sum(r[0] for r in rows[name])
        cells += [f"{held}/{n} ({held / n:.1%})", f"{statistics.mean(r[1] for r in rows[name]):.0f}"]
    keyword_rows = rows["chain"]
    sentences = sum(r[2] for r in keyword_rows)
    filler = sum(r[3] for r in keyword_rows)
    share = f"{filler}/{sentences} ({filler / sentences:.1%})" if sentences else "–"
    return (f"| {label} | {n} | " + " | ".join(cells)
            + f" | {statistics.mean(r[2] for r in keyword_rows):.1f} | {share} |")


if __name__ == "__main__":
    raise SystemExit(main())
