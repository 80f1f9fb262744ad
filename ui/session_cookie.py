"""The sign-in cookie: read it from the page's request, write or clear it in the browser.

The token in the cookie is the same random bearer token the sessions table keeps only as a
sha256 hash (core/stores/sessions.py). Streamlit reads cookies on the server (`st.context.cookies`,
the ones sent when the tab opened its connection) but has no API to set one, so the cookie is
written by a three-line script in `st.html(..., unsafe_allow_javascript=True)` — Streamlit's
own element, no extra component. A script cannot set HttpOnly; SameSite=Strict, a path scoped
to the app and Secure over HTTPS are set, and the cookie lives until the browser closes (the
server's 8-hour idle limit and logout decide before that). The token never goes into a URL.
"""

from __future__ import annotations

import json
import re

import streamlit as st

COOKIE = "xiaoe_session"
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,128}")  # secrets.token_urlsafe; anything else is ignored


def read_token() -> str | None:
    """The sign-in token the browser sent with this tab's connection, or None."""
    try:
        value = st.context.cookies.get(COOKIE)
    except (AttributeError, RuntimeError):  # no browser connection (AppTest, bare script run)
        return None
    return value if isinstance(value, str) and _TOKEN_SHAPE.fullmatch(value) else None  # AppTest: a mock


def app_path() -> str:
    """The path the app is served under ('/' or '/<server.baseUrlPath>'), the cookie's scope."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else "/"


def cookie_script(token: str | None, path: str) -> str:
    """A <script> that sets the cookie to `token`, or deletes it when `token` is None."""
    if token is not None and not _TOKEN_SHAPE.fullmatch(token):
        raise ValueError("sign-in token has an unexpected shape")
    value = json.dumps(token or "")
    age = "" if token else "; Max-Age=0"
    attributes = json.dumps(f"; Path={path}; SameSite=Strict{age}")
    return ("<script>(function(){var secure = location.protocol === 'https:' ? '; Secure' : '';"
            f"document.cookie = {json.dumps(COOKIE + '=')} + {value} + {attributes} + secure;"
            "})();</script>")


def write(token: str | None) -> None:
    """Render the script once (an invisible element); None clears the cookie."""
    st.html(cookie_script(token, app_path()), unsafe_allow_javascript=True, width="content")
