"""Every schema a store declares is upgraded by `python -m core db upgrade` (core.stores.schemas.SCHEMAS)."""

from __future__ import annotations

import importlib
import pkgutil

import core.stores
from core.stores.db import Schema
from core.stores.schemas import SCHEMAS


def test_every_declared_schema_is_in_the_upgrade_list():
    declared = set()
    for info in pkgutil.iter_modules(core.stores.__path__):
        module = importlib.import_module(f"core.stores.{info.name}")
        declared |= {value.component for value in vars(module).values() if isinstance(value, Schema)}
    assert declared == {schema.component for schema in SCHEMAS}
