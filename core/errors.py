"""Domain exceptions of 小E; every message is Chinese and tells the consultant what to do."""

from __future__ import annotations


class XiaoEError(Exception):
    """Base class: `str(error)` is a complete Chinese message fit to show on a page."""


class CorpusError(XiaoEError):
    """The corpus folder or one of its files cannot be used."""


class InvalidQuestion(XiaoEError):
    """The question is empty or too long."""


class ConfigError(XiaoEError):
    """A setting has a value that cannot work."""


class StoreError(XiaoEError):
    """The database cannot be opened, read or written."""


class ConflictError(StoreError):
    """Somebody else changed the record first (optimistic concurrency check failed)."""


class ModelError(XiaoEError):
    """The language model or embedding provider failed; nothing was shown as an answer."""

    def __init__(self, message: str, *, kind: str = "model_error") -> None:
        super().__init__(message)
        self.kind = kind


class AuthError(XiaoEError):
    """Sign-in failed, the session expired, or the role does not allow the action."""
