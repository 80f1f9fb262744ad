"""Word the offline answer: the sentences chosen (core.answering.choose), each with its [n].

`compose_answer` is choosing then phrasing. The phrasing writes no word of its own except three fixed ones: the
refusal when nothing matches, 「资料里没有直接回答这个问题，最接近的规定是：」 before the nearest point the documents
make, and, when the student gave their own figures, one sentence saying to apply the quoted formula to them (so a
worked example's result is never presented as the student's). A worked example's chosen sentences are shown together
under the example's own label; a sentence opening a lead's paragraph is shown with its lead.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.answering.choose import MAX_SENTENCES, RELATIVE_CUTOFF, Choice, Chosen, choose_sentences, touches
from core.corpus.sentences import EXAMPLE_RE
from core.settings import REFUSAL_TEXT
from core.values import Term

__all__ = ["APPLY_TEXT", "MAX_SENTENCES", "NEAREST_TEXT", "RELATIVE_CUTOFF", "compose_answer", "phrase", "touches"]

NEAREST_TEXT = "资料里没有直接回答这个问题，最接近的规定是："
APPLY_TEXT = "你的情况要用你自己的数字（{figures}）代入上面的公式计算，资料里示例的结果不是你的结果"


def compose_answer(question: str, references: tuple[tuple[int, str], ...], keywords: Sequence[Term] = (), *,
                   cutoff: float = RELATIVE_CUTOFF, asked: Sequence[str] | None = None) -> str:
    """The offline answer: the sentences `choose_sentences` picks (up to MAX_SENTENCES), worded by `phrase`."""
    return phrase(choose_sentences(question, references, keywords, cutoff=cutoff, asked=asked))


def phrase(choice: Choice | None) -> str:
    """The answer's text for a choice (the refusal for None)."""
    if choice is None:
        return REFUSAL_TEXT
    if choice.nearest:
        return NEAREST_TEXT + _render(choice.sentences)
    text = _render(choice.sentences)
    if choice.apply_to:
        text += APPLY_TEXT.format(figures="、".join(choice.apply_to)) + f"[{choice.sentences[0].number}]。"
    return text


def _labelled(text: str, example: str) -> str:
    """A worked example's sentences as shown: under the example's own label (「示例：」) when it has one."""
    label = EXAMPLE_RE.match(example)
    if label and not EXAMPLE_RE.match(text):
        return f"{label.group().strip()}：{text}"
    return text


def _render(sentences: Sequence[Chosen]) -> str:
    """Each sentence with its [n]; the chosen sentences of one worked example are shown together,
    joined by 「，」 under one label, where the first of them would stand; the first sentence after a lead with
    its lead."""
    out: list[str] = []
    done: set[tuple[int, str]] = set()
    for sentence in sentences:
        if not sentence.example:  # the document's own words, in its own order
            out.append(f"{sentence.shown.rstrip('。！；;，,')}[{sentence.number}]。")
            continue
        group = (sentence.number, sentence.example)
        if group in done:
            continue
        done.add(group)
        parts = sorted((s for s in sentences if (s.number, s.example) == group), key=lambda s: s.position)
        joined = "，".join(s.text.rstrip("。！；;，,") for s in parts)
        out.append(f"{_labelled(joined, sentence.example)}[{sentence.number}]。")
    return "".join(out)
