"""Stage 1, the corpus: reading the school's Markdown files, chunking them with offsets, their
fingerprint, and the admin's edits with versions. Knows nothing of retrieval, the gate or models."""
