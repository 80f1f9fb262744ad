"""The language below every stage: text normalisation, jieba's tables and the word lists the stages share.

Nothing here knows the school's corpus or the gate: `text` folds and normalises strings (the one place
that says what "the same text" means), `lexicon` and `word_tables` hold jieba's dictionary, tags and
IDF as read-only tables, `words` the fixed word lists and weights the term analysis reads.
"""
