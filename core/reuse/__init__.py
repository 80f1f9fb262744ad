"""Reusing approved answers: does a new question ask what a consultant already answered, for the same case?

`case` reads the student's own situation out of a question (figures by kind, level by number or name,
before/after the course started, which time), `match` measures how close two questions' weighted terms
are, `guards` applies the checks in order (core.values.reuse.GUARDS) and says which one stopped a reuse.
Nothing here reads the database or calls a model: the Assistant (core/assistant.py) gives the approved
answers, the current retrieval and gate, and the current corpus's chunk hashes.
"""
