"""The ``solitaire`` command: one subcommand per job.

Each subcommand is one ``add_<name>`` function that adds its parser and sets ``run``, the
function that does the job and returns the exit status. :data:`SUBCOMMANDS` lists them; that
tuple is the only place a subcommand is registered.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import asyncpg

from server.store.database import (
    DEFAULT_DATA_DIR,
    configured_database_url,
    provide_database,
    redact,
)
from server.store.migrations import MIGRATIONS_DIR, MigrationError, migrate

if TYPE_CHECKING:
    from server.store.rating_rebuild import Rebuilt

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_database_options(parser: argparse.ArgumentParser) -> None:
    """The options of every subcommand that uses the database."""
    parser.add_argument(
        "--database-url",
        default=configured_database_url(),
        help="PostgreSQL URL (default: $SOLITAIRE_DATABASE_URL; without it an embedded "
        "PostgreSQL runs in --data-dir)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help="data folder of the embedded PostgreSQL (default: %(default)s)",
    )


def add_migrate(subparsers: Subparsers) -> None:
    """``solitaire migrate``: apply the sql/ migrations the database has not seen yet."""
    parser = subparsers.add_parser(
        "migrate",
        help="apply the sql/ migrations to the database",
        description="Apply the sql/NNNN_description.sql migrations the database has not "
        "applied yet, in order, each in its own transaction.",
    )
    add_database_options(parser)
    parser.add_argument(
        "--migrations-dir",
        type=Path,
        default=MIGRATIONS_DIR,
        help="folder of NNNN_description.sql files (default: %(default)s)",
    )
    parser.set_defaults(run=run_migrate)


def run_migrate(args: argparse.Namespace) -> int:
    try:
        applied = asyncio.run(_migrate(args.database_url, args.data_dir, args.migrations_dir))
    except MigrationError as error:
        print(f"solitaire migrate: {error}", file=sys.stderr)
        return 1
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        where = redact(args.database_url) if args.database_url else "the embedded PostgreSQL"
        print(f"solitaire migrate: cannot use {where}: {error}", file=sys.stderr)
        return 1
    if not applied:
        print("solitaire migrate: the database is up to date")
    for name in applied:
        print(f"solitaire migrate: applied {name}")
    return 0


async def _migrate(url: str | None, data_dir: Path, migrations_dir: Path) -> list[str]:
    async with provide_database(url, data_dir) as database_url:
        return [migration.file_name for migration in await migrate(database_url, migrations_dir)]


def add_serve(subparsers: Subparsers) -> None:
    """``solitaire serve``: run the race server (its options live in server/ops/serve.py)."""
    from server.ops.serve import add_serve_parser

    add_serve_parser(subparsers, add_database_options)


def add_players(subparsers: Subparsers) -> None:
    """``solitaire players``: bar and unbar players, list who looks machine-made
    (server/ops/players.py)."""
    from server.ops.players import add_players_parser

    add_players_parser(subparsers, add_database_options)


def add_bot(subparsers: Subparsers) -> None:
    """``solitaire bot``: run the Discord bot (bot/app.py; imported only when run)."""
    parser = subparsers.add_parser(
        "bot",
        help="run the Discord bot",
        description="Run the Discord bot. Settings come from the environment: DISCORD_TOKEN, "
        "SOLITAIRE_SERVER_URL (ws://host:port/) and SOLITAIRE_SERVICE_TOKEN (docs/discord.md).",
    )
    parser.set_defaults(run=run_bot)


def run_bot(args: argparse.Namespace) -> int:
    from bot.app import run_bot as run

    return run(args)


def add_solve(subparsers: Subparsers) -> None:
    """``solitaire solve``: decide a deal or a position with the solver (engine/solver)."""
    from engine.solver.cli import add_solve_arguments

    parser = subparsers.add_parser(
        "solve",
        help="decide whether a deal or position can be won",
        description="Search a deal (--variant, --seed) or a written position (--position) "
        "with every card known; print won with the moves, unwinnable, or unknown.",
    )
    add_solve_arguments(parser)
    parser.set_defaults(run=run_solve)


def run_solve(args: argparse.Namespace) -> int:
    from engine.solver.cli import run_solve as solve

    text = None
    if args.position is not None:
        try:
            text = sys.stdin.read() if args.position == "-" else Path(args.position).read_text()
        except OSError as error:
            print(f"solitaire solve: cannot read {args.position}: {error}", file=sys.stderr)
            return 64
    status, output = solve(args, text)
    print(output, file=sys.stderr if status == 64 else sys.stdout)
    return status


def add_ratings(subparsers: Subparsers) -> None:
    """``solitaire ratings rebuild``: recompute every rating from the stored results."""
    parser = subparsers.add_parser(
        "ratings",
        help="recompute the ratings from the stored results",
        description="rebuild: recompute every player's (and deal's) rating by replaying, "
        "in order, every rated game of the ledger against the stored results, and store "
        "the numbers (docs/ratings.md). Safe while servers run: each rating pool is "
        "rebuilt in one transaction under the lock that live rating takes.",
    )
    parser.add_argument("action", choices=["rebuild"])
    add_database_options(parser)
    parser.set_defaults(run=run_ratings)


def run_ratings(args: argparse.Namespace) -> int:
    try:
        rebuilt = asyncio.run(_rebuild_ratings(args.database_url, args.data_dir))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, MigrationError) as error:
        where = redact(args.database_url) if args.database_url else "the embedded PostgreSQL"
        print(f"solitaire ratings: cannot use {where}: {error}", file=sys.stderr)
        return 1
    print(
        f"solitaire ratings: rebuilt {rebuilt.pools} pools: {rebuilt.games} rated games, "
        f"{rebuilt.ratings} ratings; {rebuilt.differing} stored numbers differed"
    )
    return 0


async def _rebuild_ratings(url: str | None, data_dir: Path) -> Rebuilt:
    from server.store.rating_rebuild import rebuild

    async with provide_database(url, data_dir) as database_url:
        await migrate(database_url)
        async with asyncpg.create_pool(database_url, min_size=1, max_size=2) as pool:
            return await rebuild(pool)


SUBCOMMANDS: tuple[Callable[[Subparsers], None], ...] = (
    add_migrate,
    add_serve,
    add_bot,
    add_solve,
    add_ratings,
    add_players,
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``solitaire`` command with every subcommand in :data:`SUBCOMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="solitaire",
        description="Solitaire Arena: races on identical deals of Klondike, Spider and Yukon.",
    )
    subparsers = parser.add_subparsers(title="commands", dest="command", required=True)
    for add_subcommand in SUBCOMMANDS:
        add_subcommand(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``solitaire`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        # Ctrl-C before the command set up its own handling (the server stops cleanly
        # on SIGINT once it runs): one line, not a traceback; 130 is the shells' 128 + 2.
        print(f"solitaire {args.command}: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
