"""What a consultant can do about each wrong outcome of an evaluation: the words that matter and a hint.

Reads an `Evaluation` (core.evaluation.metrics) and never decides anything itself; the tuning page offers
「加入同义词」 on the words of each 误拒, and `python -m core eval --misses` prints the same hints.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.answerability.decision import _quote
from core.evaluation.metrics import FALSE_ANSWER, FALSE_REFUSAL, WRONG_SOURCE, EvaluatedSet, Evaluation, row_reason


@dataclass(frozen=True)
class MissExplanation:
    """One wrong outcome: the question, the words that matter, the consultant's next step."""

    question: str
    outcome: str
    words: tuple[str, ...]
    hint: str
    reason: str


def explain_misses(evaluated: EvaluatedSet, evaluation: Evaluation) -> tuple[MissExplanation, ...]:
    """For each 误拒 the words the passing chunks lack (absent-from-corpus first); for each 误答 or
    命中错误资料 the words that carried it."""
    out = []
    for q, gate, outcome in zip(evaluated.questions, evaluation.gates, evaluation.outcomes):
        d = gate.decision
        if q.gone:
            out.append(MissExplanation(q.question, outcome, (), f"{q.gone}：资料改了，把这一小节补回资料，"
                                       "或按现在的资料改这道题的预期", row_reason(q, gate)))
            continue
        if outcome == FALSE_REFUSAL:
            words = tuple(dict.fromkeys((*d.unknown_terms, *d.uncovered_terms))) if d else ()
            hint = (f"资料用的说法和学员不同：可把{_quote(list(words))}加为资料里对应词的同义词，再重新评测"
                    if words else f"没有缺词，是分数或覆盖不够：{gate.reason}")
        elif outcome == WRONG_SOURCE:
            words = d.carrying_terms if d else ()
            hint = (f"答了，但命中的片段里没有题集标的关键句“{q.key_phrase}”（应来自 {q.expected}）："
                    "正确的小节没排进前 k，可调大 k 或给学员的说法加同义词；也请核对关键句是否标对")
        elif outcome == FALSE_ANSWER:
            words = d.carrying_terms if d else ()
            mapped = [t.text for t in d.terms if t.via_glossary and t.text in words] if d else []
            hint = (f"这些词让问题看起来资料里有答案：{_quote(list(words))}"
                    + (f"；其中{_quote(mapped)}来自同义词表，若映射过宽请删除" if mapped else ""))
        else:
            continue
        out.append(MissExplanation(q.question, outcome, words, hint, gate.reason))
    return tuple(out)
