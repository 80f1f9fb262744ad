"""The client's address for sign-in throttling, behind the reverse proxies XIAOE_TRUSTED_PROXIES names.

Streamlit reports the address that opened the connection (none for 127.0.0.1 and ::1). Behind a
reverse proxy that is the proxy, for every visitor; the proxy's X-Forwarded-For header names the
visitor, but any client can send that header too, so it is believed only when the connection
comes from a listed proxy, and read right to left (each proxy appends the address it saw).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK = "127.0.0.1"  # Streamlit reports no address for 127.0.0.1 and ::1


def client_source(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str | None:
    """The client's address for throttling, or None when it cannot be known.

    `peer` is the address that connected (None: loopback), `forwarded_for` the X-Forwarded-For header.
    The header is believed only when the peer is a trusted proxy; then it is read right to left and
    the first address that is not a trusted proxy is the client. A trusted peer without a usable
    header gives None (every visitor behind it would share one address), never the proxy's own.
    """
    if not _trusted(peer or LOOPBACK, trusted):
        return peer
    for hop in reversed([hop.strip() for hop in (forwarded_for or "").split(",") if hop.strip()]):
        address = _address(hop)
        if address is None:  # a proxy we trust wrote something we cannot read: the client is unknown
            return None
        if not _trusted(address, trusted):
            return address
    return None


def _address(hop: str) -> str | None:
    """The IP address of one X-Forwarded-For entry ("203.0.113.9", "203.0.113.9:5123", "[2001:db8::1]:80")."""
    text = hop
    if text.startswith("[") and "]" in text:
        text = text[1:text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":")[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def _trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == net.version and ip in net for net in trusted)
