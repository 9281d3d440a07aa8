"""Which network addresses a name on the allowlist may lead to (issue 30.7, DNS rebinding).

Pure: the enforcing proxy (``sandbox/proxy.py``) resolves an allowlisted host name once per session
and asks :func:`local_address` of every answer; a name that leads to a loopback, private,
link-local, shared, reserved or cloud metadata address (``169.254.169.254``, ``fd00:ec2::254``) is
refused unless the allowlisted origin itself is such an address (an IP origin: ``127.0.0.1`` in
tests and on a developer's machine) or a name that is loopback by definition (``localhost`` and
``*.localhost``). Its refusal reaches the session's ledger as an origin marked with
:data:`ADDRESS_REFUSED`, which the replay engine turns into ``SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED``.
"""

from __future__ import annotations

import ipaddress
from typing import Final

ADDRESS_REFUSED: Final = "(address refused) "
# The header the enforcing proxy puts on an answer of its own (``refused``: the boundary refused the
# origin or its address; ``unreachable``: an allowlisted server could not be reached), so a replay
# never reports the proxy's 403 or 502 as the site's answer.
PROXY_ANSWER_HEADER: Final = "x-skillreel-proxy"
METADATA_ADDRESSES: Final = frozenset({"169.254.169.254", "fd00:ec2::254"})


def ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``host`` spells (``[::1]`` too), or None for a name."""
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None


def local_address(address: str) -> bool:
    """True unless ``address`` is a global unicast address (an IPv4-mapped IPv6 judged as its IPv4);
    anything unparsable is local: fail closed."""
    ip = ip_literal(address.split("%", 1)[0])
    if ip is None:
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip) in METADATA_ADDRESSES or not ip.is_global or ip.is_multicast


def local_by_name(host: str) -> bool:
    """A name that is loopback by definition (RFC 6761): ``localhost`` and names under it."""
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def refused_origin(origin: str | None) -> str:
    """The ledger's entry for a name refused for the address it resolved to."""
    return ADDRESS_REFUSED + (origin or "(unparsable)")


def address_refused(origins: tuple[str, ...]) -> bool:
    """Whether any refused origin (the ledger's) was refused for its address."""
    return any(o.startswith(ADDRESS_REFUSED) for o in origins)
