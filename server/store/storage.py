"""Players, games with their move log, and races, as the server reads and writes them.

Rare, small writes (a new player, race or entry) run here directly; hot writes (moves,
race events, race state changes) go through the group commit (``server.store.commit``,
the statements built in ``server.store.writes``). asyncpg's errors become
``UnavailableError`` at this boundary (``server.store.pool``), so callers see domain
errors only.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import asyncpg

from server.core.identity import Principal
from server.core.place import ALONE, Place
from server.core.race import RaceSettings, RaceState
from server.core.race_records import EntryLine, RaceRecord
from server.protocol.errors import UnavailableError
from server.store.pool import from_ms, guarded, to_ms


class RematchTaken(Exception):
    """A race's rematch was stored by another request first: ``race`` is that one."""

    def __init__(self, race: int) -> None:
        super().__init__(race)
        self.race = race


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """A stored game: enough to rebuild it by replay."""

    game_id: int
    race_id: int | None
    player_id: int
    variant: str
    options: dict[str, Any]
    seed: int
    seed_public: bool
    status: str
    created_at: int
    finished_at: int | None
    actions: list[str]
    move_ids: dict[str, int]
    play_until: int | None = None
    sealed_until: int | None = None


class Storage:
    """The database as the server sees it."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def healthy(self) -> bool:
        """True when the database answers a trivial query."""
        return bool(await self.pool.fetchval("select 1", timeout=2))

    @guarded
    async def secret(self, name: str = "tokens") -> bytes:
        """The server secret ``name``, created on first use and shared by all processes."""
        await self.pool.execute(
            "insert into server_keys (name, secret) values ($1, $2) on conflict do nothing",
            name,
            secrets.token_bytes(32),
        )
        return bytes(await self.pool.fetchval("select secret from server_keys where name=$1", name))

    # ------------------------------------------------------------ players

    @guarded
    async def create_guest(self, name: str | None, locale: str) -> Principal:
        """A new guest player; its principal is ``guest:<random>``."""
        user = "guest:" + secrets.token_hex(8)
        player_id = int(
            await self.pool.fetchval(
                "insert into players (principal, display_name, locale) values ($1, $2, $3) "
                "returning id",
                user,
                name or "Guest",
                locale,
            )
        )
        if not name:
            name = f"Guest {player_id}"
            await self.pool.execute(
                "update players set display_name=$2 where id=$1", player_id, name
            )
        return Principal(player_id, user, name, locale)

    @guarded
    async def player(self, player_id: int) -> Principal | None:
        """A stored player, touching their last-seen time."""
        row = await self.pool.fetchrow(
            "update players set last_seen_at=now() where id=$1 "
            "returning id, principal, display_name, locale",
            player_id,
        )
        if row is None:
            return None
        return Principal(row["id"], row["principal"], row["display_name"], row["locale"])

    @guarded
    async def discord_player(self, user: str, name: str | None, locale: str | None) -> Principal:
        """The player for a ``discord:<id>`` principal, created or updated with name and locale."""
        row = await self.pool.fetchrow(
            """
            insert into players (principal, display_name, locale)
            values ($1, coalesce($2, $1), coalesce($3, 'en'))
            on conflict (principal) do update set
                display_name = coalesce($2, players.display_name),
                locale = coalesce($3, players.locale),
                last_seen_at = now()
            returning id, principal, display_name, locale
            """,
            user,
            name,
            locale,
        )
        assert row is not None
        return Principal(row["id"], row["principal"], row["display_name"], row["locale"])

    @guarded
    async def set_profile(self, player_id: int, name: str | None, locale: str | None) -> Principal:
        """A player's new display name and/or locale (None keeps it), as stored now."""
        row = await self.pool.fetchrow(
            """
            update players set display_name = coalesce($2, display_name),
                locale = coalesce($3, locale), last_seen_at = now()
            where id=$1 returning id, principal, display_name, locale
            """,
            player_id,
            name,
            locale,
        )
        assert row is not None  # the player of a connection, stored at its hello
        return Principal(row["id"], row["principal"], row["display_name"], row["locale"])

    # ------------------------------------------------------------ races and entries

    @guarded
    async def create_race(
        self,
        creator_id: int,
        settings: RaceSettings,
        seed: int,
        salt: str,
        commitment: str,
        place: Place = ALONE,
        rematch_of: int | None = None,
        holder: str | None = None,
    ) -> int:
        """Store a new race in its lobby; returns its id, one whose home is ``place``.

        With ``holder`` (a server process, server/store/leases.py) the race's lease is
        stored in the same statement: no other process ever sees the race without an
        owner, and no sweep for orphaned races takes it from its creator.

        The id is the first number the sequence hands out with ``id % count ==
        index`` (the subquery stops at it), so each race is served by the process
        that created it (server/transport/routing.py).

        A rematch names the race it follows (``rematch_of``); only one race may follow
        a race (sql/0100_rematches.sql), so the first insert wins.

        Raises:
            RematchTaken: another request stored the rematch of ``rematch_of`` first.
        """
        race_id = await self.pool.fetchval(
            """
            with race as (
                insert into races (id, creator_id, variant, options, seed, salt, commitment,
                    max_players, start_mode, countdown_s, time_limit_s, allow_undo,
                    allow_hints, guild_id, context, require_winnable, solver_help, winnable, ranked,
                    rematch_of)
                values (
                    (select id from (
                        select nextval(pg_get_serial_sequence('races', 'id')) as id
                        from generate_series(1, 1000)
                    ) as numbers where id % $18 = $19 limit 1),
                    $1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb,
                    $15, $16, $17, $20, $21)
                on conflict (rematch_of) where rematch_of is not null do nothing
                returning id
            ), lease as (
                insert into race_leases (race_id, holder)
                select id, $22 from race where $22::text is not null
            )
            select id from race
            """,
            creator_id,
            settings.variant,
            json.dumps(settings.options),
            Decimal(seed),
            salt,
            commitment,
            settings.max_players,
            settings.start_mode,
            settings.countdown_ms // 1000,
            None if settings.time_limit_ms is None else settings.time_limit_ms // 1000,
            settings.allow_undo,
            settings.allow_hints,
            settings.guild_id,
            None if settings.context is None else json.dumps(settings.context),
            settings.require_winnable,
            settings.solver_help,
            settings.winnable,
            place.count,
            place.index,
            settings.ranked,
            rematch_of,
            holder,
        )
        if race_id is None:
            assert rematch_of is not None  # only a rematch's insert can be refused
            taken = await self.rematch(rematch_of)
            assert taken is not None  # the conflict waited for the winner's commit
            raise RematchTaken(taken)
        return int(race_id)

    @guarded
    async def rematch(self, race_id: int) -> int | None:
        """The race opened as ``race_id``'s rematch, or None while there is none."""
        found = await self.pool.fetchval("select id from races where rematch_of=$1", race_id)
        return None if found is None else int(found)

    @guarded
    async def create_entry(
        self,
        *,
        race_id: int | None,
        player_id: int,
        variant: str,
        options: dict[str, Any],
        seed: int,
        seed_public: bool,
        guild_id: str | None,
        created_at: int,
        racer_name: str | None = None,
    ) -> int:
        """Store a player's new game, created at server time ``created_at``; returns its id.

        The creation time comes from the server's clock, like every other time the
        player sees, so the game's clock (its view's ``started_at``) agrees with them.
        A race entry keeps ``racer_name``, the name its standings show to the end.
        """
        return int(
            await self.pool.fetchval(
                """
                insert into entries (race_id, player_id, variant, options, seed, seed_public,
                    guild_id, created_at, racer_name)
                values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9) returning id
                """,
                race_id,
                player_id,
                variant,
                json.dumps(options),
                Decimal(seed),
                seed_public,
                guild_id,
                from_ms(created_at),
                racer_name,
            )
        )

    @guarded
    async def entry(self, game_id: int) -> EntryRecord | None:
        """A stored game with its action log, or None."""
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
            row = await conn.fetchrow("select * from entries where id=$1", game_id)
            if row is None:
                return None
            moves = await conn.fetch(
                "select seq, action, move_id from moves where game_id=$1 order by seq", game_id
            )
        actions = [m["action"] for m in moves]
        if [m["seq"] for m in moves] != list(range(len(moves))):
            raise UnavailableError()  # a gap in the log would rebuild the wrong game
        return EntryRecord(
            game_id=row["id"],
            race_id=row["race_id"],
            player_id=row["player_id"],
            variant=row["variant"],
            options=json.loads(row["options"]),
            seed=int(row["seed"]),
            seed_public=row["seed_public"],
            status=row["status"],
            created_at=to_ms(row["created_at"]) or 0,
            finished_at=to_ms(row["finished_at"]),
            actions=actions,
            move_ids={m["move_id"]: m["seq"] for m in moves if m["move_id"] is not None},
            play_until=to_ms(row["play_until"]),
            sealed_until=to_ms(row["seed_sealed_until"]),
        )

    @guarded
    async def race(self, race_id: int) -> RaceRecord | None:
        """A stored race with its entries and its last event, or None.

        Read in one repeatable-read transaction: the race, its entries and its events
        as of one moment, so a race rebuilt from them is one the database really held.
        """
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
            row = await conn.fetchrow("select * from races where id=$1", race_id)
            if row is None:
                return None
            entries = await conn.fetch(
                """
                select e.id, e.player_id, e.status, e.finished_at, p.principal,
                    coalesce(e.racer_name, p.display_name) as display_name
                from entries e join players p on p.id = e.player_id
                where e.race_id=$1 and e.status <> 'left' order by e.id
                """,
                race_id,
            )
            last_seq = await conn.fetchval(
                "select coalesce(max(seq), 0) from race_events where race_id=$1", race_id
            )
        return _race_record(row, [_entry_line(e) for e in entries], int(last_seq))

    @guarded
    async def events_after(self, race_id: int, seq: int, limit: int) -> list[asyncpg.Record]:
        """Up to ``limit`` stored events of a race after ``seq``, in order."""
        return list(
            await self.pool.fetch(
                "select seq, kind, body, at from race_events where race_id=$1 and seq>$2 "
                "order by seq limit $3",
                race_id,
                seq,
                limit,
            )
        )

    @guarded
    async def done_entries(self, race_ids: list[int]) -> list[asyncpg.Record]:
        """The won and resigned entries of these races (race, game, player, status,
        finished_at)."""
        return list(
            await self.pool.fetch(
                "select race_id, id, player_id, status, finished_at from entries "
                "where race_id = any($1::bigint[]) and status in ('won', 'resigned')",
                race_ids,
            )
        )

    @guarded
    async def members(self, race_ids: list[int]) -> dict[int, tuple[int, set[int]]]:
        """Each of these races' stored version and the players in it (not left)."""
        rows = await self.pool.fetch(
            """
            select r.id, r.version,
                coalesce(array_agg(e.player_id) filter (where e.status <> 'left'), '{}')
                    as players
            from races r left join entries e on e.race_id = r.id
            where r.id = any($1::bigint[])
            group by r.id, r.version
            """,
            race_ids,
        )
        return {row["id"]: (row["version"], set(row["players"])) for row in rows}

    @guarded
    async def events_between(self, wanted: list[tuple[int, int, int]]) -> list[asyncpg.Record]:
        """The stored events of several races, each ``(race, after, upto)`` asking for
        the events numbered after ``after`` up to ``upto``; by race, then in order."""
        return list(
            await self.pool.fetch(
                """
                select e.race_id, e.seq, e.kind, e.body, e.at
                from unnest($1::bigint[], $2::int[], $3::int[]) as w (race_id, after, upto)
                join race_events e
                    on e.race_id = w.race_id and e.seq > w.after and e.seq <= w.upto
                order by e.race_id, e.seq
                """,
                [race for race, _, _ in wanted],
                [after for _, after, _ in wanted],
                [upto for _, _, upto in wanted],
            )
        )


