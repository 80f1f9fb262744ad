"""Stage 5, checks: the one citation grammar, citation numbers, figures, arithmetic, grounding and
the question-figures check. Reads an answer and its references; changes neither."""
