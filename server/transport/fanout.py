"""Race events between server processes and hosts, over NATS (server/services/relay.py).

Each race has its own subjects, so a process hears only of the races it holds (NATS
routes a message only to the connections that subscribed to its subject):

- ``solitaire.race.<id>.owner.event``: one committed event, the frame the watchers get;
- ``solitaire.race.<id>.owner.note``: the owner's notes to mirrors (a list of reports);
- ``solitaire.race.<id>.report``: a mirror's reports to the owner.

A mirror subscribes to ``solitaire.race.<id>.owner.*``, the owner to
``solitaire.race.<id>.>`` (its mirrors' reports, and the events of another process that
took the race over, which tell it it has lost the race). The connection does not echo a
process's own messages back to it.

NATS delivers at most once: a process that finds an event missing (a gap in the race's
numbers) reads it from the database, the durable log, by number
(server/services/following.py); after the connection to NATS was lost and came back,
it catches up every race it holds the same way. Messages to send wait in an outbox that
one task empties (``run``), so a move's path never awaits the network; the client
itself gathers what is written in one loop turn into one write.
"""

from __future__ import annotations

import asyncio

import msgspec
import nats
import structlog
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from server.core.reports import Report
from server.protocol.errors import ArenaError
from server.services import relay
from server.services.following import RaceFollowing

log = structlog.get_logger(__name__)

PREFIX = "solitaire.race"
# Seconds between tries to reach NATS while it is away.
RECONNECT_SECONDS = 0.25
# Seconds the first connection may take: a process that cannot hear the others does not
# serve (the client itself would try for ever).
CONNECT_SECONDS = 5.0
# Bytes the client keeps for NATS while it is away; past it, messages are dropped (the
# database catches them up).
PENDING_BYTES = 8 * 1024 * 1024


def subject(race_id: int, kind: str) -> str:
    """A race's subject of one kind: ``owner.event``, ``owner.note`` or ``report``."""
    return f"{PREFIX}.{race_id}.{kind}"


class NatsFanout:
    """The relay over NATS: what this process tells others, and what it hears."""

    def __init__(self, url: str, name: str = "solitaire") -> None:
        self._url = url
        self._name = name
        self._client: NatsClient | None = None
        self._following: RaceFollowing | None = None
        # What each race should be subscribed as (True: owner), and what it is.
        self._wanted: dict[int, bool | None] = {}
        self._subscribed: dict[int, tuple[bool, Subscription]] = {}
        self._outbox: list[tuple[str, bytes]] = []
        self._wake = asyncio.Event()
        self._lost = False
        self._catch_up = False  # back after NATS was away: read what was missed

    async def start(self) -> None:
        """Connect (before the server serves).

        Raises:
            nats.errors.NoServersError: NATS does not answer.
        """
        try:
            async with asyncio.timeout(CONNECT_SECONDS):
                self._client = await self._connect()
        except TimeoutError:
            raise nats.errors.NoServersError() from None

    async def _connect(self) -> NatsClient:
        return await nats.connect(
            self._url,
            name=self._name,
            no_echo=True,
            allow_reconnect=True,
            max_reconnect_attempts=-1,
            reconnect_time_wait=RECONNECT_SECONDS,
            pending_size=PENDING_BYTES,
            connect_timeout=5,
            disconnected_cb=self._disconnected,
            reconnected_cb=self._reconnected,
            error_cb=self._error,
        )

    def deliver_to(self, following: RaceFollowing) -> None:
        """Where what this process hears goes."""
        self._following = following

    # ---------------------------------------------------------------- the relay

    def follow(self, race_id: int, owner: bool) -> None:
        """Subscribe to the race's subjects as its owner or a mirror (done by ``run``)."""
        self._wanted[race_id] = owner
        self._wake.set()

    def leave(self, race_id: int) -> None:
        """Unsubscribe from the race (done by ``run``)."""
        if race_id in self._subscribed or race_id in self._wanted:
            self._wanted[race_id] = None
            self._wake.set()

    def events(self, race_id: int, frames: list[bytes]) -> None:
        """The owner's events, each in a message of its own."""
        name = subject(race_id, "owner.event")
        self._outbox += [(name, frame) for frame in frames]
        self._wake.set()

    def note(self, race_id: int, reports: list[Report]) -> None:
        """The owner's notes to mirrors."""
        self._outbox.append((subject(race_id, "owner.note"), relay.encode(reports)))
        self._wake.set()

    def report(self, race_id: int, reports: list[Report]) -> None:
        """A mirror's reports to the owner."""
        self._outbox.append((subject(race_id, "report"), relay.encode(reports)))
        self._wake.set()

    # ---------------------------------------------------------------- the task

    async def run(self) -> None:
        """Apply subscriptions and send the outbox, until cancelled; then close."""
        client = self._client
        assert client is not None
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if self._wanted:
                    await self._subscribe(client)
                if self._outbox:
                    sending, self._outbox = self._outbox, []
                    try:
                        for name, payload in sending:
                            await client.publish(name, payload)
                    except nats.errors.Error as err:  # away too long: the database tells
                        log.warning("fanout_dropped", messages=len(sending), error=repr(err))
                if self._catch_up and self._following is not None:
                    self._catch_up = False
                    try:
                        await self._following.catch_up_all()
                    except ArenaError as err:
                        log.error("fanout_failed", error=err.code)
        finally:
            await client.close()

    async def _subscribe(self, client: NatsClient) -> None:
        wanted, self._wanted = self._wanted, {}
        for race_id, owner in wanted.items():
            held = self._subscribed.get(race_id)
            if held is not None and held[0] == owner:
                continue
            if held is not None:
                del self._subscribed[race_id]
                await held[1].unsubscribe()
            if owner is None:
                continue
            kinds = ">" if owner else "owner.*"
            sub = await client.subscribe(subject(race_id, kinds), cb=self._message)
            self._subscribed[race_id] = (owner, sub)

    async def _message(self, message: Msg) -> None:
        following = self._following
        if following is None:
            return
        _, _, race, kind = message.subject.split(".", 3)
        race_id = int(race)
        try:
            if kind == "owner.event":
                await following.received(race_id, message.data)
            elif kind == "owner.note":
                following.noted(relay.decode(message.data))
            elif kind == "report":
                await following.reported(relay.decode(message.data))
        except (msgspec.ValidationError, msgspec.DecodeError) as err:
            log.error("fanout_unreadable", subject=message.subject, error=str(err))
        except ArenaError as err:
            log.error("fanout_failed", race=race_id, error=err.code)

    # ---------------------------------------------------------------- NATS lost and back

    async def _disconnected(self) -> None:
        if not self._lost:
            self._lost = True
            log.warning("fanout_lost")

    async def _reconnected(self) -> None:
        """Back: whatever was sent meanwhile may be lost, so every race held here is
        caught up from the database (by ``run``: the client waits for this callback)."""
        self._lost = False
        log.info("fanout_back")
        self._catch_up = True
        self._wake.set()

    async def _error(self, err: Exception) -> None:
        log.warning("fanout_error", error=repr(err))
