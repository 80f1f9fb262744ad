"""Conversations without a model: whether a student's message is a follow-up, and the standalone question it stands
for (core.conversations.standalone); 转人工 and the service hours (core.conversations.handoff). The optional guarded
model rewrite is core.conversations.model_rewrite."""

from core.conversations.standalone import FOLLOW_UP_RULES, RULE_NAMES, STAY_RULES, SWAPS, parse_rules, read_in_context

__all__ = ["FOLLOW_UP_RULES", "RULE_NAMES", "STAY_RULES", "SWAPS", "parse_rules", "read_in_context"]
