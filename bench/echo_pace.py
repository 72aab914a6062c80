"""What a WebSocket message costs a server process at a given pace, with and without
websockets' Python layer, and the least a race server in Python can spend on a move.

1. ``websockets``: the echo of bench/load.py (websockets' ``recv`` and ``send``).
2. ``websockets recv``: websockets' ``recv``, the reply written to the transport as a
   prebuilt frame, as the race server writes its replies and events
   (server/transport/connection.py).
3. ``protocol``: a minimal WebSocket on a plain asyncio ``Protocol`` (the handshake,
   masked frames in, unmasked frames out; no fragments, pings or close handshake), the
   least a server in Python can spend on a message.
4. ``race floor``: the same minimal WebSocket doing the writes a race server's move
   brings and nothing else: each message answered with a prebuilt frame the size of a
   move's reply, and the clients in groups of eight (a race) each sent a prebuilt frame
   the size of a race of eight's progress event, at most every 250 ms while the group
   moves, from a pass every 125 ms, as the race server sends progress
   (docs/protocol.md). No rules, no JSON, no database: what is left of a move when all
   of that costs nothing.
5. ``race floor, picows`` (only where picows is installed; it is no dependency): the
   race floor on picows, whose frames are parsed and built in Cython, as a leaner
   socket layer than the server's own would be.

Each is driven by ``--clients`` connections, each sending a move-sized message
``--rate`` times a second, and the echo process's CPU per round trip is printed, in µs
and in echo units: the CPU per round trip of (1) flat out (``--echo-clients``, each
sending again as soon as answered), measured in each round as bench/load.py measures its
unit.
At the pace one race server process has in bench/load.py's steady phase (500 clients at
2 a second) the difference between (2) and (3) is what a leaner receive path than
websockets' could save on every move, and (4) in echo units is the floor under
bench/load.py's steady CPU per move in the same units.

Usage: ``.venv/bin/python bench/echo_pace.py [--clients 500] [--rate 2] [--duration 10]``
"""

from __future__ import annotations

import argparse
import sys
import time

import load  # bench/load.py: the clients, the pacing and the process stats
import paired  # bench/paired.py: the echo unit's server and clients
from websockets.asyncio.client import ClientConnection

WEBSOCKETS_RECV = """
import asyncio, struct, sys
from websockets.asyncio.server import serve
def framed(payload):
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    return struct.pack("!BBH", 0x81, 126, n) + payload
async def echo(ws):
    while True:
        ws.transport.write(framed(await ws.recv(decode=False)))
async def main():
    async with serve(echo, "127.0.0.1", int(sys.argv[1]), max_queue=None, compression=None):
        await asyncio.Future()
import uvloop
uvloop.run(main())
"""

MINIMAL = """
import asyncio, base64, hashlib, struct, sys
from websockets.speedups import apply_mask
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
def framed(payload):
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    return struct.pack("!BBH", 0x81, 126, n) + payload
class Minimal(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer, self.open = transport, b"", False
    def data_received(self, data):
        buffer = self.buffer + data
        if not self.open:
            end = buffer.find(b"\\r\\n\\r\\n")
            if end < 0:
                self.buffer = buffer
                return
            lines = buffer[:end].decode().split("\\r\\n")
            key = next(l.split(":", 1)[1].strip() for l in lines
                       if l.lower().startswith("sec-websocket-key"))
            accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
            self.transport.write(
                b"HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\n"
                b"Connection: Upgrade\\r\\nSec-WebSocket-Accept: "
                + accept.encode() + b"\\r\\n\\r\\n")
            self.open, buffer = True, buffer[end + 4:]
        at = 0
        while len(buffer) - at >= 6:
            opcode, length, head = buffer[at] & 0x0F, buffer[at + 1] & 0x7F, 2
            if length == 126:
                length, head = struct.unpack_from("!H", buffer, at + 2)[0], 4
            if len(buffer) - at < head + 4 + length:
                break
            mask = buffer[at + head:at + head + 4]
            payload = apply_mask(buffer[at + head + 4:at + head + 4 + length], mask)
            at += head + 4 + length
            if opcode == 8:
                self.transport.close()
                return
            self.message(payload)
        self.buffer = buffer[at:]
def serve(factory, ready=None):
    async def main():
        await asyncio.get_running_loop().create_server(factory, "127.0.0.1", int(sys.argv[1]))
        if ready is not None:
            ready()
        await asyncio.Future()
    import uvloop
    uvloop.run(main())
"""

PROTOCOL = (
    MINIMAL
    + """
class Echo(Minimal):
    def message(self, payload):
        self.transport.write(framed(payload))
serve(Echo)
"""
)

# The sizes of a steady move's reply (with the player's view) and of a race of eight's
# progress event, as bench/load.py's players receive them (medians, bytes of UTF-8).
REPLY_BYTES = 700
PROGRESS_BYTES = 800

