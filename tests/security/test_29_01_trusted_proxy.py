"""#29 item 1: behind nginx every visitor was one source. X-Forwarded-For is now believed from the proxies that
XIAOE_TRUSTED_PROXIES lists (loopback by default, as nginx on the same machine), read right to left, so the
per-source scopes get the visitor's address back; a header from anybody else is ignored.
"""

from __future__ import annotations

import ipaddress

import pytest

from core.errors import ConfigError
from core.settings import Settings
from core.stores.client_address import client_source

NGINX = [ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("::1/128")]


@pytest.mark.parametrize("peer,forwarded,expected", [
    (None, "203.0.113.9", "203.0.113.9"),                       # nginx on this machine
    (None, "198.51.100.1, 203.0.113.9", "203.0.113.9"),         # the client's own header is on the left
    (None, "garbage, 203.0.113.9", "203.0.113.9"),
    (None, "[2001:db8::7]:5123", "2001:db8::7"),
    (None, "203.0.113.9:4711", "203.0.113.9"),
    (None, None, None),                                         # a trusted proxy that names nobody: unknown
    (None, "not-an-address", None),
    ("203.0.113.9", "10.0.0.1", "203.0.113.9"),                 # not a proxy: its header is not believed
    ("10.0.0.5", "203.0.113.9", None),                          # a proxy nobody listed: unknown (#41 finding 5)
])
def test_29_01_client_source_believes_forwarded_for_only_from_trusted_proxies(peer, forwarded, expected):
    assert client_source(peer, forwarded, NGINX) == expected


def test_29_01_client_source_skips_a_chain_of_trusted_proxies():
    trusted = [ipaddress.ip_network("10.0.0.0/8")]
    assert client_source("10.0.0.5", "203.0.113.9, 10.1.1.1", trusted) == "203.0.113.9"


def test_29_01_trusted_proxies_setting_is_parsed_and_checked():
    assert Settings.from_env({}).trusted_proxy_networks == tuple(NGINX)
    listed = Settings.from_env({"XIAOE_TRUSTED_PROXIES": "10.0.0.5, 192.168.8.0/24"}).trusted_proxy_networks
    assert listed == (ipaddress.ip_network("10.0.0.5/32"), ipaddress.ip_network("192.168.8.0/24"))
    with pytest.raises(ConfigError, match="XIAOE_TRUSTED_PROXIES.*nginx-host"):
        Settings.from_env({"XIAOE_TRUSTED_PROXIES": "10.0.0.5,nginx-host"})
