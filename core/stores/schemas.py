"""Every store's schema, in an order where a table is created before any table that refers to it.

`python -m core db upgrade` (run once by the database owner in a multi-instance deployment) and
`db status` walk this list; tests/stores/test_schemas.py fails when a store declares a schema missing here.
"""

from __future__ import annotations

from core.stores.accounts import ACCOUNTS_SCHEMA
from core.stores.api_keys import KEYS_SCHEMA
from core.stores.approved import APPROVED_SCHEMA
from core.stores.asked import ASKED_SCHEMA
from core.stores.audit import AUDIT_SCHEMA
from core.stores.contradictions import CONTRADICTIONS_SCHEMA
from core.stores.corpus_sync import REFUSALS_SCHEMA
from core.stores.corpus_versions import CORPUS_SCHEMA
from core.stores.db import Schema
from core.stores.defaults import DEFAULTS_SCHEMA
from core.stores.exchange_schema import EXCHANGES_SCHEMA
from core.stores.gaps import GAPS_SCHEMA
from core.stores.glossary import GLOSSARY_SCHEMA
from core.stores.glossary_admin import PROPOSALS_SCHEMA
from core.stores.login_throttle import THROTTLE_SCHEMA
from core.stores.question_sets import QUESTION_SETS_SCHEMA
from core.stores.review_dedup import REPEATS_SCHEMA
from core.stores.review_marks import MARKS_SCHEMA
from core.stores.review_schema import GRADE_SCHEMA, REPORT_SCHEMA, REVIEW_SCHEMA
from core.stores.runs import RUNS_SCHEMA
from core.stores.sensitive_words import SENSITIVE_SCHEMA
from core.stores.sessions import SESSIONS_SCHEMA
from core.stores.turns import CONTEXT_SCHEMA
from core.stores.wecom_schema import WECOM_SCHEMA

SCHEMAS: tuple[Schema, ...] = (AUDIT_SCHEMA, ACCOUNTS_SCHEMA, SESSIONS_SCHEMA, THROTTLE_SCHEMA, REVIEW_SCHEMA,
                               GRADE_SCHEMA, REPORT_SCHEMA, MARKS_SCHEMA, REPEATS_SCHEMA, CORPUS_SCHEMA, GLOSSARY_SCHEMA, PROPOSALS_SCHEMA,
                               DEFAULTS_SCHEMA, QUESTION_SETS_SCHEMA, APPROVED_SCHEMA, GAPS_SCHEMA, REFUSALS_SCHEMA,
                               RUNS_SCHEMA, ASKED_SCHEMA, CONTRADICTIONS_SCHEMA, KEYS_SCHEMA, EXCHANGES_SCHEMA,
                               CONTEXT_SCHEMA, SENSITIVE_SCHEMA, WECOM_SCHEMA)
