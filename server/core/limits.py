"""Limits per connection and per client address: token buckets, and whose address it is.

A connection's own bucket keeps one client from flooding; it cannot stop a client that
opens connection after connection, or makes guest after guest. So every client address
has buckets too (docs/operations.md, "Limits"): the requests of all its connections
together, the new connections it opens, and the guests it makes. A household or a school
behind one address shares them, which is why they are several connections' worth.

The client's address is the peer's, unless the peer is a proxy the operator named as
trusted (``trusted_proxies``): then it is taken from ``X-Forwarded-For``, read from the
right (the entry the nearest proxy wrote) past every trusted proxy, so that an address a
client wrote into the header itself is never believed. (The deployment's proxy speaks
HTTP, deploy/haproxy.cfg, so the header is what it adds; PROXY protocol is not read.)
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Addresses whose buckets a process keeps at most; past it, the buckets that are full
# again (their address was quiet) are forgotten, which forgives no one anything.
ADDRESSES_KEPT: Final = 100_000


@dataclass
class TokenBucket:
    """``rate`` messages per second on average, up to ``burst`` at once."""

    rate: float
    burst: int
    tokens: float = 0.0
    stamp: float = 0.0

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled by ``now``: forgetting it changes nothing."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


@dataclass(frozen=True, slots=True)
class AddressRates:
    """The per-address limits: a rate per second and a burst for each kind of thing."""

    requests_per_second: float
    request_burst: int
    connections_per_second: float
    connection_burst: int
    guests_per_second: float
    guest_burst: int


class AddressBuckets:
    """One kind of bucket (requests, connections, guests), one per address."""

    def __init__(self, rate: float, burst: int, kept: int = ADDRESSES_KEPT) -> None:
        self.rate = rate
        self.burst = burst
        self.kept = kept
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, address: str) -> bool:
        """Spend a token of ``address``'s bucket if it has one."""
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self.kept:
                self._forget_full()
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
        return bucket.take()

    def _forget_full(self) -> None:
        now = time.monotonic()
        for address in [a for a, bucket in self._buckets.items() if bucket.full(now)]:
            del self._buckets[address]
        if len(self._buckets) >= self.kept:
            # Every address busy: dropping buckets can only forgive, never block anyone.
            self._buckets.clear()

    def __len__(self) -> int:
        return len(self._buckets)


class AddressLimits:
    """The buckets of every client address, and which proxies may say who the client is."""

    def __init__(self, rates: AddressRates, trusted_proxies: Iterable[str] = ()) -> None:
        self.rates = rates
        self.requests = AddressBuckets(rates.requests_per_second, rates.request_burst)
        self.connections = AddressBuckets(rates.connections_per_second, rates.connection_burst)
        self.guests = AddressBuckets(rates.guests_per_second, rates.guest_burst)
        self.trusted = trusted_networks(trusted_proxies)

    def address_of(self, peer: str | None, forwarded_for: Sequence[str]) -> str:
        """The client's address of a connection from ``peer`` (see ``client_address``)."""
        return client_address(peer, forwarded_for, self.trusted)


def trusted_networks(proxies: Iterable[str]) -> tuple[Network, ...]:
    """The trusted proxies as networks (``10.0.0.5``, ``10.0.0.0/8``, ``::1``).

    Raises:
        ValueError: an entry that is no address or network.
    """
    return tuple(ipaddress.ip_network(proxy.strip(), strict=False) for proxy in proxies)


def client_address(
    peer: str | None, forwarded_for: Sequence[str], trusted: Sequence[Network]
) -> str:
    """The address a connection comes from, for its limits.

    ``peer`` is the socket's; ``forwarded_for`` the values of the request's
    ``X-Forwarded-For`` headers, in order. While the address in hand is a trusted proxy,
    the entry to its left (the address that proxy saw) is taken instead, from the right
    end of the list; an entry no proxy could have written (not an address) ends the walk
    there, as the client's. Without trusted proxies the header is never read.
    """
    address = _normal(peer) if peer else "unknown"
    if not trusted:
        return address
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",") if hop.strip()]
    while hops and _is_trusted(address, trusted):
        address = _normal(hops.pop())
        if not _is_address(address):
            return address[:64]  # no proxy writes this: it is the client's own word
    return address


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _normal(text: str) -> str:
    """An address in one spelling (``::ffff:1.2.3.4`` is ``1.2.3.4``); other text as is."""
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return text.strip().lower()
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def _is_trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in trusted)
