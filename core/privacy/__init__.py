"""Students' personal data kept out of the record: masking at the door (core.privacy.mask) and the 敏感词 automaton
(core.privacy.sensitive). Plain text in, plain values out; no database, no retrieval, no model."""

from core.privacy.mask import KINDS, Masked, MaskEntry, mask, masked_kinds
from core.privacy.sensitive import Hit, Matcher, Word

__all__ = ["KINDS", "Hit", "MaskEntry", "Masked", "Matcher", "Word", "mask", "masked_kinds"]
