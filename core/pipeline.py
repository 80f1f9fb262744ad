"""The assembled assistant: index + glossary + answerability decision, as every caller uses it.

`open_pipeline(settings)` is what the CLI and batch runs call; the console builds the same
`Pipeline` from its cached parts. Retrieval sees the glossary-expanded question; the decision,
the prompt and the checks see the question as asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from core.answerability import Decider, make_decider, make_reranker
from core.glossary import Glossary, expand_query
from core.glossary_store import GlossaryStore
from core.index_store import IndexBundle, load_or_build
from core.rag import Gate, Hit, RAGAnswer, Reranker, answer, candidates_for, prepare
from core.settings import Settings


@dataclass(frozen=True)
class Pipeline:
    """One corpus index with the consultants' glossary and (optionally) the answerability decision."""

    bundle: IndexBundle
    glossary: Glossary | None = None
    decide: Decider | None = None
    rerank: Reranker | None = None

    def expand(self, question: str) -> str:
        return expand_query(question, self.glossary) if self.glossary else question

    def candidates(self, question: str) -> tuple[Hit, ...]:
        """Every candidate (MAX_TOP_K) for a validated question, in the order the gate will see them."""
        return candidates_for(question, self.bundle.index, expand=self.expand, rerank=self.rerank)

    def prepare(self, question: str, *, k: int, min_score: float) -> Gate:
        return prepare(question, self.bundle.index, k=k, min_score=min_score, decide=self.decide,
                       expand=self.expand, rerank=self.rerank)

    def answer(self, question: str, llm: BaseChatModel | None = None, *, k: int, min_score: float) -> RAGAnswer:
        return answer(question, self.bundle.index, llm, k=k, min_score=min_score, decide=self.decide,
                      expand=self.expand, rerank=self.rerank)


def build_pipeline(settings: Settings, bundle: IndexBundle, glossary: Glossary | None) -> Pipeline:
    """With answerability on (the default) the decision gates and its keyword coverage reranks."""
    if settings.answerability != "on":
        return Pipeline(bundle=bundle, glossary=glossary)
    return Pipeline(bundle=bundle, glossary=glossary,
                    decide=make_decider(bundle, glossary, cache_dir=settings.index_dir),
                    rerank=make_reranker(bundle, glossary, cache_dir=settings.index_dir))


def open_pipeline(settings: Settings) -> Pipeline:
    """Load (or build) the index and read the glossary from the database named by `settings`."""
    bundle = load_or_build(settings)
    return build_pipeline(settings, bundle, GlossaryStore.open(settings).load())
