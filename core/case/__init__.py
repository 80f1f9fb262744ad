"""The reader of the student's situation (core.case.reader over the fact kinds of core.case.kinds) and of what the
question asks (#40's what-is-asked reader): used by the gate, reuse, the own-figure answerer and the checks."""

from core.case.figures import KindedFigure, classify, question_figures
from core.case.kinds import ALL_KINDS, KIND_NAMES, KINDS, LABELS, KindSet, parse_kinds
from core.case.reader import case_facts, case_figures, read, read_case

__all__ = ["ALL_KINDS", "KINDS", "KIND_NAMES", "LABELS", "KindSet", "KindedFigure", "case_facts", "case_figures",
           "classify", "parse_kinds", "question_figures", "read", "read_case"]