RACE_FLOOR = (
    MINIMAL
    + f"""
REPLY = framed(b"r" * {REPLY_BYTES})
PROGRESS = framed(b"p" * {PROGRESS_BYTES})
groups = []
class Racer(Minimal):
    def connection_made(self, transport):
        super().connection_made(transport)
        if not groups or len(groups[-1]["racers"]) == 8:
            groups.append({{"racers": [], "moved": False, "sent": 0.0}})
        self.group = groups[-1]
        self.group["racers"].append(self)
    def message(self, payload):
        self.transport.write(REPLY)
        self.group["moved"] = True
def progress_pass():
    loop = asyncio.get_running_loop()
    now = loop.time()
    for group in groups:
        if group["moved"] and now - group["sent"] >= 0.25:
            group["moved"], group["sent"] = False, now
            for racer in group["racers"]:
                if not racer.transport.is_closing():
                    racer.transport.write(PROGRESS)
    loop.call_later(0.125, progress_pass)
serve(Racer, ready=lambda: asyncio.get_running_loop().call_later(0.125, progress_pass))
"""
)

# The race floor on picows (a WebSocket library whose frames are parsed and built in
# Cython, suggested as a leaner socket layer): the same writes, picows framing each one.
PICOWS_FLOOR = f"""
import asyncio, sys
import uvloop
from picows import WSListener, WSMsgType, ws_create_server
REPLY = b"r" * {REPLY_BYTES}
PROGRESS = b"p" * {PROGRESS_BYTES}
groups = []
class Racer(WSListener):
    def on_ws_connected(self, transport):
        self.transport = transport
        if not groups or len(groups[-1]["racers"]) == 8:
            groups.append({{"racers": [], "moved": False, "sent": 0.0}})
        self.group = groups[-1]
        self.group["racers"].append(self)
    def on_ws_frame(self, transport, frame):
        if frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()
            return
        transport.send(WSMsgType.TEXT, REPLY)
        self.group["moved"] = True
def progress_pass():
    loop = asyncio.get_running_loop()
    now = loop.time()
    for group in groups:
        if group["moved"] and now - group["sent"] >= 0.25:
            group["moved"], group["sent"] = False, now
            for racer in group["racers"]:
                if not racer.transport.is_disconnected:
                    racer.transport.send(WSMsgType.TEXT, PROGRESS)
    loop.call_later(0.125, progress_pass)
async def main():
    server = await ws_create_server(lambda request: Racer(), "127.0.0.1", int(sys.argv[1]))
    asyncio.get_running_loop().call_later(0.125, progress_pass)
    await server.serve_forever()
uvloop.run(main())
"""


async def race_once(websocket: ClientConnection, tally: load.Tally) -> None:
    """Send a move-sized message and wait for its reply, reading past progress frames."""
    started = time.perf_counter()
    await websocket.send(load.ECHO_PAYLOAD)
    while not (await websocket.recv(decode=False)).startswith(b"r"):
        pass
    tally.acknowledged(time.perf_counter() - started)


# Each server's source, and what each of its clients does at every beat.
SERVERS: dict[str, tuple[str, load.RoundTrip]] = {
    "websockets": (load.ECHO_SERVER, load.echo_once),
    "websockets recv": (WEBSOCKETS_RECV, load.echo_once),
    "protocol": (PROTOCOL, load.echo_once),
    "race floor": (RACE_FLOOR, race_once),
}
try:
    import picows  # noqa: F401  (not a dependency: `pip install picows` to include it)
except ImportError:
    pass
else:
    SERVERS["race floor, picows"] = (PICOWS_FLOOR, race_once)


async def paced_cpu(
    source: str,
    once: load.RoundTrip,
    args: argparse.Namespace,
) -> float:
    """The server of ``source``'s CPU per round trip at the given pace, its clients
    each doing ``once`` ``--rate`` times a second."""
    port = load.free_port()
    with load.subprocess_running("echo-pace", [sys.executable, "-c", source, str(port)]) as pid:
        await load.wait_for_port(port)
        stats = load.ProcessStats(pid)
        tally, _, cpu = await load.echo_at_pace(port, args.clients, args, stats, once)
    return cpu / max(1, tally.acks) * 1e6


async def echo_unit(args: argparse.Namespace) -> float:
    """The echo unit: websockets' echo server's CPU per round trip flat out, its
    ``--echo-clients`` clients each sending again as soon as answered (bench/paired.py's
    and bench/load.py's echo)."""
    async with paired.echo_server(args) as echo:
        return await echo.round_trip_cpu(args)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--rate", type=float, default=2.0, help="messages per second per client")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument("--rounds", type=int, default=2, help="each server this many times")
    parser.add_argument("--seed", type=int, default=1, help="the clients' phases")
    parser.add_argument(
        "--echo-clients", type=int, default=256, help="the echo unit's clients (flat out)"
    )
    args = parser.parse_args()
    pace = args.clients * args.rate
    print(f"{args.clients} clients, {args.rate} round trips/s each ({pace:,.0f} a second)")
    for round_number in range(1, args.rounds + 1):
        unit = await echo_unit(args)
        print(f"  round {round_number}, echo unit (flat out): {unit:6.1f} µs CPU per round trip")
        for name, (source, once) in SERVERS.items():
            cost = await paced_cpu(source, once, args)
            print(
                f"  round {round_number}, {name:<16}: {cost:6.1f} µs CPU per round trip"
                f" = {cost / unit:.2f} echo units"
            )


if __name__ == "__main__":
    import uvloop

    uvloop.run(main())
