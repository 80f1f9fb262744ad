"""资料缺口: the questions the documents do not answer, grouped into topics offline, fixed at the source and
re-checked through the one gate.

`grouping` is the rule (the gate's absent words and key terms; average linkage, then a centroid merge and an
attach pass), `questions` reads a CSV and groups any list of questions, `board` turns the review queue into the
board's topics, `fixes` re-runs a topic's questions through the gate after a corpus save and records what fixed
them.
"""
