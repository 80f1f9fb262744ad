"""Stage 3, the gate: question terms, the named answerability rules, the decision (coverage,
absent words), the ranking score, the glossary, and core.answerability.gate.decide. Never calls a model."""
