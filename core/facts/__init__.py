"""The school's facts, read from its documents at index time: the one place they live (core.facts.reader)."""

from core.facts.reader import LABELS, READERS, read_chunk_facts, read_facts
from core.values.facts import NO_FACTS, Fact, Level, Missing, SchoolFacts, Source

__all__ = ["LABELS", "NO_FACTS", "READERS", "Fact", "Level", "Missing", "SchoolFacts", "Source", "read_chunk_facts", "read_facts"]
