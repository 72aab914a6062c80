"""The ``solitaire serve`` subcommand: run the race server until SIGTERM."""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable
from typing import TypeAlias

from server.ops.config import from_environment

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_serve_parser(
    subparsers: Subparsers, add_database_options: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Add ``solitaire serve`` with its options to the command line."""
    defaults = from_environment()
    parser = subparsers.add_parser(
        "serve",
        help="run the race server",
        description="Run the WebSocket race server (with /healthz and /metrics on the same "
        "port). Every limit can also be set by a SOLITAIRE_<NAME> environment variable.",
    )
    add_database_options(parser)
    parser.add_argument("--host", default=defaults.host, help="address (default: %(default)s)")
    parser.add_argument(
        "--port", type=int, default=defaults.port, help="port (default: %(default)s)"
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=defaults.processes,
        help="server processes behind the port, one per core (default: %(default)s)",
    )
    parser.add_argument(
        "--service-token",
        action="append",
        dest="service_tokens",
        help="a token the Discord bot may authenticate with (repeatable; default: "
        "$SOLITAIRE_SERVICE_TOKENS, comma-separated)",
    )
    parser.add_argument(
        "--rate-per-second",
        type=float,
        default=defaults.rate_per_second,
        help="messages per second per connection (default: %(default)s; all connections of "
        f"one address together: {defaults.address_rate_per_second:g}, "
        "SOLITAIRE_ADDRESS_RATE_PER_SECOND)",
    )
    parser.add_argument(
        "--rate-burst",
        type=int,
        default=defaults.rate_burst,
        help="burst of messages per connection (default: %(default)s)",
    )
    parser.add_argument(
        "--max-message-bytes",
        type=int,
        default=defaults.max_message_bytes,
        help="largest inbound frame in bytes; a larger one closes with 1009 (default: %(default)s)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=defaults.idle_timeout,
        help="seconds without a message before close (default: %(default)s)",
    )
    parser.add_argument("--log-json", action="store_true", default=None, help="JSON logs always")
    parser.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """Run the server until SIGTERM or SIGINT; 0 after a clean shutdown.

    A port it cannot listen on is one line on stderr and status 1: the usual cause is a
    server already running, which a traceback would only hide.
    """
    from server.transport.app import run, run_event_loop

    config = from_environment().with_overrides(
        host=args.host,
        port=args.port,
        processes=args.processes,
        database_url=args.database_url,
        data_dir=args.data_dir,
        service_tokens=tuple(args.service_tokens) if args.service_tokens else None,
        rate_per_second=args.rate_per_second,
        rate_burst=args.rate_burst,
        max_message_bytes=args.max_message_bytes,
        idle_timeout=args.idle_timeout,
        log_json=args.log_json,
    )
    if config.hosts > 1 and config.nats_url is None:
        print(
            f"solitaire serve: {config.hosts} hosts need one NATS for their race events: "
            "set SOLITAIRE_NATS_URL on every host",
            file=sys.stderr,
        )
        return 1
    from nats.errors import NoServersError

    from server.transport.broker import NoNatsServer

    try:
        if config.processes > 1:
            from server.transport.processes import serve_processes

            return run_event_loop(serve_processes(config))
        run_event_loop(run(config))
    except NoNatsServer as error:
        print(f"solitaire serve: {error}", file=sys.stderr)
        return 1
    except NoServersError:
        print(f"solitaire serve: NATS does not answer at {config.nats_url}", file=sys.stderr)
        return 1
    except OSError as error:
        if error.errno not in UNUSABLE_ADDRESS:
            raise
        where = f"{config.host}:{config.port}"
        taken = error.errno == errno.EADDRINUSE
        reason = "the address is already in use" if taken else "no such address on this machine"
        print(f"solitaire serve: cannot listen on {where}: {reason}", file=sys.stderr)
        return 1
    return 0


# What binding the listening socket fails with: a port taken, or a host not ours.
UNUSABLE_ADDRESS = frozenset({errno.EADDRINUSE, errno.EADDRNOTAVAIL})
