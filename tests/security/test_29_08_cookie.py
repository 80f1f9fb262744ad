"""#29 item 8: the sign-in cookie had no `__Host-` prefix, so over HTTPS a sibling subdomain or a plain-http
page could plant one (a valid session of the attacker's signed the victim into the attacker's account).

Over HTTPS the cookie is now `__Host-xiaoe_session` (Secure, Path=/, no Domain, SameSite=Strict) and an HTTPS
page reads only that name. The real-browser side: tests/e2e/test_session_hardening_e2e.py.
"""

from __future__ import annotations

import pytest

from ui import session_cookie

TOKEN = "A" * 43


def test_29_08_the_script_sets_a_host_prefixed_secure_cookie_over_https():
    script = session_cookie.cookie_script(TOKEN, "/")
    https = script[script.index("if (location.protocol === 'https:')"):script.index("} else {")]
    assert '"__Host-xiaoe_session="' in https and "; Path=/; Secure; SameSite=Strict" in https
    assert "Domain" not in script and "HttpOnly" not in script  # a script cannot set HttpOnly (docs/accounts.md)


def test_29_08_a_base_path_is_part_of_the_secure_name():
    assert session_cookie.secure_name("/") == "__Host-xiaoe_session"
    assert session_cookie.secure_name("/xiaoe") == "__Host-xiaoe_session_xiaoe"
    assert '"__Host-xiaoe_session_xiaoe="' in session_cookie.cookie_script(TOKEN, "/xiaoe")


@pytest.mark.parametrize("cookies,https,expected", [
    ({"__Host-xiaoe_session": TOKEN}, True, TOKEN),
    ({"xiaoe_session": TOKEN}, True, None),  # planted by a subdomain or over http: ignored on an HTTPS page
    ({"xiaoe_session": TOKEN, "__Host-xiaoe_session": "B" * 43}, True, "B" * 43),
    ({"xiaoe_session": TOKEN}, False, TOKEN),  # make run on 127.0.0.1: plain http
    ({"xiaoe_session": "not a token!"}, False, None),
])
def test_29_08_an_https_page_reads_only_the_host_prefixed_cookie(cookies, https, expected):
    assert session_cookie.token_from(cookies, https=https, path="/") == expected


def test_29_08_clearing_removes_both_names():
    script = session_cookie.cookie_script(None, "/")
    assert script.count("Max-Age=0") >= 2
