"""The login gate for the router, and who is signed in for the pages.

`gate()` runs first on every rerun: with no accounts it shows the setup page alone, before
sign-in the login page alone (both stop the script); after sign-in it resumes the session
(idle expiry, disabled accounts, role changes) and returns the user. `allowed_pages` drops
pages the role may not open; with st.navigation an unlisted page cannot be reached by URL.
`current_user()` is what pages call to authorise and attribute an action.

XIAOE_AUTH=off turns the gate off for a local single-user demo and for tests: everyone is
then the local admin `LOCAL_USER`, and pages keep asking for a name as before.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import time
from datetime import timedelta
from urllib.parse import urlparse

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from core.errors import AuthError, ConfigError, SessionExpired, XiaoEError
from core.stores import audit
from core.stores.accounts import MAX_DISPLAY_CHARS, ROLES, AccountStore  # noqa: F401 - limits re-exported for pages
from core.stores.client_address import client_source, server_rewriters
from core.stores.db import open_database
from core.stores.roles import PERMISSIONS, Authorize, User, require
from core.stores.sessions import (  # noqa: F401 - the sign-in limits are re-exported for the login page
    IDLE_LIMIT,
    LOCK_DURATION,
    MAX_FAILURES,
    Session,
    SessionStore,
)
from ui import session_cookie
from ui.answer_view import md_escape
from ui.pages import URL_PATHS
from ui.state import get_settings

LOCAL_USER = User(username="local", display_name="本机用户", role="admin")
TOKEN, USER, METHOD, NOTICE = "auth_token", "auth_user", "auth_method", "auth_notice"
COOKIE_WRITE = "auth_cookie_write"  # the token to put in the cookie on the next full run ("" clears it)
RESUMED = "_auth_resumed"  # (token, monotonic time) of the gate's last resume
RESUME_FRESH_S = 1.0  # the page's own check within this long after the gate's is the same check: skipped
REVIEWER = "reviewer"  # the name pages already use to attribute decisions
# url_path -> permission needed to see the page; pages not listed are open to every signed-in role.
RESTRICTED_PAGES = {"settings": "view_settings", "accounts": "manage_accounts", "keys": "manage_keys"}
AUTH_ONLY_PAGES = {"accounts"}  # meaningless without sign-in
LOG = logging.getLogger(__name__)
# The peers Streamlit's web server (uvicorn) believes X-Forwarded-For from before we see the request: it rewrites the
# reported address for them (core/stores/client_address.py undoes that where XIAOE_TRUSTED_PROXIES does not trust them).
SERVER_REWRITERS = server_rewriters(os.environ.get("FORWARDED_ALLOW_IPS"))


def auth_enabled() -> bool:
    """True unless XIAOE_AUTH=off. A broken setting never switches the gate off: it stays on."""
    try:
        return get_settings().auth == "on"
    except ConfigError:
        return True


@st.cache_resource(show_spinner=False)
def _sessions(db_url: str, max_hours: float) -> SessionStore:
    return SessionStore(AccountStore(open_database(db_url)), absolute_limit=timedelta(hours=max_hours))


def get_sessions() -> SessionStore:
    """Sessions (and, as `.accounts`, accounts) on the configured database, with the configured lifetime."""
    settings = get_settings()
    return _sessions(settings.db_url, settings.session_max_hours)


def client_address() -> str | None:
    """The visitor's address for sign-in throttling (None: unknown), through the trusted proxies' X-Forwarded-For."""
    try:
        peer = st.context.ip_address
        forwarded = st.context.headers.get("X-Forwarded-For")
    except (AttributeError, RuntimeError):  # no browser connection (AppTest, bare script run)
        return None
    peer = peer if isinstance(peer, str) else None
    forwarded = forwarded if isinstance(forwarded, str) else None
    trusted = get_settings().trusted_proxy_networks
    source = client_source(peer, forwarded, trusted, server_trusts=SERVER_REWRITERS)
    if forwarded and source is None and client_source(peer, None, trusted) is not None:
        # A proxy nobody listed (or X-Forwarded-For the web server believed but XIAOE_TRUSTED_PROXIES does not):
        # every visitor behind it would be one address, so it counts as an unknown source.
        LOG.warning("sign-in carries X-Forwarded-For from a peer not in XIAOE_TRUSTED_PROXIES (reported as %s): "
                    "treated as an unknown source (user names wait between retries, no per-address locks); "
                    "if it comes through your reverse proxy, list the proxy there", peer or "127.0.0.1")
    return source


def current_user() -> User | None:
    """The signed-in user (LOCAL_USER when the gate is off), or None before sign-in."""
    if not auth_enabled():
        return LOCAL_USER
    return st.session_state.get(USER)


def signed_in_name() -> str | None:
    """The name to attribute actions to when sign-in is on (pages show it instead of a name field)."""
    user = st.session_state.get(USER) if auth_enabled() else None
    return user.label if user else None


def guard_page(permission: str | None = None) -> User:
    """First line of every page: the signed-in user allowed `permission`, else a message and stop.

    The router's gate runs first. Pages live in app_pages/, not pages/, because Streamlit would
    otherwise serve a `pages/` folder bare (legacy multipage mode) to a deep link such as
    /settings before the router has run once; this guard is the second line of defence.
    """
    token = st.session_state.get(TOKEN)
    if auth_enabled() and token and not _just_resumed(token):
        _resume(get_sessions())  # again: on a bare-page run the router has not checked idle time or the role
    user = current_user()
    if user is None:
        st.warning("请先登录：[打开登录页](./)")
        st.stop()
    if permission is not None and not user.can(permission):
        try:
            require(user, permission)
        except AuthError as error:
            st.error(md_escape(str(error)))
        st.stop()
    return user


def require_page(permission: str) -> User:
    """For a page opened outside the router: the user allowed `permission`, else the reason as an error and stop."""
    user = current_user()
    try:
        require(user, permission)
    except AuthError as error:
        st.error(md_escape(str(error)))
        st.stop()
    return user


def gate() -> User:
    """The signed-in user; otherwise render the setup or login page alone and stop the script."""
    if not auth_enabled():
        return LOCAL_USER
    try:
        sessions = get_sessions()
        no_accounts = not sessions.accounts.has_accounts()
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        st.stop()
    if no_accounts:
        _only("app_pages/setup.py", "首次设置", ":material/key:")
    user = _resume(sessions) or _resume_from_cookie(sessions) or _sso_sign_in(sessions)
    _flush_cookie()
    if user is None:
        _only("app_pages/login.py", "登录", ":material/login:")
    st.session_state[REVIEWER] = user.label
    return user


def _resume_from_cookie(sessions: SessionStore) -> User | None:
    """A reload or another tab: the browser's sign-in cookie resumes the same server-side session."""
    token = session_cookie.read_token()
    if not token or st.session_state.get("_auth_cookie_refused") == token:
        return None
    try:
        session = sessions.resume(token)
    except SessionExpired as expired:
        st.session_state["_auth_cookie_refused"] = token  # this tab keeps sending it until reconnected
        st.session_state[COOKIE_WRITE] = ""
        st.session_state[NOTICE] = str(expired)
        return None
    st.session_state[TOKEN] = session.token
    st.session_state[METHOD] = session.method
    st.session_state[USER] = session.user
    st.session_state[RESUMED] = (session.token, time.monotonic())
    return session.user


