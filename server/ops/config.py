"""The server's settings: defaults, then SOLITAIRE_* environment variables, then flags.

Every limit lives here so an operator can tune it (docs/operations.md lists them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from server.store.database import DEFAULT_DATA_DIR


@dataclass(frozen=True)
class ServerConfig:
    """Settings of one server process."""

    host: str = "127.0.0.1"
    port: int = 8765
    # Server processes behind the port (server/transport/processes.py); each race is served by
    # the one that created it.
    processes: int = 1
    # Hosts (machines, or server commands) sharing the database behind one proxy, and
    # which of them this is (deploy/haproxy.cfg): races created here get ids with
    # ``id % hosts == host_index``, and the proxy sends a race's address here.
    hosts: int = 1
    host_index: int = 0
    # NATS, over which race events travel between server processes and hosts
    # (server/transport/fanout.py). Unset: one process alone needs none, and the front of
    # ``--processes N`` starts a nats-server of its own (server/transport/broker.py);
    # several hosts must share one.
    nats_url: str | None = None
    # Seconds a race's lease lasts unless renewed (server/services/lease.py), renewed
    # every third of it: a race whose owner died is taken over within about this much
    # and a third more, and an owner that cannot renew stops acting as one this soon.
    lease_seconds: float = 1.5
    # Seconds a process's event loop may go without a beat while a thread of its own
    # keeps its leases (server/services/lease_keeper.py): a loop slowed by load keeps its
    # races; one stuck this long loses them, a lease later.
    lease_stall_seconds: float = 10.0
    database_url: str | None = None
    data_dir: Path = DEFAULT_DATA_DIR
    # Service clients (the Discord bot) prove themselves with one of these tokens.
    service_tokens: tuple[str, ...] = ()
    # permessage-deflate: less bandwidth, more CPU per message (off by default).
    compression: bool = False
    # Largest inbound frame in bytes; bigger ones close the connection with 1009.
    max_message_bytes: int = 16 * 1024
    # Token bucket per connection: sustained messages per second and burst size. A
    # service connection (the bot) has one such bucket per player it acts for instead.
    rate_per_second: float = 20.0
    rate_burst: int = 40
    # A service connection's bucket for all its players together: a generous cap.
    service_rate_per_second: float = 2000.0
    service_rate_burst: int = 4000
    # Limits per client address, for all its connections together (server/core/limits.py;
    # docs/operations.md, "Limits"): messages, new connections and new guests, each a
    # sustained rate and a burst. A household or a school shares one address.
    address_rate_per_second: float = 60.0
    address_rate_burst: int = 120
    address_connections_per_second: float = 2.0
    address_connection_burst: int = 30
    address_guests_per_minute: float = 2.0
    address_guest_burst: int = 30
    # Proxies (addresses or networks) whose X-Forwarded-For says who the client is; none
    # by default: the peer's address is the client's.
    trusted_proxies: tuple[str, ...] = ()
    # Rejected messages in a row before the connection is closed with 1008.
    flood_close_after: int = 50
    # Seconds without any message before the server closes with 4000 "idle timeout".
    idle_timeout: float = 600.0
    # The same for service connections; None (the default) never closes them for idling:
    # the bot's one connection stays open through its users' quiet hours.
    service_idle_timeout: float | None = None
    # Bytes a connection may have waiting to be sent (what the client has not read yet,
    # beyond the kernel's socket buffers); past that it is closed with 4001 and resumes
    # after reconnecting, so a client that stops reading holds no more memory than this.
    send_queue_bytes: int = 1024 * 1024
    # WebSocket keepalive pings; no pong within ping_timeout closes with 1011.
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    # Progress events of a race are gathered and sent at most this often (ms); 0 sends
    # one per change.
    progress_interval_ms: int = 250
    # An unstarted lobby nobody joins or leaves for this long expires (docs/protocol.md).
    lobby_idle_ms: int = 30 * 60 * 1000
    # Events a reconnecting client may catch up on before it gets the full state.
    resume_window: int = 500
    # Largest group commit, in writes.
    max_commit_batch: int = 2000
    # Group commits allowed in flight at once (each uses one pooled connection). One
    # makes the largest batches: everything that arrives while a commit runs goes in
    # the next, which costs PostgreSQL and this process the least per move. More pays
    # off only where a commit waits long on the network rather than on the database.
    commits_in_flight: int = 1
    # Milliseconds an idle group commit waits for more writes to join the first
    # (server/store/commit.py): at a light, steady load fewer, larger transactions.
    # Every acknowledgement may wait this much longer; 0 commits each write at once.
    commit_gather_ms: float = 8.0
    # Connections in the database pool.
    pool_size: int = 8
    # Seconds the group commit keeps trying a lost database (restarted, cut off) before
    # it answers the writes waiting with ``unavailable``; none is acknowledged before
    # it is committed (server/store/commit.py).
    store_retry_seconds: float = 5.0
    # Seconds a race may go without an event, watched by nobody and with no clock of
    # its own running, before it leaves memory (a request loads it again): races whose
    # players all walked away would otherwise be held until a restart.
    idle_race_seconds: float = 300.0
    # Games kept replayed in memory.
    game_cache_size: int = 20_000
    # Seconds to wait for pending commits and closing handshakes at shutdown.
    shutdown_timeout: float = 10.0
    # JSON logs (None: JSON unless stderr is a terminal).
    log_json: bool | None = None
    # Play time of a daily attempt, and whether this process prepares tomorrow's daily
    # deals ahead (the solver runs in a worker process; server/services/daily.py).
    daily_time_limit_s: int = 3600
    daily_prepare_ahead: bool = True
    # Worker processes of the solver pool (server/services/solving.py), shared by daily deals,
    # races' winnable deals and practice games' solver help.
    solver_workers: int = 1
    # Seconds the server may search for a proven-winnable seed when it deals a race.
    race_winnable_seconds: float = 3.0
    # Seconds one solver hint, "still winnable?" check or jump-back search may take.
    solver_help_seconds: float = 1.0
    # Sign in with Discord (docs/operations.md, "Sign in with Discord"): the OAuth2
    # application's id and secret, and the address Discord sends a browser back to after
    # it agreed (this server's /auth/discord/callback as the world reaches it). Without an
    # id and a secret nobody can sign in, and the server runs as it always did.
    discord_client_id: str | None = None
    discord_client_secret: str | None = None
    discord_redirect_uri: str | None = None
    # Discord's OAuth2 addresses; settings so that tests can run a provider of their own.
    discord_authorize_url: str = "https://discord.com/oauth2/authorize"
    discord_token_url: str = "https://discord.com/api/oauth2/token"
    discord_user_url: str = "https://discord.com/api/users/@me"
    # Days a signed-in player's session token stays good (each hello renews it).
    session_days: float = 30.0
    # Quick match (server/services/matchmaking.py, docs/ratings.md): how often each process
    # looks at the queue; how long the longest-waiting player of a group waits before it
    # starts with fewer than 8 (at least 2); a found race's countdown and time limit.
    quick_match_interval_s: float = 1.0
    quick_match_gather_s: float = 20.0
    quick_match_countdown_s: int = 10
    quick_match_time_limit_s: int = 1200
    # Arena tournaments (docs/arena.md): how often each process runs a pairing round in
    # the arenas under way, and how often it looks for arena changes to push to its own
    # clients (ms).
    arena_round_ms: int = 500
    arena_poll_ms: int = 250
    # The countdown of each race an arena pairs (seconds): time to open its board.
    arena_countdown_s: int = 5
    # Rated arenas the operator schedules, each "VARIANT:EVERY_MINUTES:MINUTES"
    # ("klondike:60:30": a 30-minute rated Klondike arena at every full hour, UTC), each
    # created this many seconds before its start, so players can join it ahead.
    arena_schedule: tuple[str, ...] = ()
    arena_schedule_ahead_s: int = 3600
    # How many arenas a player may have created that are not finished (docs/arena.md):
    # enough for one running and the next announced, not a flood of empty listings.
    arena_creator_limit: int = 2
    # Whether guests' results rank (daily boards, all-time board, statistics, ratings).
    # Off: only Discord users rank, in the bot or signed in (server/core/identity.py,
    # ``unranked_reason``); on is for a private server whose players are all known.
    guests_rank: bool = False
    # How long a ranked race's events and boards are held back from its watchers (ms),
    # so that a watcher cannot coach a racer (docs/arena.md, "Watching").
    watch_delay_ms: int = 15_000

    def with_overrides(self, **values: Any) -> ServerConfig:
        """A copy with every non-None value applied."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})


