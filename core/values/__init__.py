"""The frozen values a question travels as between the stages, and nothing else.

Every stage imports its inputs and outputs from here, the way every langchain retriever, splitter and
store shares `langchain_core.documents.Document`: retrieval returns `Hit`s gathered in a `Retrieval`,
the gate returns a `Gate` carrying its `Decision`, the grader a `Grade`, the checks their reports, the
answerer a `RAGAnswer`, and the question ends as one `Outcome`. This package imports only core.errors and core.knobs (the knobs' one definition)
and langchain's Document, so every stage may import it and it can import none of them.
"""

from core.values.answers import RAGAnswer
from core.values.contradictions import Contradiction
from core.values.decisions import Band, Decision, Gate, Grade, Recheck, Signal
from core.values.display import apart, below_threshold
from core.values.outcomes import ANSWERED, FAILED, JUDGED, REFUSED, Failure, Outcome, Usage
from core.values.reports import Figure, GroundingReport, Problem, Reference, RefReport, SentenceVerdict
from core.values.retrieval import Hit, Measures, Retrieval, Term
from core.values.reuse import ApprovedAnswer, Citation, GuardResult, Reuse

__all__ = ["ApprovedAnswer", "Citation", "Contradiction", "GuardResult", "Reuse", "ANSWERED", "FAILED", "JUDGED", "REFUSED", "Failure", "Outcome", "Usage", "Band", "Decision", "Figure", "Gate", "Grade", "GroundingReport", "Hit", "Measures", "Problem",
           "RAGAnswer", "Recheck", "RefReport", "Reference", "Retrieval", "SentenceVerdict", "Signal", "Term", "apart",
           "below_threshold"]
