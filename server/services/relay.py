"""What a process tells the other server processes about races (server/core/reports.py).

Several processes (and hosts) may serve one race's players; one of them owns the race
(server/services/lease.py). Between them travel:

- the owner's **events**, each as the frame its watchers get, once committed: every
  process that holds the race (server/services/hosting.py) sends them on to its own
  watchers, and a mirror follows the race by them;
- the owner's **notes** to mirrors: a game's log grew through the owner (a copy cached
  elsewhere is behind), or the race was parked (reread it);
- a mirror's **reports** to the owner: a player's standing after a change the mirror
  committed, or that the race changed in the database (reread it).

Nothing here is the record: every event is committed before it is sent, and a process
that missed some catches up from the database by event number. A process follows only
the races it holds, as their owner or as a mirror (``follow``), so a host hears of the
races its players are in, not of every race. ``Alone`` is the relay of a server that is
the only process on its database: nobody to tell. The NATS relay is
server/transport/fanout.py.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from server.core.reports import Report

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(list[Report])


def encode(reports: list[Report]) -> bytes:
    """Reports as one message."""
    return _encoder.encode(reports)


def decode(payload: bytes) -> list[Report]:
    """A message's reports.

    Raises:
        msgspec.ValidationError, msgspec.DecodeError: the payload is no list of reports.
    """
    return _decoder.decode(payload)


class Relay(Protocol):
    """Tells other processes about races; never blocks and never raises (a message it
    cannot send is one the database catches up)."""

    def follow(self, race_id: int, owner: bool) -> None:
        """Hear of this race from now on: as its owner (its mirrors' reports, and any
        other process's events), or as a mirror (its owner's events and notes)."""

    def leave(self, race_id: int) -> None:
        """Hear no more of this race (its room left this process)."""

    def events(self, race_id: int, frames: list[bytes]) -> None:
        """The owner's committed events, each as its watchers' frame."""

    def note(self, race_id: int, reports: list[Report]) -> None:
        """The owner's notes to the race's mirrors."""

    def report(self, race_id: int, reports: list[Report]) -> None:
        """A mirror's reports to the race's owner."""


class Alone:
    """The relay of the only server process on its database: there is nobody to tell."""

    def follow(self, race_id: int, owner: bool) -> None:
        """Nothing to hear."""

    def leave(self, race_id: int) -> None:
        """Nothing to stop hearing."""

    def events(self, race_id: int, frames: list[bytes]) -> None:
        """Nobody else watches."""

    def note(self, race_id: int, reports: list[Report]) -> None:
        """There are no mirrors."""

    def report(self, race_id: int, reports: list[Report]) -> None:
        """This process owns every race."""
