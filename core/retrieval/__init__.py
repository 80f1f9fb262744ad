"""Stage 2, retrieval: the lexical index (BM25 character n-grams), dense and hybrid retrievers,
embeddings and the on-disk index store. Scores chunks; never decides whether to answer."""
