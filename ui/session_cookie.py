"""The sign-in cookie: read it from the page's request, write or clear it in the browser.

The token in the cookie is the same random bearer token the sessions table keeps only as a
sha256 hash (core/stores/sessions.py). Streamlit reads cookies on the server (`st.context.cookies`,
the ones sent when the tab opened its connection) but has no API to set one, so the cookie is
written by a short script in `st.html(..., unsafe_allow_javascript=True)` — Streamlit's own element,
no extra component. A script cannot set HttpOnly, so page scripts can read the token; what is set:

- over HTTPS the name is `__Host-xiaoe_session` (with the base path folded in when the app has one):
  the browser then insists on Secure, Path=/ and no Domain, so neither a sibling subdomain nor a
  plain-http page can plant or overwrite it; the server reads only that name on an HTTPS page, so a
  planted `xiaoe_session` is ignored there;
- over plain HTTP (only for 127.0.0.1, `make run`) the name is `xiaoe_session`, Path = the app's path;
- SameSite=Strict always; no expiry, so it ends when the browser closes (the server's idle limit, its
  absolute lifetime, sign-out and every account change end the session before that).
The token never goes into a URL, and a new one is issued on every sign-in (ui/auth.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import streamlit as st

COOKIE = "xiaoe_session"
SECURE_PREFIX = "__Host-"
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,128}")  # secrets.token_urlsafe; anything else is ignored
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def secure_name(path: str) -> str:
    """The cookie's name over HTTPS: `__Host-xiaoe_session`, plus the base path (`/xiaoe` → `_xiaoe`)."""
    base = _NAME_UNSAFE.sub("_", path.strip("/"))
    return f"{SECURE_PREFIX}{COOKIE}" + (f"_{base}" if base else "")


def token_from(cookies: Mapping[str, str], *, https: bool, path: str) -> str | None:
    """The sign-in token among a request's cookies: on an HTTPS page only the `__Host-` one counts."""
    value = cookies.get(secure_name(path) if https else COOKIE)
    return value if isinstance(value, str) and _TOKEN_SHAPE.fullmatch(value) else None


def read_token() -> str | None:
    """The sign-in token the browser sent with this tab's connection, or None."""
    try:
        cookies = st.context.cookies
        url = st.context.url
    except (AttributeError, RuntimeError):  # no browser connection (AppTest, bare script run)
        return None
    if not hasattr(cookies, "get"):  # AppTest: a mock
        return None
    return token_from(cookies, https=isinstance(url, str) and url.startswith("https:"), path=app_path())


def app_path() -> str:
    """The path the app is served under ('/' or '/<server.baseUrlPath>'), the plain cookie's scope."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else "/"


def cookie_script(token: str | None, path: str) -> str:
    """A <script> that sets the cookie to `token`, or deletes it when `token` is None (see the module docstring)."""
    if token is not None and not _TOKEN_SHAPE.fullmatch(token):
        raise ValueError("sign-in token has an unexpected shape")
    value = json.dumps(token or "")
    age = json.dumps("" if token else "; Max-Age=0")
    plain = json.dumps(f"{COOKIE}=")
    secure = json.dumps(f"{secure_name(path)}=")
    plain_attributes = json.dumps(f"; Path={path}; SameSite=Strict")
    return ("<script>(function(){"
            "if (location.protocol === 'https:') {"
            f"document.cookie = {secure} + {value} + '; Path=/; Secure; SameSite=Strict' + {age};"
            f"document.cookie = {plain} + {plain_attributes} + '; Max-Age=0';"  # an older plain cookie goes
            "} else {"
            f"document.cookie = {plain} + {value} + {plain_attributes} + {age};"
            "}})();</script>")


def write(token: str | None) -> None:
    """Render the script once (an invisible element); None clears the cookie."""
    st.html(cookie_script(token, app_path()), unsafe_allow_javascript=True, width="content")
