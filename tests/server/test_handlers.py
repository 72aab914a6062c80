"""One route for every client message: the registry against the protocol's closed set."""

from __future__ import annotations

from server import protocol as p
from server.transport import handlers


def test_every_client_message_but_the_connections_own_has_exactly_one_route() -> None:
    # Built over no services: a route only names its service when it is called.
    routes = handlers.routes(None)  # type: ignore[arg-type]
    player, service = set(routes.player), set(routes.service)
    assert not player & service
    assert player | service | {p.Hello, p.SetProfile} == set(p.ClientMessage.__args__)
