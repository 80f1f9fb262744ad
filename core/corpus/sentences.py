"""A chunk's sentences as a reader meets them: each with the FAQ question it answers, the line that introduces its
paragraph, the paragraph it stands in, and the worked example it belongs to.

The gate reads them to see whether some sentence states what the question asks (core.answerability.asked), the
offline answerer chooses among them (core.answering.extractive). Kept as the document has them: a FAQ's question
line (「问：…」) is never a sentence of its own but the `faq` of the answer's sentences; a line ending in 「：」 is
never one either but the `lead` of the next paragraph's sentences (「单报学费如下：」 before 「进阶级（二级）：4200
元」), and the first of them `opens` it; every sentence of a 「示例：」 paragraph remembers the whole paragraph.
Left out: pieces under four characters, questions, and a document's statement of its own purpose (「本说明介绍…」
「为…特制定本制度」; the scope sentence 「本制度适用于…」 is kept, as it answers who the rules cover). No scoring and
no reading of the question here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.language.text import normalize

# A sentence runs to its end mark or the line's end; a FAQ line opens with its label (「问：」「答：」).
SENTENCE_RE = re.compile(r"[^。！？；\n]+[。！？；]?")
LABEL_RE = re.compile(r"^\s*[问答][:：]\s*")
EXAMPLE_RE = re.compile(r"^\s*(?:示例|例如|比如|举例)")
# Scope and purpose sentences of a document (「本说明介绍…」「为…特制定本制度」) say what a document is for, never
# what the student asked: they never stand as an answer.
_PURPOSE_RE = re.compile(r"^\s*(?:本(?:说明|制度|手册|办法|规定|须知|规则|细则)(?!适用)|为.{0,40}特制定)")
MIN_CHARS = 4  # shorter pieces (「答：」 remnants, 「注意」) are no sentence


@dataclass(frozen=True)
class Sentence:
    """One sentence of a chunk and what surrounds it in the document."""

    position: int  # its order among the chunk's sentences
    text: str
    faq: str = ""  # the FAQ question this sentence answers, or ""
    lead: str = ""  # the line ending in 「：」 that introduces this sentence's paragraph, or ""
    opens: bool = False  # the first sentence after its lead: the two are shown together, as the document has them
    paragraph: str = ""  # the line it stands in, without a 「答：」 label
    example: str = ""  # the whole 「示例：」 paragraph it belongs to, or ""

    @property
    def shown(self) -> str:
        """The words it is shown with: its lead too when it opens the lead's paragraph."""
        return self.lead + self.text if self.opens else self.text

    @property
    def context(self) -> str:
        """What it is said about: its FAQ question, its lead and its paragraph (the words around the sentence)."""
        return "\n".join(part for part in (self.faq, self.lead, self.paragraph) if part)


def reference_sentences(text: str) -> tuple[Sentence, ...]:
    """The sentences of a chunk's text, in order (see the module doc)."""
    out: list[Sentence] = []
    question, lead, led = "", "", False
    for line in text.splitlines():
        if not line.strip():
            if led:  # the paragraph a lead introduced has ended
                lead, led = "", False
            continue
        label = LABEL_RE.match(line)
        if label and line.lstrip().startswith("问"):
            question = line[label.end():]
            continue
        if not (label and line.lstrip().startswith("答")):
            question = ""
        body = LABEL_RE.sub("", line)
        example = body.strip() if EXAMPLE_RE.match(body) else ""
        for raw in SENTENCE_RE.findall(body):
            piece = raw.strip()
            if piece.endswith(("：", ":")) and not label and len(normalize(piece)) >= MIN_CHARS \
                    and piece == body.strip():
                lead, led = piece, False  # 「…统一回复：」「单报学费如下：」「…公式为：」 introduces what follows
                continue
            if len(normalize(piece)) < MIN_CHARS or piece.endswith(("？", "?", "：", ":")) or _PURPOSE_RE.match(piece):
                continue
            out.append(Sentence(len(out), piece, question, lead, bool(lead) and not led, body.strip(), example))
            led = led or bool(lead)
    return tuple(out)
