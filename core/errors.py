"""Domain exceptions of 小E; every message is Chinese and tells the consultant what to do."""

from __future__ import annotations

from collections.abc import Sequence


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


class NotInView(ConflictError):
    """The item no longer matches the filtered list the reviewer was looking at; nothing was saved."""


class ModelError(XiaoEError):
    """The language model or embedding provider failed; nothing was shown as an answer."""

    def __init__(self, message: str, *, kind: str = "model_error") -> None:
        super().__init__(message)
        self.kind = kind


class AuthError(XiaoEError):
    """Sign-in failed, the session expired, or the role does not allow the action."""


class SessionExpired(AuthError):
    """The session ended (idle too long, too old, signed out, account disabled); sign in again."""


class AccountLocked(AuthError):
    """Too many failed sign-ins for this user name; wait until the lock ends."""


class AccountError(XiaoEError):
    """An account value cannot be accepted (name taken, password too short...); the message says what to change."""


class InvalidReview(XiaoEError):
    """A decision, note or filter of the review queue cannot be accepted; the message says what to change."""


class InvalidGlossary(XiaoEError):
    """A glossary entry or CSV file cannot be accepted; the message names the row and what to fix."""


class ProposalDecided(ConflictError, InvalidGlossary):
    """Another admin decided the proposal first; nothing of this decision was saved."""


class QuestionSetError(XiaoEError):
    """A question set cannot be used; `problems` holds (line, message) pairs, line 0 = the whole file."""

    def __init__(self, message: str, problems: Sequence[tuple[int, str]] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)

    @property
    def line(self) -> int:
        return self.problems[0][0] if self.problems else 0


class NeedsConfirmation(XiaoEError):
    """A text to approve did not pass the checks: approving it anyway needs an explicit second confirmation.

    `problems` holds the checks' findings (core.values.Problem); nothing was saved."""

    def __init__(self, message: str, problems: Sequence[object] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)
