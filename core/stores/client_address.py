"""The client's address for sign-in throttling, behind the reverse proxies XIAOE_TRUSTED_PROXIES names.

Streamlit reports the address that opened the connection (none for 127.0.0.1 and ::1). Behind a
reverse proxy that is the proxy, for every visitor; the proxy's X-Forwarded-For header names the
visitor, but any client can send that header too, so it is believed only when the connection
comes from a listed proxy, and read right to left (each proxy appends the address it saw).

Two things stand between the connection and this module. Streamlit's web server (uvicorn) rewrites the reported
address itself from X-Forwarded-For when the connection comes from an address it trusts (its FORWARDED_ALLOW_IPS,
loopback by default), whatever XIAOE_TRUSTED_PROXIES says; so a reported address equal to the server's own pick
from the header is taken to be such a rewrite, and the real peer to be one of those addresses. And a proxy nobody
listed, on another host of the school's network, sends the header from a private address: it is one address for
everyone behind it, so it is an unknown source (no lock may hang on it), never a source of its own.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK = "127.0.0.1"  # Streamlit reports no address for 127.0.0.1 and ::1
# uvicorn's default FORWARDED_ALLOW_IPS: the peers whose X-Forwarded-For it believes before we see the request.
SERVER_DEFAULT = "127.0.0.1,::1"


def client_source(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network], *,
                  server_trusts: Sequence[Network] | None = ()) -> str | None:
    """The client's address for throttling, or None when it cannot be known.

    `peer` is the address Streamlit reports (None: loopback), `forwarded_for` the X-Forwarded-For header,
    `trusted` the proxies XIAOE_TRUSTED_PROXIES lists, `server_trusts` the peers the web server rewrites the
    reported address for (`server_rewriters`; () when it does not, None when it trusts every peer).
    The header is believed only when the real peer is a trusted proxy; then it is read right to left and
    the first address that is not a trusted proxy is the client. A trusted peer without a usable
    header gives None (every visitor behind it would share one address), never the proxy's own; so does an
    untrusted peer on a private or loopback address that sends the header (a proxy nobody listed). A public
    address that sends one is a client adding it: its own address counts and the header is ignored.
    """
    hops = [hop.strip() for hop in (forwarded_for or "").split(",") if hop.strip()]
    if not hops:
        return None if _trusted(peer or LOOPBACK, trusted) else peer
    if _rewritten(peer, hops, server_trusts):
        real_trusted = server_trusts is not None and bool(server_trusts) and all(
            any(_within(net, mine) for mine in trusted) for net in server_trusts)
        real_private = True  # every address uvicorn trusts by default is loopback; a listed one is the admin's proxy
    else:
        real_trusted = _trusted(peer or LOOPBACK, trusted)
        real_private = _private(peer or LOOPBACK)
    if not real_trusted:
        return None if real_private else peer
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:  # a proxy we trust wrote something we cannot read: the client is unknown
            return None
        if not _trusted(address, trusted):
            return address
    return None


def server_rewriters(value: str | None) -> tuple[Network, ...] | None:
    """The peers uvicorn takes X-Forwarded-For from, from its FORWARDED_ALLOW_IPS (None: "*", every peer)."""
    text = SERVER_DEFAULT if value is None else value
    if text.strip() == "*":
        return None
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            continue  # uvicorn keeps it as a literal host name, which a connection's address never equals
    return tuple(networks)


def _rewritten(peer: str | None, hops: list[str], server_trusts: Sequence[Network] | None) -> bool:
    """Whether the reported address may be the web server's rewrite: its own pick from the header, as uvicorn makes
    it (the rightmost entry it does not trust, else the leftmost)."""
    if server_trusts is not None and not server_trusts:
        return False
    pick = hops[0]
    for hop in reversed(hops):
        host = _host(hop)
        if server_trusts is None:
            pick = hops[0]
            break
        if not _trusted(host, server_trusts):
            pick = hop
            break
    host = _host(pick)
    reported = peer or LOOPBACK
    return host == reported or (peer is None and host in ("127.0.0.1", "::1"))


def _host(hop: str) -> str:
    """The host part of one entry, as uvicorn parses it ("[::1]:80" → "::1", "1.2.3.4:5" → "1.2.3.4")."""
    if hop.startswith("[") and "]" in hop:
        return hop[1:hop.index("]")]
    if hop.count(":") == 1:
        return hop.split(":")[0]
    return hop


def _address(hop: str) -> str | None:
    """The IP address of one X-Forwarded-For entry ("203.0.113.9", "203.0.113.9:5123", "[2001:db8::1]:80")."""
    try:
        return str(ipaddress.ip_address(_host(hop)))
    except ValueError:
        return None


def _trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == net.version and ip in net for net in trusted)


def _within(inner: Network, outer: Network) -> bool:
    if isinstance(inner, ipaddress.IPv4Network) and isinstance(outer, ipaddress.IPv4Network):
        return inner.subnet_of(outer)
    if isinstance(inner, ipaddress.IPv6Network) and isinstance(outer, ipaddress.IPv6Network):
        return inner.subnet_of(outer)
    return False  # different versions


# Where a reverse proxy of the school's own network can be: private (RFC 1918, RFC 4193), shared (RFC 6598),
# loopback and link-local addresses. (Python's is_private also counts the documentation ranges, which are public
# addresses as far as a proxy is concerned.)
LOCAL_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "fc00::/7", "fe80::/10", "::1/128"))


def _private(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return True  # not an address at all: nothing to lock on
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip.version == net.version and ip in net for net in LOCAL_NETWORKS)
