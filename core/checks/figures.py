"""The figure reader's old home: it moved to core.language.figures (the school facts and the student's case read
figures too, below the checks); re-exported here for callers not yet moved."""

from core.language.figures import *  # noqa: F401,F403
from core.language.figures import CITATION_RE, FULL_WIDTH, extract_figures, format_number, value_keys  # noqa: F401
