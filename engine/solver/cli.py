"""The ``solitaire solve`` subcommand's pure half: arguments in, text out.

``server/ops/cli.py`` registers the subcommand, reads a position file when one is given
and prints what ``run_solve`` returns; everything else happens here, without I/O.
"""

from __future__ import annotations

import argparse
import json

from engine.position_text import parse_position
from engine.solver import SolveResult, solve
from engine.solver.search import DEFAULT_MAX_NODES
from engine.variants import VARIANTS, rules_for


def add_solve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``solitaire solve``."""
    parser.add_argument(
        "--variant", choices=list(VARIANTS), help="the variant of the deal (with --seed)"
    )
    parser.add_argument("--seed", type=int, help="the deal's seed (with --variant)")
    parser.add_argument(
        "--position",
        metavar="FILE",
        help="a position in the engine's text form (docs/positions.md) instead of a "
        "deal; '-' reads it from standard input",
    )
    parser.add_argument(
        "--passes",
        type=int,
        default=None,
        help="Klondike only: the pass limit through the stock (default 0: no limit)",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=10.0, help="time budget (default: %(default)s)"
    )
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        help="positions to search at most (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_solve(args: argparse.Namespace, position_text: str | None) -> tuple[int, str]:
    """Solve what ``args`` name; ``position_text`` is the content of --position.

    Returns:
        The exit status (0 won, 1 unwinnable, 2 unknown, 64 bad input) and the text
        to print.
    """
    try:
        if position_text is not None:
            rules, pos = parse_position(position_text)
            source = "position"
        else:
            if args.variant is None or args.seed is None:
                raise ValueError("give --variant and --seed, or --position")
            options = {} if args.passes is None else {"passes": args.passes}
            rules = rules_for(args.variant, options)
            pos = rules.deal(args.seed)
            source = f"seed {args.seed}"
    except ValueError as error:
        return 64, f"solitaire solve: {error}"
    result = solve(rules, pos, max_nodes=args.max_nodes, max_seconds=args.max_seconds)
    status = {"won": 0, "unwinnable": 1, "unknown": 2}[result.verdict.value]
    if args.json:
        return status, json.dumps(result_json(rules.name, source, result))
    return status, result_text(rules.name, source, result)


def result_json(variant: str, source: str, result: SolveResult) -> dict[str, object]:
    """The JSON form of a result, for machines."""
    return {
        "variant": variant,
        "source": source,
        "verdict": result.verdict.value,
        "seconds": round(result.seconds, 4),
        "nodes": result.nodes,
        "moves": [move.notation() for move in result.moves],
    }


def result_text(variant: str, source: str, result: SolveResult) -> str:
    """The human form: verdict, time, nodes, then the solution."""
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    lines = [
        f"{variant} {source}: {result.verdict.value}",
        f"time {result.seconds:.3f} s, {result.nodes:,} positions ({rate:,.0f}/s)",
    ]
    if result.moves:
        lines.append(f"solution ({len(result.moves)} moves): {result.notation()}")
    return "\n".join(lines)
