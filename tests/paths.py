"""Where the tests find the project's folders, in one place, so that moving a test file never changes what it reads.

The labelled question sets are the ones the benches and `python -m core calibrate` read (bench/data/); tests that
check a property of every shipped set read them from there, other tests build their own small fixtures.
"""

from __future__ import annotations

from core.evaluation.calibration import SETS_DIR
from core.settings import PROJECT_ROOT

ROOT = PROJECT_ROOT
CORPUS = ROOT / "corpus"
SETS = SETS_DIR