def _flush_cookie() -> None:
    pending = st.session_state.pop(COOKIE_WRITE, None)
    if pending is not None:
        session_cookie.write(pending or None)


# The app's other addresses: a deep link to one of them before sign-in shows the same gate page
# (instead of Streamlit's English "Page not found"), and after sign-in the router opens it.
GATED_PATHS = URL_PATHS  # every page address answers with the login page before sign-in


def _only(script: str, title: str, icon: str) -> None:
    page = st.Page(script, title=title, icon=icon, default=True)
    aliases = [st.Page(script, title=title, icon=icon, url_path=path) for path in GATED_PATHS]
    st.navigation([page, *aliases], position="hidden").run()
    st.stop()


def _resume(sessions: SessionStore) -> User | None:
    token = st.session_state.get(TOKEN)
    if not token:
        return None
    try:
        session = sessions.resume(token)
    except SessionExpired as expired:
        _forget()
        st.session_state["_auth_cookie_refused"] = token  # the same token may still be in this tab's cookie
        st.session_state[COOKIE_WRITE] = ""
        st.session_state[NOTICE] = str(expired)
        return None
    st.session_state[USER] = session.user
    st.session_state[RESUMED] = (token, time.monotonic())
    return session.user


def _just_resumed(token: str) -> bool:
    """True when the router's gate resumed this token a moment ago (this same run): no second round trip.

    A page's state-changing calls re-check the session in their own transaction anyway (`authorize`).
    """
    seen = st.session_state.get(RESUMED)
    return bool(seen) and seen[0] == token and time.monotonic() - seen[1] < RESUME_FRESH_S


def sign_in(username: str, password: str) -> User:
    """Password sign-in from the login page; AuthError carries the message to show.

    The token rotates: a new one for every sign-in, and the one this browser held before is revoked.
    The visitor's address (`client_address`: behind a trusted proxy, from X-Forwarded-For) is the
    throttle's source, so failures from one visitor lock the name for that visitor only; an unknown
    source only slows the name down (core/stores/login_throttle.py).
    """
    user = _remember(get_sessions().sign_in(username, password, source=client_address()))
    _revoke_previous()
    return user


