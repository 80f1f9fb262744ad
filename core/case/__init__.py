"""The question, read: what it asks for and the student's situation it states — one reader each, used by the gate,
approved-answer reuse, the answerers and the checks, so no stage reads the question its own way.

- core.case.asked: the kind of answer a question asks for (an amount of money, a duration, a year, a person …),
  a registry of named kinds with their words in core/data/asked_kinds.txt, switchable by name
  (XIAOE_ASKED_KINDS), and whether a sentence states a kind (`states`: 「4200 元」 states an amount);
- the student's situation (amount paid, lessons attended, levels, transfers …) and the school's facts it is read
  against come from the documents (the facts package of branch `case`) — the student-case reader lives beside `asked` in this package.

Plain Python over the question's text and the documents' facts: no retrieval, no scoring, no model, no school fact
in code (level names, prices and rates are read from the documents).
"""

from core.case.asked import (
    ALL_KINDS,
    ASKED_KINDS_ENV,
    KIND_NAMES,
    KINDS,
    Asked,
    AskedKinds,
    Kind,
    carried,
    kind,
    parse_kinds,
    read_asked,
    states,
)

__all__ = ["ALL_KINDS", "ASKED_KINDS_ENV", "KINDS", "KIND_NAMES", "Asked", "AskedKinds", "Kind", "carried", "kind",
           "parse_kinds", "read_asked", "states"]
