"""Labelled question sets as files: the CSV/XLSX format, parsing and validation, with Chinese messages.

Evaluation measures these sets, the question-set store keeps their versions, the CLI reads them from
disk; all three read the one format here. Nothing here runs a question through the chain.
"""