_ENV_TYPES = {
    "port": int,
    "processes": int,
    "hosts": int,
    "host_index": int,
    "lease_seconds": float,
    "lease_stall_seconds": float,
    "max_message_bytes": int,
    "rate_per_second": float,
    "rate_burst": int,
    "service_rate_per_second": float,
    "service_rate_burst": int,
    "service_idle_timeout": float,
    "flood_close_after": int,
    "address_rate_per_second": float,
    "address_rate_burst": int,
    "address_connections_per_second": float,
    "address_connection_burst": int,
    "address_guests_per_minute": float,
    "address_guest_burst": int,
    "send_queue_bytes": int,
    "idle_timeout": float,
    "ping_interval": float,
    "ping_timeout": float,
    "resume_window": int,
    "progress_interval_ms": int,
    "lobby_idle_ms": int,
    "max_commit_batch": int,
    "commits_in_flight": int,
    "commit_gather_ms": float,
    "pool_size": int,
    "store_retry_seconds": float,
    "idle_race_seconds": float,
    "game_cache_size": int,
    "shutdown_timeout": float,
    "daily_time_limit_s": int,
    "solver_workers": int,
    "race_winnable_seconds": float,
    "solver_help_seconds": float,
    "session_days": float,
    "quick_match_interval_s": float,
    "quick_match_gather_s": float,
    "quick_match_countdown_s": int,
    "quick_match_time_limit_s": int,
    "arena_round_ms": int,
    "arena_poll_ms": int,
    "arena_countdown_s": int,
    "arena_schedule_ahead_s": int,
    "arena_creator_limit": int,
    "watch_delay_ms": int,
}


def from_environment(environ: dict[str, str] | None = None) -> ServerConfig:
    """Settings from ``SOLITAIRE_<NAME>`` variables (for example SOLITAIRE_RATE_BURST).

    ``SOLITAIRE_SERVICE_TOKENS``, ``SOLITAIRE_TRUSTED_PROXIES`` and
    ``SOLITAIRE_ARENA_SCHEDULE`` are comma-separated lists.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for item in fields(ServerConfig):
        raw = env.get("SOLITAIRE_" + item.name.upper())
        if raw is None or raw == "":
            continue
        if item.name in ("service_tokens", "trusted_proxies", "arena_schedule"):
            values[item.name] = tuple(t.strip() for t in raw.split(",") if t.strip())
        elif item.name in _ENV_TYPES:
            values[item.name] = _ENV_TYPES[item.name](raw)
        elif item.name == "data_dir":
            values[item.name] = Path(raw)
        elif item.name in ("log_json", "compression", "daily_prepare_ahead", "guests_rank"):
            values[item.name] = raw.lower() in ("1", "true", "yes")
        else:
            values[item.name] = raw
    return ServerConfig(**values)
