"""Load the CMRC 2018 dev retrieval set from ../shared (CC BY-SA 4.0, Cui et al., EMNLP 2019).

The data stays in ../shared/bench/cmrc2018-dev/ with its LICENSE.md; it is never copied here.
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


@dataclass(frozen=True)
class Cmrc:
    passages: list[Document]
    questions: list[str]
    gold: list[str]
    held_out: frozenset[str]


def load_cmrc(path: Path | None = None) -> Cmrc:
    path = Path(os.environ.get("XIAOE_CMRC_PATH", path or DEFAULT_PATH))
    data = json.loads(path.read_text(encoding="utf-8"))
    passages = [Document(page_content=p["text"], metadata={"source": p["id"], "heading": p["title"]})
                for p in data["passages"]]
    ids = sorted(p["id"] for p in data["passages"])
    held_out = frozenset(random.Random(0).sample(ids, int(0.2 * len(ids))))
    return Cmrc(passages=passages, questions=[q["question"] for q in data["queries"]],
                gold=[q["gold"] for q in data["queries"]], held_out=held_out)
