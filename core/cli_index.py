"""Placeholder for the `cli_index` command group; its owner replaces this file."""

from __future__ import annotations


def register(subparsers) -> None:
    """Nothing registered yet."""
