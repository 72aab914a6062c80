"""How this process holds a race, and what its clock does with it: data in, decisions out.

A process holds a race in memory (its *room*, server/services/hosting.py) as the race's
*owner*, which holds the race's lease (server/services/lease.py), numbers its events and
runs its clock, or as a *mirror* of another process's race, which follows the owner's
events. Either may fall *behind* the database (another process changed the race, or the
lease changed hands), and is then reread before it is used again; an owner whose own
write failed is rebuilt at once, since its memory may be ahead of the database. A quiet
owned race is *parked* (it leaves memory and its lease is held by nobody), and any room
may leave memory (*gone*).

    owner ─────fell_behind────▶ owner_behind ──┐
      │ └──────write_failed───▶ owner_failed ──┼─loaded──▶ owner or mirror
      ├──lost───▶ mirror_behind ◀──fell_behind── mirror
      └──park──▶ parking ──let_go──▶ gone ──came_back──▶ mirror_behind
                                       (any room may go: ``let_go``)

The race clock asks ``clock_step`` what to do with each room on each pass; the answer
depends on the room's hold, the race's state and deadline, whether anybody here watches
it, and whether this process's leases are still surely good (an owner that cannot be
sure stops acting as the owner: it neither ticks nor gathers, nor numbers events).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from server.core.race import Race, RaceState

# A finished race stays in memory this long after its end (ms), for late requests.
FINISHED_KEPT_MS = 60_000


class Hold(enum.StrEnum):
    """How this process holds a race."""

    OWNER = "owner"
    OWNER_BEHIND = "owner_behind"  # another process changed the race: reread when used
    OWNER_FAILED = "owner_failed"  # a write of ours failed: rebuild at once
    MIRROR = "mirror"
    MIRROR_BEHIND = "mirror_behind"
    PARKING = "parking"  # leaving memory, its lease being parked
    GONE = "gone"  # left memory


_OWNED = frozenset({Hold.OWNER, Hold.OWNER_BEHIND, Hold.OWNER_FAILED})
_CURRENT = frozenset({Hold.OWNER, Hold.MIRROR})


class HostingError(RuntimeError):
    """A change of hold that is not possible from the hold found."""

    def __init__(self, action: str, hold: Hold) -> None:
        super().__init__(f"cannot {action} a race held as {hold.value}")
        self.action = action
        self.hold = hold


@dataclass(slots=True)
class Hosting:
    """The hold of one room; changed only by its transitions."""

    hold: Hold = Hold.OWNER

    @classmethod
    def loaded(cls, owned: bool) -> Hosting:
        """A room just read from the database, as its owner or as a mirror."""
        return cls(Hold.OWNER if owned else Hold.MIRROR)

    @property
    def owned(self) -> bool:
        """This process holds the race's lease."""
        return self.hold in _OWNED

    @property
    def stale(self) -> bool:
        """The room must be read from the database before it is used again."""
        return self.hold not in _CURRENT

    @property
    def failed(self) -> bool:
        """A write of ours failed: memory may be ahead of the database."""
        return self.hold is Hold.OWNER_FAILED

    def _require(self, action: str, *holds: Hold) -> None:
        if self.hold not in holds:
            raise HostingError(action, self.hold)

    def fell_behind(self) -> None:
        """The race changed in the database (another process's change, or a notice)."""
        if self.hold is Hold.OWNER:
            self.hold = Hold.OWNER_BEHIND
        elif self.hold is Hold.MIRROR:
            self.hold = Hold.MIRROR_BEHIND

    def write_failed(self) -> None:
        """A write of this room's failed (the database is away, or said no)."""
        if self.owned:
            self.hold = Hold.OWNER_FAILED
        elif self.hold is Hold.MIRROR:
            self.hold = Hold.MIRROR_BEHIND

    def lost(self) -> None:
        """Another process holds the race's lease now: this room only mirrors it."""
        if self.owned:
            self.hold = Hold.MIRROR_BEHIND

    def park(self) -> None:
        """A quiet race leaves memory and its lease is parked.

        Raises:
            HostingError: the room is not a current owner's.
        """
        self._require("park", Hold.OWNER)
        self.hold = Hold.PARKING

    def let_go(self) -> None:
        """The room leaves memory (parked, over, or a mirror nobody needs)."""
        self.hold = Hold.GONE

    def came_back(self) -> None:
        """A room let go is held again (a request that found it before watches it now):
        behind, as a mirror until it is read again, which claims the lease if it can."""
        self.hold = Hold.MIRROR_BEHIND


class Step(enum.Enum):
    """What the race clock does with one room on one pass."""

    STAY = "stay"  # nothing now
    LET_GO = "let_go"  # leave memory (a request reads the race again)
    REBUILD = "rebuild"  # read the race from the database, then look again
    TICK = "tick"  # a countdown ended or a time limit ran out: the race's clock says so
    GATHER = "gather"  # send the progress gathered
    PARK = "park"  # quiet: leave memory and park the lease
    RETIRE = "retire"  # finished a while ago: leave memory, the lease goes with its renewal


def clock_deadline(race: Race) -> int | None:
    """When the race's clock changes its state: a lobby's expiry, the end of its
    countdown, or its time limit while it runs (its progress is gathered apart)."""
    if race.state is RaceState.LOBBY:
        return race.deadline()
    if race.state is RaceState.COUNTDOWN:
        return race.starts_at
    if race.state is RaceState.RUNNING:
        return race.ends_at
    return None


def is_quiet(race: Race, active_at: int, now: int, idle_ms: float, watched: bool) -> bool:
    """Whether nothing happened in the race for ``idle_ms``, nobody here watches it, and
    no progress of it waits to be sent."""
    return (
        not watched
        and now - active_at >= idle_ms
        and not race.changed
        and race.state is not RaceState.FINISHED
    )


def clock_step(
    hosting: Hosting,
    race: Race,
    now: int,
    *,
    quiet: bool,
    watched: bool,
    busy: bool,
    lease_good: bool,
    progress_due: bool,
) -> Step:
    """What the race clock does with a room now.

    ``quiet``: ``is_quiet``; ``watched``: somebody here watches the race; ``busy``: a
    request holds the room's lock; ``lease_good``: this process's leases are surely
    still good; ``progress_due``: this pass sends the progress gathered.
    """
    if hosting.hold in (Hold.PARKING, Hold.GONE):
        return Step.STAY
    if not hosting.owned:
        # Its owner's clock runs it. A copy nobody here watches goes once it is behind,
        # over or quiet (a request reads it again).
        over = race.state is RaceState.FINISHED
        if not watched and (hosting.stale or over or quiet):
            return Step.LET_GO
        return Step.STAY
    if not lease_good:
        return Step.STAY  # maybe not the owner any more: act once the lease is renewed
    deadline = clock_deadline(race)
    due = deadline is not None and deadline <= now
    if hosting.stale:
        # Rebuilt only when a failed write left it behind, or when its clock is due:
        # another process's events alone need no replay here.
        return Step.REBUILD if hosting.failed or due else Step.STAY
    if due:
        return Step.TICK
    if deadline is None and quiet and not busy:
        return Step.PARK
    if race.state is RaceState.RUNNING:
        return Step.GATHER if progress_due and race.changed else Step.STAY
    if race.state is RaceState.FINISHED and race.ends_at and now - race.ends_at > FINISHED_KEPT_MS:
        return Step.RETIRE
    return Step.STAY
