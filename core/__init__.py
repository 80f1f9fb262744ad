"""小E's core package: corpus → retrieval → the gate → answer → checks → review queue, with no UI.

The public API is importable from `core` itself (resolved lazily, so `import core.settings` stays cheap):
    from core import Assistant, open_assistant, answer, load_documents, build_index, search_with_score,
                     check_refs, check_grounding
`Assistant` is the one composition of the chain; everything else is a step it composes.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "Assistant": "core.assistant", "build_assistant": "core.assistant", "open_assistant": "core.assistant",
    "answer": "core.assistant", "load_documents": "core.corpus.loader", "build_index": "core.retrieval.index",
    "search_with_score": "core.retrieval.index", "check_refs": "core.checks.references", "check_grounding": "core.checks.grounding",
    "Knobs": "core.knobs", "Settings": "core.settings", "RAGAnswer": "core.values", "Hit": "core.values",
    "evaluate_set": "core.evaluation.metrics", "evaluate_at": "core.evaluation.metrics",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'core' has no attribute {name!r}")
