"""The question, read: the student's situation it states (core.case.reader over the fact kinds of core.case.kinds)
and what it asks for (core.case.asked: an amount of money, a duration, a year …) — one reader each, used by the gate,
reuse, the own-figure answerer and the checks, so no stage reads the question its own way.

Plain Python over the question's text and the documents' facts (core.facts): no retrieval, no scoring, no model, no
school fact in code.
"""

from core.case.figures import KindedFigure, classify, question_figures
from core.case.kinds import ALL_KINDS, KIND_NAMES, KINDS, LABELS, KindSet, parse_kinds
from core.case.reader import case_facts, case_figures, read, read_case

__all__ = ["ALL_KINDS", "KINDS", "KIND_NAMES", "LABELS", "KindSet", "KindedFigure", "case_facts", "case_figures",
           "classify", "parse_kinds", "question_figures", "read", "read_case"]
