"""Load benchmark of the race server: simulated players in races of 8 over loopback.

Runs a real server subprocess (``python -m server``) on a throwaway PostgreSQL
database and drives it from this process:

1. Steady load: ``--players`` players in races of 8, each making ``--rate`` moves a
   second (Klondike, a random legal move from the last view, each with a move id).
   Prints acknowledged moves per second, acknowledgement latency p50/p99/max, the
   server's CPU use (also per acknowledged move), how long it waited for a core (the
   machine's run queue, from /proc/<pid>/schedstat), its memory per connection, and
   how often each race's progress events came (from their own times).
2. Saturation: ``--saturation-players`` players moving as fast as their moves are
   acknowledged, for our moves per second at saturation.
3. Echo: a bare websockets echo server, driven the same way, for its round trips per
   second; the ratio of (2) to (3) is printed. Before the rounds, the echo server is
   also driven at one server process's steady pace (``--players`` ÷ ``--processes``
   clients at ``--rate``): the steady phase's CPU per move is given in those "paced
   echo" round trips too, the same work at the same pace.

Phases 2 and 3 alternate ``--rounds`` times (both servers stay up, their clients
connected), and the median of the rounds' ratios is the figure: the machine's speed
drifts by tens of percent within minutes, and measuring both sides next to each other,
several times, keeps that drift out of the ratio. At the end the server's CPU per
acknowledged move, steady and at saturation, is also given in echo round trips (the
echo server's CPU per round trip, median of the rounds), so that figures from
different machines and hours compare.

With ``--capacity N1 N2 ...`` it measures instead one host's capacity as a figure people
can use: for each count of players, in races of 8, moving ``--rate`` times a second (1 by
default there), the acknowledgement p99 and the server's CPU per move, beside the race
floor of bench/echo_pace.py (the least a race server in Python spends on a move) driven
at one server process's pace in the same run; then the most players whose p99 stayed
under ``--p99-ms`` (50). The load generator shares the machine, as it does everywhere here;
its CPU per move is printed beside the server's.

The players speak WebSocket through bench/lean_client.py, which does a client's protocol
work and no more, so that the generator takes as little of the server's cores as it can.

Usage: ``.venv/bin/python bench/load.py --players 1000 --rate 2 --duration 20``, or
``.venv/bin/python bench/load.py --processes 2 --rate 1 --capacity 2000 3000 4000 5000``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import lean_client  # bench/lean_client.py: the players' WebSocket client
import msgspec
from lean_client import EVENT, LeanWebSocket
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.store.database import LOCAL_SERVER_URL, locate_postgres, temporary_database  # noqa: E402

RACE_SIZE = 8
Driver = Callable[["Tally", asyncio.Event], Coroutine[Any, Any, None]]
# One beat of a paced client: a message sent and its answer read (``echo_once``).
RoundTrip = Callable[[ClientConnection, "Tally"], Awaitable[None]]
ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve
async def echo(ws):
    async for message in ws:
        await ws.send(message)
async def main():
    async with serve(echo, "127.0.0.1", int(sys.argv[1]), max_queue=None, compression=None):
        await asyncio.Future()
try:
    import uvloop  # the same event loop as the race server, for a fair ratio
except ImportError:
    asyncio.run(main())
else:
    uvloop.run(main())
"""


