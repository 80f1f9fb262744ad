"""Stage 4, answering: prompts, the offline answerer, OpenAI-compatible providers, model errors and
deadlines, and the values an answer travels as (core.answering.rag). Decides nothing about refusing."""