def _revoke_previous() -> None:
    old = session_cookie.read_token()
    if old and old != st.session_state.get(TOKEN):
        get_sessions().sign_out(old)


def authorize() -> Authorize | None:
    """What every state-changing call passes as `authorize=`: the session re-checked inside its transaction.

    Button callbacks run before the router's gate re-checks the session, so this is the check
    that counts. None when sign-in is off (XIAOE_AUTH=off).
    """
    if not auth_enabled():
        return None
    return get_sessions().guard(st.session_state.get(TOKEN) or "")


def _remember(session: Session) -> User:
    st.session_state[TOKEN] = session.token
    st.session_state[COOKIE_WRITE] = session.token
    st.session_state[USER] = session.user
    st.session_state[METHOD] = session.method
    st.session_state[REVIEWER] = session.user.label
    st.session_state.pop(NOTICE, None)
    return session.user


def sign_out() -> None:
    token, method = st.session_state.get(TOKEN), st.session_state.get(METHOD)
    if token:
        get_sessions().sign_out(token)  # every tab sharing the cookie is signed out on its next action
        st.session_state["_auth_cookie_refused"] = token
    _forget()
    st.session_state[COOKIE_WRITE] = ""
    if method == "sso":
        st.logout()  # also drops the identity cookie, else the next run would sign in again
    else:
        st.rerun()


def _forget() -> None:
    for key in (TOKEN, USER, METHOD, REVIEWER):
        st.session_state.pop(key, None)


# --- single sign-on through st.login (OIDC) ------------------------------------------------------

def sso_providers() -> list[str | None]:
    """Providers configured in secrets [auth]: [None] for one unnamed provider, else their names."""
    try:
        section = st.secrets.get("auth")
    except (StreamlitSecretNotFoundError, FileNotFoundError):
        return []
    if not section:
        return []
    if "client_id" in section:
        return [None]
    return [name for name, value in section.items() if hasattr(value, "get") and "client_id" in value]


def sso_ready() -> bool:
    return importlib.util.find_spec("authlib") is not None


def _sso_sign_in(sessions: SessionStore) -> User | None:
    """Map a signed-in OIDC identity (st.user) to the local account with that email or user name."""
    if not sso_providers() or not st.user.get("is_logged_in", False):
        return None
    try:
        user = _remember(sessions.sign_in_sso(str(st.user.get("email") or ""),
                                              email_verified=st.user.get("email_verified")))
    except AuthError as error:
        st.session_state[NOTICE] = str(error)
        return None
    _revoke_previous()  # rotation, as for a password sign-in
    return user


# --- what the router shows once signed in --------------------------------------------------------

def allowed_pages(pages: list, user: User) -> list:
    """The router's pages this user may open (admin-only pages dropped for others)."""
    kept = []
    for page in pages:
        path = page.url_path
        if path in AUTH_ONLY_PAGES and not auth_enabled():
            continue
        if path in RESTRICTED_PAGES and not user.can(RESTRICTED_PAGES[path]):
            continue
        kept.append(page)
    return kept


def denied_notice(user: User) -> None:
    """A consultant who opens an admin page's address lands on the start page: say why (「无权限」)."""
    try:
        url = st.context.url
    except (AttributeError, RuntimeError):
        return
    if not isinstance(url, str):  # AppTest
        return
    path = urlparse(url).path.rstrip("/").rsplit("/", 1)[-1]
    permission = RESTRICTED_PAGES.get(path)
    if permission is None or user.can(permission) or st.session_state.get("_denied_shown") == url:
        return
    st.session_state["_denied_shown"] = url
    what = PERMISSIONS[permission][0]
    st.toast(f"无权限：不能{PERMISSIONS[permission][0]}", icon=":material/block:")
    st.warning(f"无权限：你的角色是「{user.role_label}」，不能{what}，已转到首页。如有需要，请联系管理员。")


def render_account(user: User) -> None:
    """Sidebar: who is signed in, and the sign-out button."""
    if not auth_enabled():
        st.caption("登录已关闭（XIAOE_AUTH=off），仅限本机单人演示或测试使用。")
        return
    st.caption(f"已登录：{md_escape(user.display_name)}（{md_escape(user.username)}，{user.role_label}）")
    if st.button("退出登录", key="sign_out", icon=":material/logout:"):
        sign_out()


def audit_entries(*, with_logins: bool, limit: int = 200):
    """The audit trail the accounts page lists (sign-ins folded unless `with_logins`)."""
    return audit.recent(get_sessions().db, limit=limit, exclude=() if with_logins else ("login",))


def login_summary():
    """One row per account: how often and when it signed in."""
    return audit.login_summary(get_sessions().db)
