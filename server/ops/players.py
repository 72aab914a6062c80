"""The ``solitaire players`` subcommand: bar and unbar players, list the barred, and list
the players whose play looks machine-made (docs/operations.md, "Who is human").

    solitaire players bar <player> [--reason TEXT]
    solitaire players unbar <player>
    solitaire players barred
    solitaire players suspects [--days 30] [--min-games 3] [--solver-games 3] [--all]

A player is named by id or principal (``discord:<id>``, ``guest:…``). The command works
on the database directly, as every server process does, so it needs no running server.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

import asyncpg

from server.core import suspicion
from server.services.bars import Bars
from server.services.review import FairPlay
from server.services.suspects import Review, Suspect, suspects
from server.store.bars import BarStore, PlayerRecord
from server.store.database import provide_database, redact
from server.store.migrations import migrate
from server.store.reviews import Reviews
from server.store.storage import Storage
from server.store.suspects import SuspectStore

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_players_parser(
    subparsers: Subparsers, add_database_options: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Add ``solitaire players`` and its four commands to the command line."""
    parser = subparsers.add_parser(
        "players",
        help="bar players, and list those whose play looks machine-made",
        description="Who is human: bar a player (their results leave every board at once) "
        "or lift the bar, list the barred, and list players whose recent wins look "
        "machine-made, with each signal's value (docs/operations.md).",
    )
    actions = parser.add_subparsers(title="actions", dest="action", required=True)
    bar = actions.add_parser("bar", help="bar a player: their results leave every board")
    bar.add_argument("player", help="player id, or principal such as discord:<id>")
    bar.add_argument("--reason", help="why, kept with the bar")
    unbar = actions.add_parser("unbar", help="lift a bar: the results come back as they were")
    unbar.add_argument("player", help="player id, or principal such as discord:<id>")
    actions.add_parser("barred", help="list the barred players")
    review = actions.add_parser(
        "suspects",
        help="list players whose play looks machine-made, with each signal",
        description="Players with recent wins in races and daily deals, and three signals: "
        f"regularity (spread of the time between moves; under {suspicion.REGULAR_BELOW} "
        f"flags 'regular'), speed (median time between moves; under "
        f"{suspicion.FAST_BELOW_MS} ms flags 'fast'), and the share of decisions where "
        f"the move was the solver's (from {suspicion.SOLVER_FROM:.0%} flags 'solver').",
    )
    defaults = Review()
    review.add_argument(
        "--days",
        type=int,
        default=defaults.days,
        help="wins of the last N days (default: %(default)s)",
    )
    review.add_argument(
        "--min-games",
        type=int,
        default=defaults.min_games,
        help="wins a player needs to be looked at (default: %(default)s)",
    )
    review.add_argument(
        "--solver-games",
        type=int,
        default=defaults.solver_games,
        help="latest wins per player the solver looks at; 0: none (default: %(default)s)",
    )
    review.add_argument(
        "--solver-nodes",
        type=int,
        default=defaults.solver_nodes,
        help="positions the solver may search per decision (default: %(default)s)",
    )
    review.add_argument(
        "--all", action="store_true", help="list every player looked at, flagged or not"
    )
    for each in (bar, unbar, review, actions.choices["barred"]):
        add_database_options(each)
    parser.set_defaults(run=run_players)


def run_players(args: argparse.Namespace) -> int:
    """Run the chosen action; 0 when done, 1 for a player that does not exist or a
    database that cannot be used."""
    try:
        return asyncio.run(_run(args))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        where = redact(args.database_url) if args.database_url else "the embedded PostgreSQL"
        print(f"solitaire players: cannot use {where}: {error}", file=sys.stderr)
        return 1


async def _run(args: argparse.Namespace) -> int:
    async with provide_database(args.database_url, Path(args.data_dir)) as url:
        await migrate(url)
        async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
            store = BarStore(pool)
            if args.action == "barred":
                for barred in await store.barred():
                    print(_barred_line(barred))
                return 0
            if args.action == "suspects":
                review = Review(
                    args.days, args.min_games, args.solver_games, solver_nodes=args.solver_nodes
                )
                found = await suspects(SuspectStore(pool), review)
                print(_suspects_table(found, review, args.all))
                return 0
            player = await store.find(args.player)
            if player is None:
                print(f"solitaire players: no player {args.player!r}", file=sys.stderr)
                return 1
            bars = Bars(store, FairPlay(Storage(pool), Reviews(pool)), pool)
            who = f"{player.name} ({player.principal}, id {player.player_id})"
            if args.action == "bar":
                change = await bars.bar(player.player_id, args.reason)
                state = "barred" if change.changed else "was barred already"
                print(
                    f"{who} {state}: {change.results} race results and {change.attempts} "
                    "daily attempts left every board"
                )
            else:
                change = await bars.unbar(player.player_id)
                state = "unbarred" if change.changed else "was not barred"
                print(
                    f"{who} {state}: {change.results} race results and {change.attempts} "
                    f"daily attempts back as they were; {len(change.to_review)} wins reviewed"
                )
    return 0


def _barred_line(player: PlayerRecord) -> str:
    when = player.barred_at.isoformat(timespec="seconds") if player.barred_at else "?"
    reason = f": {player.barred_reason}" if player.barred_reason else ""
    return f"{player.player_id}\t{player.principal}\t{player.name}\tbarred {when}{reason}"


def _suspects_table(found: list[Suspect], review: Review, everyone: bool) -> str:
    shown = [s for s in found if everyone or s.signals.flags]
    if not shown:
        return (
            f"no player's play looks machine-made ({len(found)} players with "
            f"{review.min_games}+ wins in {review.days} days looked at)"
        )
    lines = ["player\tprincipal\tname\twins\tgaps\tmedian ms\tregularity\tsolver match\tflags"]
    for suspect in shown:
        s, player = suspect.signals, suspect.player
        median = "-" if s.median_gap_ms is None else f"{s.median_gap_ms:.0f}"
        regularity = "-" if s.regularity is None else f"{s.regularity:.2f}"
        match = "-" if s.solver_match is None else f"{s.solver_match:.2f}"
        flags = " ".join(s.flags) or "-"
        if player.barred:
            flags += " (barred)"
        lines.append(
            f"{player.player_id}\t{player.principal}\t{player.name}\t{s.games}\t{s.gaps}\t"
            f"{median}\t{regularity}\t{match} of {s.solver_positions}\t{flags}"
        )
    return "\n".join(lines)
