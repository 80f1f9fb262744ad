"""How often does the offline answer itself state the labelled fact? Bigrams alone vs bigrams + keywords.

Run from the repository root:  .venv/bin/python bench/offline_answer_quality.py

For every question of the labelled sets that the decision answers correctly (a passing chunk holds
the key phrase; k=3, defaults, starter glossary), the offline answerer composes its answer from the
passing chunks twice, side by side: from the question's bigrams only (as before: cutoff 0.25) and
with the decision's terms too (what core.rag.stream_text does now, cutoff RELATIVE_CUTOFF). A
good answer holds the key phrase (any of its `|` wordings) in its own text, not only in a cited chunk.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from answerability import CALIBRATION_SETS, DEV_STUDENT_SETS, HELDOUT_SETS, read_rows  # noqa: E402

from core.answerability import CORRECT_ANSWER, DECISION_THRESHOLD, evaluate_decisions  # noqa: E402
from core.glossary import load_starter  # noqa: E402
from core.index_store import load_or_build  # noqa: E402
from core.llm import RELATIVE_CUTOFF, compose_answer  # noqa: E402
from core.question_set_format import holds_key_phrase  # noqa: E402
from core.settings import Settings  # noqa: E402

DATA = ROOT / "tests" / "data"
BIGRAM_ONLY_CUTOFF = 0.25  # the answerer's cutoff before it read the decision's terms


def compare(outcomes) -> dict[str, list[tuple[bool, int, int]]]:
    """Per variant: (holds the fact, characters, sentences) for each correctly answered question."""
    rows: dict[str, list[tuple[bool, int, int]]] = {"bigrams": [], "keywords": []}
    for o in outcomes:
        if o.outcome != CORRECT_ANSWER:
            continue
        references = tuple((n, h.text) for n, h in enumerate((h for h in o.hits if h.passed), start=1))
        for name, words, cutoff in (("bigrams", (), BIGRAM_ONLY_CUTOFF), ("keywords", o.decision.terms, RELATIVE_CUTOFF)):
            text = compose_answer(o.question, references, words, cutoff=cutoff)
            rows[name].append((holds_key_phrase(text, o.key_phrase), len(text), text.count("]")))
    return rows


def main() -> int:
    bundle = load_or_build(Settings.from_env())
    glossary = load_starter()
    print(f"# 离线回答是否说出了事实（阈值 {DECISION_THRESHOLD:.2f}，k=3，初始同义词表；只看判断正确回答的题）\n")
    print("| 题集 | 题数 | 只看二元组（原做法）：含事实 | 平均字数 | 加上关键词（现在）：含事实 | 平均字数 | 平均句数（原 → 现） |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    total: dict[str, list[tuple[bool, int, int]]] = {"bigrams": [], "keywords": []}
    for _label, file in (*HELDOUT_SETS, *DEV_STUDENT_SETS, *CALIBRATION_SETS):
        rows = compare(evaluate_decisions(read_rows(DATA / file), bundle, glossary, DECISION_THRESHOLD, 3))
        for name in total:
            total[name].extend(rows[name])
        print(_row(file, rows))
    print(_row("**合计**", total))
    return 0


def _row(label: str, rows: dict[str, list[tuple[bool, int, int]]]) -> str:
    n = len(rows["bigrams"])
    if not n:
        return f"| {label} | 0 | – | – | – | – | – |"
    cells = []
    for name in ("bigrams", "keywords"):
        held = sum(r[0] for r in rows[name])
        cells += [f"{held}/{n} ({held / n:.1%})", f"{statistics.mean(r[1] for r in rows[name]):.0f}"]
    sentences = " → ".join(f"{statistics.mean(r[2] for r in rows[name]):.1f}" for name in ("bigrams", "keywords"))
    return f"| {label} | {n} | " + " | ".join(cells) + f" | {sentences} |"


if __name__ == "__main__":
    raise SystemExit(main())
