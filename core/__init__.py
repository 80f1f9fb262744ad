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
    "answer": "core.assistant", "load_documents": "core.loader", "build_index": "core.index",
    "search_with_score": "core.index", "check_refs": "core.references", "check_grounding": "core.grounding",
    "Knobs": "core.knobs", "Settings": "core.settings", "RAGAnswer": "core.rag", "Hit": "core.rag",
    "evaluate_set": "core.evaluation", "evaluate_at": "core.evaluation",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'core' has no attribute {name!r}")