# The limits per client address (server/ops/config.py, ``address_*``), which benchmarks
# whose players all share one loopback address lift.
ADDRESS_LIMITS = (
    "RATE_PER_SECOND",
    "RATE_BURST",
    "CONNECTIONS_PER_SECOND",
    "CONNECTION_BURST",
    "GUESTS_PER_MINUTE",
    "GUEST_BURST",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ProcessStats:
    """CPU seconds and resident memory of a process and all its descendants, from /proc.

    With ``--processes`` the server is a front process whose workers are its children
    (and a solver pool's workers their children). The descendants are those running
    when the stats are made, so make them once the server answers (``wait_for_server``):
    the front listens before it spawns its workers, and stats made as soon as the port
    took connections saw the front alone, which does next to nothing, so the server's
    CPU read as 0 µs per move. A process that ends later keeps the CPU last read of it.
    """

    def __init__(self, pid: int) -> None:
        self.pids = descendants(pid)
        self.ticks = os.sysconf("SC_CLK_TCK")
        self._last: dict[int, int] = {}

    def cpu_seconds(self) -> float:
        for pid in self.pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended: its last reading stands
            self._last[pid] = int(fields[11]) + int(fields[12])
        return sum(self._last.values()) / self.ticks

    def waiting_seconds(self) -> float:
        """Seconds the processes were ready to run but waited for a core (run queue)."""
        try:
            return sum(
                int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
                for pid in self.pids
            )
        except (OSError, IndexError, ValueError):  # no schedstats in this kernel
            return 0.0

    def rss_bytes(self) -> int:
        total = 0
        for pid in self.pids:
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        return total


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (children started by any of its threads)."""
    found, waiting = [], [pid]
    while waiting:
        parent = waiting.pop()
        found.append(parent)
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                waiting.extend(int(child) for child in task.read_text().split())
    return found


@dataclass
class Tally:
    """What the players measured while ``recording`` is on."""

    recording: bool = False
    latencies: list[float] = field(default_factory=list)
    acks: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    generator_cpu: float = 0.0
    server_waiting: float = 0.0
    postgres_cpu: float = 0.0
    stolen: float = 0.0
    # How late the generator's own loop ran a 1 ms timer, in seconds: a reply that came
    # in time reads as late by as much when the loop that reads it is busy.
    generator_lag: list[float] = field(default_factory=list)

    def acknowledged(self, latency: float) -> None:
        """Count an answer that came ``latency`` seconds after its message, while
        recording."""
        if self.recording:
            self.acks += 1
            self.latencies.append(latency)


class ViewBody(msgspec.Struct):
    legal_moves: dict[str, list[str]] = {}
    outcome: str | None = None


class Reply(msgspec.Struct):
    """The few fields of a reply the players look at (msgspec skips the rest fast)."""

    type: str
    id: int | None = None
    code: str | None = None
    view: ViewBody | None = None
    race: Any = None


_reply = msgspec.json.Decoder(Reply)


class StandingEnd(msgspec.Struct):
    """Whether a standing in a progress event is a racer's last: finished or given up."""

    finished: bool = False
    resigned: bool = False


class EventKind(msgspec.Struct):
    kind: str
    standings: list[StandingEnd] = []

    @property
    def at_once(self) -> bool:
        """A progress event sent with a finish or a resignation, not at the interval
        (docs/protocol.md: the waiting progress goes out at once then)."""
        return any(s.finished or s.resigned for s in self.standings)


class EventHead(msgspec.Struct):
    """The few fields of a race event the steady phase looks at: which race, when."""

    race: int
    seq: int
    time: int
    event: EventKind


_event = msgspec.json.Decoder(EventHead)
_encode = msgspec.json.Encoder().encode


# A player gives up a game after this many moves (a person's Klondike game takes one
# to two hundred) and starts another; see ``Player.move``.
GAME_MOVES = 300


class Player:
    """One simulated player: a connection, a game, its moves so far, the last legal moves."""

    def __init__(self, websocket: LeanWebSocket, rng: random.Random) -> None:
        self.websocket = websocket
        self.rng = rng
        self.next_id = 0
        self.game = 0
        self.played = 0
        self.legal: list[str] = ["d"]
        # The progress events received, as (race, seq, server time, sent at once with
        # a finish or a resignation), while this is a list.
        self.events: list[tuple[int, int, int, bool]] | None = None

    async def request(self, kind: str, **fields: object) -> Reply:
        self.next_id += 1
        request_id = self.next_id
        request = {"type": kind, "id": request_id, **fields}
        await self.websocket.send(_encode(request))
        while True:
            frame = await self.websocket.recv()
            if frame.startswith(EVENT):
                # Race progress of the others, kept by the client only where counted
                # (``count_events``, the steady phase).
                if self.events is not None:
                    head = _event.decode(frame)
                    if head.event.kind == "progress":
                        self.events.append((head.race, head.seq, head.time, head.event.at_once))
                continue
            reply = _reply.decode(frame)
            if reply.id == request_id:
                return reply

    async def move(self, tally: Tally) -> None:
        """One move; when it ends this player's game, a new race goes on from there.

        A player whose game is over keeps playing, so the load stays what the phase
        says: at saturation, random play ends about a third of the games within a
        minute, and players dropping out one by one would measure an ever smaller load.
        A game with no moves left, or still going after ``GAME_MOVES`` moves, is given
        up (as a person gives up a game going nowhere) before the next: random play
        otherwise makes games thousands of moves long whose positions have about twice
        the legal moves of a game's first few hundred moves, so each saturation round
        would measure deeper games than the one before.
        """
        text = self.rng.choice(self.legal)
        started = time.perf_counter()
        reply = await self.request(
            "move", game=self.game, text=text, move_id=f"{self.next_id}-{text}"
        )
        elapsed = time.perf_counter() - started
        if reply.type == "error" or reply.view is None:
            code = str(reply.code)
            if tally.recording:
                tally.errors[code] = tally.errors.get(code, 0) + 1
            if code in ("game_over", "wrong_state"):
                await self.race_alone()
            return
        tally.acknowledged(elapsed)
        self.see(reply.view)
        self.played += 1
        outcome = reply.view.outcome
        if outcome is not None or self.played >= GAME_MOVES:
            if outcome != "won":
                await self.request("resign", game=self.game)
            await self.race_alone()

    def count_events(self) -> None:
        """From now on keep the race's progress events, for ``progress_rate``."""
        self.events = []
        self.websocket.drop_events = False

    def see(self, view: ViewBody) -> None:
        """Keep the legal moves of the view just received, to pick the next move from."""
        self.legal = [m for moves in view.legal_moves.values() for m in moves] or ["d"]

    async def create_race(self, max_players: int, **settings: object) -> int:
        """Create a Klondike race that starts when told, with this player in it; its id."""
        created = await self.request(
            "create_race", variant="klondike", max_players=max_players, countdown_s=0, **settings
        )
        assert isinstance(created.race, dict), created
        self.game = int(created.race["your_game"])
        return int(created.race["race"])

    async def race_alone(self) -> None:
        """Go on in a race of one, started at once: a race's moves, without waiting for others.

        Not a practice game: there the solver checks every position in the background
        (server/services/winnability.py), which is other work than the moves this measures; for
        the same reason the server does not search for a winnable deal first.
        """
        race = await self.create_race(1, require_winnable=False)
        await self.request("start_race", race=race)
        self.played = 0
        self.legal = ["d"]  # the stock of a new deal


JOIN_TRIES = 5  # a join answered ``conflict`` is asked again, this many times in all


async def seat_players(
    url: str, count: int, seed: int, local_address: Callable[[int], str] | None = None
) -> list[Player]:
    """Connect ``count`` players and put them in started races of 8.

    The first player of each race creates it; the others open the race's address
    (``/races/<id>``), as a client does that wants to meet the race's players on one
    server process when there are several. With ``local_address``, player ``i``
    connects from that loopback address (each player a client address of its own, as
    the server's limits per address see players on the internet).
    """
    gate = asyncio.Semaphore(50)
    rng = random.Random(seed)
    rngs = [random.Random(rng.random()) for _ in range(count)]

    async def one(index: int, path: str = "") -> Player:
        async with gate:
            bound = {"local_addr": (local_address(index), 0)} if local_address else {}
            websocket = await lean_client.connect(url + path, **bound)
            player = Player(websocket, rngs[index])
            await player.request("hello", name=f"p{index}")
            return player

    async def race(start: int) -> list[Player]:
        host = await one(start)
        race = await host.create_race(RACE_SIZE)
        end = min(count, start + RACE_SIZE)
        group = [host, *[await one(i, f"races/{race}") for i in range(start + 1, end)]]
        for player in group[1:]:
            joined = await player.request("join_race", race=race)
            for _ in range(JOIN_TRIES - 1):
                # ``conflict``: another server process changed the race first (two
                # joins at once on a loaded machine); a client asks again.
                if joined.code != "conflict":
                    break
                await asyncio.sleep(0.05)
                joined = await player.request("join_race", race=race)
            assert isinstance(joined.race, dict), joined
            player.game = int(joined.race["your_game"])
        await host.request("start_race", race=race)
        return group

    groups = await asyncio.gather(*(race(start) for start in range(0, count, RACE_SIZE)))
    return [player for group in groups for player in group]


async def paced(player: Player, rate: float, tally: Tally, stop: asyncio.Event) -> None:
    """Move ``rate`` times a second (random phase), until stopped."""
    await at_pace(player.move, rate, player.rng.random(), tally, stop)


async def at_pace(
    act: Callable[[Tally], Awaitable[None]],
    rate: float,
    phase: float,
    tally: Tally,
    stop: asyncio.Event,
) -> None:
    """Do ``act`` ``rate`` times a second, the first after ``phase`` of an interval."""
    interval = 1.0 / rate
    due = time.perf_counter() + phase * interval
    while not stop.is_set():
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        due += interval
        await act(tally)


async def flat_out(player: Player, tally: Tally, stop: asyncio.Event) -> None:
    """Move again as soon as the last move is acknowledged."""
    while not stop.is_set():
        await player.move(tally)


async def measure(
    drivers: list[Driver],
    warmup: float,
    duration: float,
    server: ProcessStats | None,
) -> tuple[Tally, float, float]:
    """Run the drivers; record for ``duration`` after ``warmup``; return tally, s, cpu s.

    The generator's own cyclic garbage collector is off while it measures: with a
    thousand connections in one process, one of its full collections stalls every
    player for tens of milliseconds, and each move in flight then reads as slow
    although the server answered in time. What it allocates in one phase is freed
    by reference counting or collected after the phase.
    """
    tally = Tally()
    stop = asyncio.Event()
    gc.collect()
    gc.freeze()
    gc.disable()
    tasks = [asyncio.create_task(drive(tally, stop)) for drive in drivers]
    tasks.append(asyncio.create_task(loop_lag(tally, stop)))
    await asyncio.sleep(warmup)
    cpu_before = server.cpu_seconds() if server else 0.0
    waiting_before = server.waiting_seconds() if server else 0.0
    own_before = time.process_time()
    postgres_before = postgres_cpu_ticks()
    stolen_before = stolen_seconds()
    tally.recording = True
    started = time.perf_counter()
    await asyncio.sleep(duration)
    tally.recording = False
    elapsed = time.perf_counter() - started
    cpu = (server.cpu_seconds() - cpu_before) if server else 0.0
    tally.server_waiting = (server.waiting_seconds() - waiting_before) if server else 0.0
    tally.generator_cpu = time.process_time() - own_before
    tally.postgres_cpu = postgres_cpu_between(postgres_before, postgres_cpu_ticks())
    tally.stolen = stolen_seconds() - stolen_before
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    gc.enable()
    gc.unfreeze()
    return tally, elapsed, cpu


async def loop_lag(tally: Tally, stop: asyncio.Event) -> None:
    """Time a 1 ms sleep over and over while recording: the generator's loop lag."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.001)
        if tally.recording:
            tally.generator_lag.append(time.perf_counter() - started - 0.001)


def postgres_cpu_ticks() -> dict[int, int]:
    """CPU clock ticks of every PostgreSQL process on this machine (all databases), by pid."""
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        if name.startswith("postgres"):
            fields = text.rsplit(")", 1)[1].split()
            ticks[int(stat.parent.name)] = int(fields[11]) + int(fields[12])
    return ticks


def postgres_cpu_between(before: dict[int, int], after: dict[int, int]) -> float:
    """PostgreSQL's CPU seconds from ``before`` to ``after``, process by process: on a
    shared machine other sessions' backends end meanwhile, and a plain difference of
    totals then loses their whole lives (it read below zero)."""
    ticks = 0
    for pid, used in after.items():
        earlier = before.get(pid, 0)
        ticks += used - earlier if used >= earlier else used  # else a new process, same pid

    return ticks / os.sysconf("SC_CLK_TCK")


def stolen_seconds() -> float:
    """CPU seconds the hypervisor gave to others while this machine's processes were
    ready to run (the "steal" column of /proc/stat), over all cores: on a virtual
    machine a busy neighbour shows here, and a phase with much of it measured less of
    a machine than the others."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return int(fields[8]) / os.sysconf("SC_CLK_TCK") if len(fields) > 8 else 0.0


def metrics_urls(port: int, processes: int, host: str = "127.0.0.1") -> list[str]:
    """The /metrics address of each process of a server on ``port``."""
    return [f"http://{host}:{port}/metrics?process={n}" for n in range(processes)]


def metric_totals(urls: list[str], names: Sequence[str]) -> dict[str, float]:
    """The values of the metrics ``names``, summed over the servers' /metrics at ``urls``."""
    totals = dict.fromkeys(names, 0.0)
    for url in urls:
        with urllib.request.urlopen(url, timeout=10) as answer:
            for line in answer.read().decode().splitlines():
                name, _, value = line.rpartition(" ")
                if name in totals:
                    totals[name] += float(value)
    return totals


def commit_figures(port: int, processes: int) -> str:
    """Group commit time, writes per commit and slow commits, from every process's /metrics.

    Every acknowledgement waits for a commit, and a commit for the disk's flush: the
    commits over 50 and 250 ms show how much of the latency tail is the disk's
    (bench/fsync_probe.py measures the disk alone).
    """
    within_50 = 'solitaire_commit_seconds_bucket{le="0.05"}'
    within_250 = 'solitaire_commit_seconds_bucket{le="0.25"}'
    totals = metric_totals(
        metrics_urls(port, processes),
        (
            "solitaire_commit_seconds_count",
            "solitaire_commit_seconds_sum",
            "solitaire_commit_writes_total",
            within_50,
            within_250,
        ),
    )
    commits = totals["solitaire_commit_seconds_count"]
    count = commits or 1.0
    mean_ms = totals["solitaire_commit_seconds_sum"] / count * 1000
    writes = totals["solitaire_commit_writes_total"] / count
    return (
        f"{mean_ms:.1f} ms per group commit, {writes:.1f} writes per commit, "
        f"{commits - totals[within_50]:.0f} of {commits:.0f} commits over 50 ms and "
        f"{commits - totals[within_250]:.0f} over 250 ms (whole run)"
    )


def progress_rate(players: list[Player]) -> str:
    """How often each race's progress events came, from their own times (server ms):
    events a second per race, and the shortest and the median gap before an event of
    the interval (docs/protocol.md: at most one every 250 ms; the progress sent at once
    with a finish or a resignation may follow the one before sooner, and is not
    counted as the end of a gap)."""
    times: dict[int, dict[int, tuple[int, bool]]] = {}
    for player in players:
        for race, seq, at, at_once in player.events or ():
            times.setdefault(race, {})[seq] = (at, at_once)
    rates, gaps = [], []
    for by_seq in times.values():
        ordered = [by_seq[seq] for seq in sorted(by_seq)]
        first, last = ordered[0][0], ordered[-1][0]
        if last == first:  # one event, or all at one moment: no rate to tell
            continue
        rates.append((len(ordered) - 1) / (last - first) * 1000)
        gaps += [
            later - earlier
            for (earlier, _), (later, at_once) in itertools.pairwise(ordered)
            if not at_once
        ]
    if not gaps:
        return "none received"
    return (
        f"{statistics.median(rates):.1f}/s per race (median of {len(rates)} races), "
        f"gaps within a race: shortest {min(gaps)} ms, median {statistics.median(gaps):.0f} ms"
    )


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(title: str, tally: Tally, elapsed: float, cpu: float) -> float:
    rate = tally.acks / elapsed
    print(f"{title}")
    print(f"  acknowledged moves/s : {rate:,.0f}  ({tally.acks} in {elapsed:.1f} s)")
    if tally.latencies:
        print(
            f"  ack latency ms      : p50 {percentile(tally.latencies, 0.5) * 1000:.1f}"
            f"  p99 {percentile(tally.latencies, 0.99) * 1000:.1f}"
            f"  max {max(tally.latencies) * 1000:.1f}"
            f"  mean {statistics.fmean(tally.latencies) * 1000:.1f}"
        )
    print(f"  server CPU          : {cpu / elapsed * 100:.0f}% of one core")
    if tally.acks:
        print(f"  server CPU per ack  : {cpu / tally.acks * 1e6:.0f} µs")
    print(
        f"  server run queue    : ready but waiting for a core "
        f"{tally.server_waiting / elapsed * 100:.0f}% of the time"
    )
    print(f"  load generator CPU  : {tally.generator_cpu / elapsed * 100:.0f}% of one core")
    print(f"  generator loop lag  : p99 {percentile(tally.generator_lag, 0.99) * 1000:.1f} ms")
    print(f"  PostgreSQL CPU      : {tally.postgres_cpu / elapsed * 100:.0f}% of one core")
    cores = os.cpu_count() or 1
    print(f"  machine load avg    : {os.getloadavg()[0]:.1f} (1 min; {cores} cores)")
    print(f"  stolen by the host  : {tally.stolen / elapsed / cores * 100:.0f}% of the cores' time")
    if tally.errors:
        print(f"  errors              : {tally.errors}")
    return rate


@contextlib.contextmanager
def subprocess_running(
    name: str, command: list[str], env: dict[str, str] | None = None
) -> Iterator[int]:
    """Run ``command`` (its output to a log file) and yield its pid; stop it afterwards."""
    log = Path(tempfile.gettempdir()) / f"solitaire-bench-{name}-{os.getpid()}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    try:
        yield process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def server_environment(database_url: str) -> dict[str, str]:
    """The benchmarked server's environment: limits far above the players' pace."""
    return {
        **os.environ,
        "SOLITAIRE_DATABASE_URL": database_url,
        "SOLITAIRE_RATE_PER_SECOND": "10000",
        "SOLITAIRE_RATE_BURST": "10000",
        # Every player of a benchmark is on one loopback address: the limits per
        # address (docs/operations.md) are lifted, as the per-connection rate is.
        **{f"SOLITAIRE_ADDRESS_{name}": "1000000" for name in ADDRESS_LIMITS},
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",  # no deal solver competing for the CPU
    }


async def capacity(args: argparse.Namespace, database_url: str) -> None:
    """For each count of ``--capacity``: the steady p99 and server CPU per move at
    ``--rate``, beside the race floor at one process's pace; then the most players
    whose p99 stayed under ``--p99-ms``."""
    import echo_pace  # bench/echo_pace.py: the race floor

    port = free_port()
    server_command = [
        *(sys.executable, "-m", "server", "--port", str(port)),
        *("--processes", str(args.processes)),
    ]
    best = 0
    with subprocess_running("server", server_command, server_environment(database_url)) as pid:
        url = f"ws://127.0.0.1:{port}/"
        await wait_for_server(port)
        stats = ProcessStats(pid)
        for count in args.capacity:
            players = await seat_players(url, count, args.seed + count)
            drivers: list[Driver] = [partial(paced, p, args.rate) for p in players]
            tally, elapsed, cpu = await measure(drivers, args.warmup, args.duration, stats)
            for player in players:
                await player.websocket.close()
            floor_args = argparse.Namespace(**{**vars(args), "clients": count // args.processes})
            floor = await echo_pace.paced_cpu(echo_pace.RACE_FLOOR, echo_pace.race_once, floor_args)
            p50 = percentile(tally.latencies, 0.5) * 1000 if tally.latencies else float("inf")
            p99 = percentile(tally.latencies, 0.99) * 1000 if tally.latencies else float("inf")
            per_move = cpu / max(1, tally.acks) * 1e6
            print(
                f"{count} players at {args.rate:g} move/s: {tally.acks / elapsed:,.0f} moves/s, "
                f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, server {per_move:.0f} µs CPU a move; "
                f"race floor {floor:.0f} µs a move at one process's pace "
                f"({per_move / floor:.1f}×); "
                f"load generator {tally.generator_cpu / max(1, tally.acks) * 1e6:.0f} µs, "
                f"PostgreSQL {tally.postgres_cpu / max(1, tally.acks) * 1e6:.0f} µs a move; "
                f"load avg {os.getloadavg()[0]:.1f}, stolen by the host "
                f"{tally.stolen / elapsed / (os.cpu_count() or 1) * 100:.0f}%; "
                f"generator's loop lag p99 {percentile(tally.generator_lag, 0.99) * 1000:.1f} ms; "
                f"errors {dict(tally.errors) or 'none'}",
                flush=True,
            )
            if p99 < args.p99_ms and not tally.errors:
                best = max(best, count)
    print(
        f"capacity with {args.processes} processes: {best or 'fewer than the least'} players "
        f"at {args.rate:g} move/s with p99 under {args.p99_ms:g} ms"
    )


async def run(args: argparse.Namespace, database_url: str) -> None:
    """Steady load, then saturation and echo in alternating rounds; print every figure."""
    port, echo_port = free_port(), free_port()
    env = server_environment(database_url)
    server_command = [
        *(sys.executable, "-m", "server", "--port", str(port)),
        *("--processes", str(args.processes)),
    ]
    echo_command = [sys.executable, "-c", ECHO_SERVER, str(echo_port)]
    with (
        subprocess_running("server", server_command, env) as server_pid,
        subprocess_running("echo", echo_command) as echo_pid,
    ):
        url = f"ws://127.0.0.1:{port}/"
        await wait_for_server(port)
        await wait_for_port(echo_port)
        stats = ProcessStats(server_pid)
        idle_rss = stats.rss_bytes()
        players = await seat_players(url, args.players, args.seed)
        connected_rss = stats.rss_bytes()
        drivers: list[Driver] = [partial(paced, p, args.rate) for p in players]
        for player in players:
            player.count_events()
        tally, elapsed, cpu = await measure(drivers, args.warmup, args.duration, stats)
        steady_us = cpu / max(1, tally.acks) * 1e6
        report(
            f"steady load: {args.players} players in races of {RACE_SIZE}, "
            f"{args.rate} moves/s each",
            tally,
            elapsed,
            cpu,
        )
        print(f"  progress events     : {progress_rate(players)}")
        per_connection = (stats.rss_bytes() - idle_rss) / max(1, args.players)
        print(
            f"  server memory       : {stats.rss_bytes() / 2**20:.0f} MiB RSS, "
            f"{(connected_rss - idle_rss) / max(1, args.players) / 1024:.0f} KiB per connection "
            f"seated, {per_connection / 1024:.0f} KiB after playing"
        )
        for player in players:
            await player.websocket.close()
        echo_stats = ProcessStats(echo_pid)
        paced_us = await paced_echo(echo_port, args, echo_stats)

        players = await seat_players(url, args.saturation_players, args.seed + 1)
        sockets = [
            await connect(f"ws://127.0.0.1:{echo_port}/", max_queue=None, ping_interval=None)
            for _ in range(args.saturation_players)
        ]
        ratios, saturated_us, echo_us = [], [], []
        for round_number in range(1, args.rounds + 1):
            drivers = [partial(flat_out, p) for p in players]
            tally, elapsed, cpu = await measure(drivers, args.warmup, args.duration, stats)
            saturated = report(
                f"saturation, round {round_number}: {args.saturation_players} players moving "
                "as fast as acknowledged",
                tally,
                elapsed,
                cpu,
            )
            print(f"  server memory       : {stats.rss_bytes() / 2**20:.0f} MiB RSS")
            saturated_us.append(cpu / max(1, tally.acks) * 1e6)
            drivers = [partial(echo, w) for w in sockets]
            tally, elapsed, cpu = await measure(drivers, args.warmup, args.duration, echo_stats)
            echo_us.append(cpu / max(1, tally.acks) * 1e6)
            echoed = report(
                f"echo, round {round_number}: bare websockets echo server, "
                f"{args.saturation_players} clients",
                tally,
                elapsed,
                cpu,
            )
            ratios.append(saturated / echoed)
            print(f"  ratio this round    : {ratios[-1]:.2f}")
        print(f"commits: {commit_figures(port, args.processes)}")
        for websocket in [*(p.websocket for p in players), *sockets]:
            await websocket.close()
    each = ", ".join(f"{ratio:.2f}" for ratio in ratios)
    echo_median = statistics.median(echo_us)
    print(
        "server CPU per ack in echo round trips (÷ the echo server's CPU per round trip, "
        f"median of this run's rounds, {echo_median:.0f} µs): steady "
        f"{steady_us / echo_median:.2f} ({steady_us:.0f} µs), saturation "
        f"{statistics.median(saturated_us) / echo_median:.2f} "
        f"({statistics.median(saturated_us):.0f} µs, median of the rounds)"
    )
    print(
        "steady server CPU per ack in paced echo round trips (÷ the echo server's CPU per "
        f"round trip at one server process's steady pace, {paced_us:.0f} µs): "
        f"{steady_us / paced_us:.2f}"
    )
    print(
        "saturation ratio (our moves/s ÷ echo round trips/s): "
        f"median {statistics.median(ratios):.2f} of {len(ratios)} rounds ({each})"
    )


async def paced_echo(port: int, args: argparse.Namespace, stats: ProcessStats) -> float:
    """The echo server's CPU per round trip at the pace one race server process has in
    the steady phase (``--players`` ÷ ``--processes`` clients at ``--rate``); printed.

    A process's CPU per message rises steeply as its pace falls (a wake-up for nearly
    every message, and websockets' Python layer most of it: bench/echo_pace.py; on this
    machine the bare echo costs about three times as much at 1,000 round trips a second
    as flat out), so the steady phase is also given in units of the same work at the
    same pace.
    """
    clients = max(1, args.players // args.processes)
    tally, elapsed, cpu = await echo_at_pace(port, clients, args, stats, echo_once)
    report(
        f"paced echo: bare websockets echo server, {clients} clients, "
        f"{args.rate} round trips/s each",
        tally,
        elapsed,
        cpu,
    )
    return cpu / max(1, tally.acks) * 1e6


async def echo_at_pace(
    port: int,
    clients: int,
    args: argparse.Namespace,
    stats: ProcessStats,
    once: RoundTrip,
) -> tuple[Tally, float, float]:
    """Drive the echo server on ``port`` with ``clients`` connections, each doing
    ``once`` (``echo_once``: a move-sized message and its echo) ``args.rate`` times a
    second; ``measure``'s tally, s and cpu s."""
    sockets = [
        await connect(f"ws://127.0.0.1:{port}/", max_queue=None, ping_interval=None)
        for _ in range(clients)
    ]
    rng = random.Random(args.seed)
    drivers: list[Driver] = [
        partial(at_pace, partial(once, w), args.rate, rng.random()) for w in sockets
    ]
    try:
        return await measure(drivers, args.warmup, args.duration, stats)
    finally:
        for websocket in sockets:
            await websocket.close()


ECHO_PAYLOAD = json.dumps({"type": "move", "id": 1, "game": 1, "text": "7>3", "move_id": "x"})


async def echo(websocket: ClientConnection, tally: Tally, stop: asyncio.Event) -> None:
    """Echo round trips, each as soon as the last came back, until stopped."""
    while not stop.is_set():
        await echo_once(websocket, tally)


async def echo_once(websocket: ClientConnection, tally: Tally) -> None:
    """Send a move-sized message and wait for it to come back."""
    started = time.perf_counter()
    await websocket.send(ECHO_PAYLOAD)
    await websocket.recv()
    tally.acknowledged(time.perf_counter() - started)


@contextlib.asynccontextmanager
async def postgres(database_url: str | None = None) -> AsyncIterator[str]:
    """The admin URL of a PostgreSQL for a benchmark: ``database_url``, else the one on
    127.0.0.1:5432, else an embedded one started for the run and stopped after it."""
    location = await locate_postgres(
        database_url, LOCAL_SERVER_URL, Path(tempfile.mkdtemp()) / "pg"
    )
    try:
        yield location.admin_url
    finally:
        if location.embedded is not None:
            location.embedded.stop()


async def wait_for_server(port: int) -> None:
    """Wait until the race server answers ``/healthz``: with ``--processes`` the front
    takes connections at once but hands them on only once every worker is ready."""
    await wait_for_port(port)
    url = f"http://127.0.0.1:{port}/healthz"

    def answers() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return True
        except urllib.error.HTTPError:
            return True  # degraded is an answer too
        except OSError:
            return False

    for _ in range(600):
        if await asyncio.to_thread(answers):
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the server on port {port} does not answer /healthz")


async def wait_for_port(port: int) -> None:
    for _ in range(600):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise RuntimeError(f"nothing listens on port {port}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=2.0, help="moves per second per player")
    parser.add_argument("--saturation-players", type=int, default=256)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating saturation and echo measurements"
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes (solitaire serve --processes)"
    )
    parser.add_argument("--database-url", help="PostgreSQL server (default: 127.0.0.1:5432)")
    parser.add_argument(
        "--capacity", type=int, nargs="+", help="player counts: measure capacity instead"
    )
    parser.add_argument("--p99-ms", type=float, default=50.0, help="the capacity's p99 bound")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    async with (
        postgres(args.database_url) as admin_url,
        temporary_database(admin_url, prefix="solitaire_bench") as url,
    ):
        await (capacity if args.capacity else run)(args, url)


if __name__ == "__main__":
    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())
