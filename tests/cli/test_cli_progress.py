"""#29 item 11: `eval --with-model`'s progress bar printed a literal \\u000d instead of redrawing, because the
CLI's escaping stream escapes every control character. It now redraws in place on a terminal (the carriage
return goes out as it is, the bar's text is still escaped) and prints one line per update elsewhere."""

from __future__ import annotations

import io

import pytest

from core.cli.eval_model import progress_bar
from core.cli.parser import EscapingStream


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def stderr(monkeypatch):
    def wrap(raw):
        monkeypatch.setattr("sys.stderr", EscapingStream(raw))  # as core.cli.main sets it
        return raw
    return wrap


def test_cli_progress_redraws_in_place_on_a_terminal(stderr):
    raw = stderr(Terminal())
    for done in range(4):
        progress_bar(done, 3)
    text = raw.getvalue()
    assert "\\u000d" not in text
    assert text.count("\r") == 4 and text.endswith("3/3\n") and text.count("\n") == 1


def test_cli_progress_prints_one_line_per_update_when_not_a_terminal(stderr):
    raw = stderr(io.StringIO())
    for done in range(4):
        progress_bar(done, 3)
    lines = raw.getvalue().splitlines()
    assert "\r" not in raw.getvalue() and "\\u000d" not in raw.getvalue()
    assert lines == ["[" + "." * 30 + "] 0/3", "[" + "#" * 10 + "." * 20 + "] 1/3", "[" + "#" * 20 + "." * 10 + "] 2/3",
                     "[" + "#" * 30 + "] 3/3"]