def _entry_line(row: asyncpg.Record) -> EntryLine:
    finished = row["finished_at"]
    return EntryLine(
        game_id=row["id"],
        player_id=row["player_id"],
        name=row["display_name"],
        user=row["principal"],
        status=row["status"],
        # Rounded half up, as the race's finish time was when it was played.
        finished_at=None if finished is None else int(finished.timestamp() * 1000 + 0.5),
    )


def _race_record(row: asyncpg.Record, entries: list[EntryLine], last_seq: int) -> RaceRecord:
    settings = RaceSettings(
        variant=row["variant"],
        options=json.loads(row["options"]),
        max_players=row["max_players"],
        start_mode=row["start_mode"],
        countdown_ms=row["countdown_s"] * 1000,
        time_limit_ms=None if row["time_limit_s"] is None else row["time_limit_s"] * 1000,
        allow_undo=row["allow_undo"],
        allow_hints=row["allow_hints"],
        guild_id=row["guild_id"],
        context=None if row["context"] is None else json.loads(row["context"]),
        require_winnable=row["require_winnable"],
        solver_help=row["solver_help"],
        winnable=row["winnable"],
        ranked=row["ranked"],
    )
    return RaceRecord(
        race_id=row["id"],
        creator_id=row["creator_id"],
        settings=settings,
        seed=int(row["seed"]),
        salt=row["salt"],
        state=RaceState(row["state"]),
        starts_at=to_ms(row["starts_at"]),
        ends_at=to_ms(row["ends_at"]),
        end_reason=row["end_reason"],
        entries=entries,
        last_seq=last_seq,
        version=row["version"],
    )
