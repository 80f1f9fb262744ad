"""The citation grammar's old home: it moved to core.language.citations (the figure reader needs it, below the
checks); re-exported here for callers not yet moved."""

from core.language.citations import *  # noqa: F401,F403
from core.language.citations import CITATION_RE, cited, markers, numbers, remap, renumber, reorder  # noqa: F401
