"""Load the CMRC 2018 dev retrieval set from ../shared (CC BY-SA 4.0, Cui et al., EMNLP 2019).

The data stays in ../shared/bench/cmrc2018-dev/ with its LICENSE.md; it is never copied here.
Passage titles are kept as metadata "title", not "heading": the index reads headings, and
an encyclopaedia title names the answer's passage in a way the school's chunks never do.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

from langchain_core.documents import Document

ATTRIBUTION = ("CMRC 2018 dev (github.com/ymcui/cmrc2018), CC BY-SA 4.0; "
               "Cui et al., A Span-Extraction Dataset for Chinese Machine Reading Comprehension, EMNLP 2019")
DEFAULT_PATH = Path(__file__).resolve().parent.parent.parent / "shared/bench/cmrc2018-dev/cmrc2018_dev_retrieval.json"
HELD_OUT_SHARE = 0.2


@dataclass(frozen=True)
class Cmrc:
    """Passages (metadata source = passage id), questions, each question's gold id, held-out ids."""

    passages: list[Document]
    questions: list[str]
    gold: list[str]
    held_out: frozenset[str]

    @property
    def gold_positions(self) -> list[int]:
        """Position of each question's gold passage in `passages`."""
        where = {p.metadata["source"]: i for i, p in enumerate(self.passages)}
        return [where[g] for g in self.gold]

    @property
    def answerable(self) -> list[bool]:
        """Whether each question's gold passage stays in the reduced index."""
        return [g not in self.held_out for g in self.gold]

    def reduced(self) -> list[Document]:
        """The passages minus the held-out 20% (the refusal protocol's index)."""
        return [p for p in self.passages if p.metadata["source"] not in self.held_out]


def load_cmrc(path: Path | None = None) -> Cmrc:
    path = Path(os.environ.get("XIAOE_CMRC_PATH", path or DEFAULT_PATH))
    data = json.loads(path.read_text(encoding="utf-8"))
    passages = [Document(page_content=p["text"], metadata={"source": p["id"], "title": p["title"]})
                for p in data["passages"]]
    ids = sorted(p["id"] for p in data["passages"])
    held_out = frozenset(random.Random(0).sample(ids, int(HELD_OUT_SHARE * len(ids))))
    return Cmrc(passages=passages, questions=[q["question"] for q in data["queries"]],
                gold=[q["gold"] for q in data["queries"]], held_out=held_out)
