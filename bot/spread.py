"""The bot's races spread over the server's hosts: several connections, one per race.

One connection lands on one host (the proxy in front picks it, deploy/haproxy.cfg), and
a race is owned by the host it was created on (docs/operations.md, "A race's owner").
With every Discord race on the bot's one connection, every race would live on one host
and adding hosts would add nothing for Discord players. So the bot opens ``count``
connections through the proxy, one to each host: connection ``i`` asks for host ``i``
(``?host=<i>``, which the proxy honours while that host is up; sent by load, the
connections could land two on one host when other clients connected meanwhile), and:

- creates each race on the next connection in turn, so the races are created on (and
  owned by) every host in turn;
- sends everything about a race (its requests, its players' games) on the connection
  that created or first met it, so the race's owner serves it without reports;
- sends the rest (practice, dailies, boards) on the connection its user hashes to, so
  a user's own games stay where they are cached.

Each connection is an ``ArenaClient`` of its own: it reconnects and resumes its own
races. To the rest of the bot this is one client (a subclass, the same interface).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot.client import Actor, ArenaClient
from server import protocol as p

_CALLBACKS = ("on_event", "on_race", "on_notice", "on_arena")


class SpreadClient(ArenaClient):
    """``count`` connections to the server, each race on one of them."""

    def __init__(self, url: str, service_token: str, count: int, **options: Any) -> None:
        super().__init__(url, service_token, **options)
        own = {k: v for k, v in options.items() if k not in _CALLBACKS}
        self.links = [
            ArenaClient(
                host_url(url, index),
                service_token,
                on_event=self._event,
                on_race=self._race,
                on_notice=self._notice,
                on_arena=self._arena,
                **own,
            )
            for index in range(count)
        ]
        self._turns = itertools.cycle(range(count))
        self._by_race: dict[int, int] = {}
        self._by_game: dict[int, int] = {}

    # The links' callbacks go to whatever the bot set on this client (boards set
    # ``on_notice`` after it was made).
    def _event(self, message: p.Event) -> None:
        if self.on_event is not None:
            self.on_event(message)

    def _race(self, message: p.RaceInfo) -> None:
        if self.on_race is not None:
            self.on_race(message)

    def _notice(self, message: p.ServerMessage) -> None:
        if self.on_notice is not None:
            self.on_notice(message)

    def _arena(self, message: p.ArenaEvent) -> None:
        if self.on_arena is not None:
            self.on_arena(message)

    async def start(self, timeout: float | None = None) -> None:
        """Start every connection (with ``timeout``, wait until each said hello)."""
        for link in self.links:
            await link.start(timeout)

    async def wait_ready(self, timeout: float) -> None:
        """Wait until every connection is greeted."""
        await asyncio.gather(*(link.wait_ready(timeout) for link in self.links))

    async def close(self) -> None:
        """Close every connection."""
        await asyncio.gather(*(link.close() for link in self.links))

    def link_for(self, message: p.ClientMessage, actor: Actor | None) -> int:
        """The index of the connection that carries ``message``."""
        race = getattr(message, "race", None)
        if isinstance(race, int) and race in self._by_race:
            return self._by_race[race]
        game = getattr(message, "game", None)
        if isinstance(game, int) and game in self._by_game:
            return self._by_game[game]
        if isinstance(message, p.CreateRace):
            return next(self._turns)
        if isinstance(race, int):
            return race % len(self.links)  # met first here: from now on on this one
        return 0 if actor is None else actor.user_id % len(self.links)

    def link_for_race(self, race: int) -> int | None:
        """The connection a race rides on, once known (for operators and tests)."""
        return self._by_race.get(race)

    def link_for_game(self, game: int) -> int | None:
        """The connection a game's requests ride on, once known."""
        return self._by_game.get(game)

    async def ask(
        self, message: p.ClientMessage, actor: Actor | None, *, timeout: float | None = None
    ) -> p.ServerMessage:
        """Send ``message`` on its race's (or its user's) connection; the reply."""
        index = self.link_for(message, actor)
        reply = await self.links[index].ask(message, actor, timeout=timeout)
        if isinstance(reply, p.RaceReply):
            self._by_race.setdefault(reply.race.race, index)
            if reply.race.your_game is not None:
                self._by_game.setdefault(reply.race.your_game, self._by_race[reply.race.race])
        elif isinstance(reply, p.ViewReply):
            race = reply.race
            self._by_game.setdefault(reply.game, self._by_race.get(race, index) if race else index)
        return reply


def host_url(url: str, index: int) -> str:
    """``url`` asking the proxy for host ``index`` (deploy/haproxy.cfg, ``host``)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "host"] + [("host", str(index))]
    return urlunsplit(parts._replace(query=urlencode(query)))
