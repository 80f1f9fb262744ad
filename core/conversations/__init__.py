"""Conversations without a model: whether a student's message is a follow-up, and the standalone question it stands
for (core.conversations.standalone); the guard an optional model rewrite must pass (core.conversations.guard)."""

from core.conversations.standalone import FOLLOW_UP_RULES, RULE_NAMES, SWAPS, parse_rules, read_in_context

__all__ = ["FOLLOW_UP_RULES", "RULE_NAMES", "SWAPS", "parse_rules", "read_in_context"]
