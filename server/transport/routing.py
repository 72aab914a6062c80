"""Which server process a connection belongs to, when several share one port.

A race is cheapest when one process serves all of its players: that process owns the
race (server/services/lease.py), numbers its events and gathers its progress, and no
report has to travel. So every race has a home process: the one that created it, which
gave it an id with ``id // hosts % processes == index`` (and ``id % hosts`` its host's
index, for the proxy in front, deploy/haproxy.cfg). A client that opens the race's
address, ``/races/<id>``, is handed to that process; any other connection goes to the
processes in turn. A race played through another process works the same (its moves
are reported to the owner), only at a higher cost.

``/metrics?process=<index>`` reaches one process's own figures.
"""

from __future__ import annotations

import re

from server.core.place import Place

_RACE_PATH = re.compile(rb"^/races/(\d{1,18})(?:[/?]|$)")
_PROCESS_QUERY = re.compile(rb"[?&]process=(\d{1,4})(?:&|$)")


def chosen_process(request_line: bytes, count: int, turn: int, hosts: int = 1) -> int:
    """The process for a connection, from the first line of its HTTP request.

    ``GET /races/<id> HTTP/1.1`` goes to the race's home, ``...?process=<index>``
    to that process; anything else (including lines that are no HTTP at all, which
    that process then refuses) to process ``turn % count``. With several ``hosts``, a
    race's id names its host first (``id % hosts``), then its worker there.
    """
    parts = request_line.split(b" ")
    target = parts[1] if len(parts) >= 3 else b""
    race = _RACE_PATH.match(target)
    if race is not None:
        return Place(0, count).home(int(race.group(1)) // hosts)
    wanted = _PROCESS_QUERY.search(target)
    if wanted is not None and int(wanted.group(1)) < count:
        return int(wanted.group(1))
    return turn % count
