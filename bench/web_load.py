"""The browser client on loopback: first-load bytes, time to a playable board, tap to redraw.

Starts a server on a throwaway database and opens the page in Debian's chromium
(Playwright, as the browser tests do), each run in a new browser context (an empty
cache, a new guest). It prints:

- the machine's cores and load average (other work on the machine slows every figure);
- the bytes of the first load as transferred (gzip, headers included) and the
  bodies' compressed size, from the browser's resource timing; the WebSocket's
  frames are not counted; and what Discord's SDK adds inside Discord only (it fails
  if the page outside Discord fetched it);
- the time from the start of navigation to the first drawn face-up card (the board
  is playable then), by the page's own clock, cold and with the browser's cache
  (304s) on a second load;
- the time from a tap on the stock (a draw: one move to the server and back) to the
  redrawn board, over many draws, by the page's own clock (p50, p99), split into the
  page's part before the move is sent, the server's round trip, and the page's part
  from the reply to the redrawn board.

    .venv/bin/python bench/web_load.py [--admin-url URL] [--runs N] [--taps N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from pathlib import Path

# Run as a script, this file's folder comes first on the path; the repository root goes there.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from playwright.async_api import Page, async_playwright  # noqa: E402

from server.ops.config import ServerConfig  # noqa: E402
from server.store.database import LOCAL_SERVER_URL, temporary_database  # noqa: E402
from server.transport.app import ArenaServer  # noqa: E402
from server.transport.static import WEB_ROOT, load_files  # noqa: E402

CHROMIUM = "/usr/bin/chromium"

PLAYABLE = "() => document.querySelector('#board .card.face') && performance.now()"

# When the page's modules were in (the last one's responseEnd; icons and the manifest,
# fetched after, do not hold the board up), the DOM was ready, the WebSocket open, the
# welcome in and the first view in (SOCKET_TIMES, installed before the page's scripts).
LOADED = """() => [
  Math.max(...performance.getEntriesByType('resource')
    .filter((e) => /[.](js|css)$/.test(e.name)).map((e) => e.responseEnd)),
  performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
  window.socketTimes.open, window.socketTimes.welcome, window.socketTimes.view,
]"""

SOCKET_TIMES = """
window.socketTimes = {};
const Socket = WebSocket;
window.WebSocket = function (...args) {
  const socket = new Socket(...args);
  const times = window.socketTimes;
  socket.addEventListener('open', () => { times.open ??= performance.now(); });
  socket.addEventListener('message', (frame) => {
    const type = /^{"type":"(\\w+)"/.exec(frame.data)?.[1];
    if (type === 'welcome' || type === 'view') times[type] ??= performance.now();
  });
  return socket;
};
Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
window.WebSocket.prototype = Socket.prototype;
"""

# The page's own cost: drawing a Klondike view after a draw (views alternating, as the
# board sees them), and the whole board anew, with the board module the page uses.
DRAW = """async (count) => {
  const { Board } = await import('/board.js');
  const root = document.createElement('div');
  root.className = 'board';
  document.querySelector('main').append(root);
  const board = new Board(root, () => {}, () => {});
  const view = {
    variant: 'klondike', options: {}, stock: 20, passes: 0,
    waste: { count: 3, visible: ['Kd'] },
    tableau: [{down: 0, up: ['Kh', 'Qs', 'Jh']}, {down: 1, up: ['Qs']},
              {down: 2, up: ['Jc', '10d']}, {down: 3, up: ['2h']},
              {down: 4, up: ['8s', '7h', '6c', '5d']}, {down: 5, up: ['3c']},
              {down: 6, up: ['9h', '8c']}],
    foundations: [{suit: 'c', cards: 2, top: '2c'}, {suit: 'd', cards: 0, top: null},
                  {suit: 'h', cards: 1, top: 'Ah'}, {suit: 's', cards: 0, top: null}],
    counters: { moves: 10, undos: 0, hints: 0, score: 50 }, outcome: null, can_finish: false,
    legal_moves: { '1': ['1>f'], '3': ['3>5'], d: ['d'] }, status: 'playing',
  };
  // A draw's change: the stock one card shorter, a new card on the waste.
  const drawn = { ...view, stock: 19, waste: { count: 4, visible: ['Qc'] },
                  counters: { ...view.counters, moves: 11 } };
  const shown = [];
  const whole = [];
  for (let i = 0; i < count; i += 1) {
    let start = performance.now();
    board.show(i % 2 ? drawn : view);
    root.getBoundingClientRect();  // layout included
    shown.push(performance.now() - start);
    start = performance.now();
    board.draw();
    root.getBoundingClientRect();
    whole.push(performance.now() - start);
  }
  root.remove();
  return [shown, whole];
}"""

BYTES = """() => {
  const entries = [...performance.getEntriesByType('navigation'),
                   ...performance.getEntriesByType('resource')];
  return [entries.reduce((n, e) => n + e.transferSize, 0),
          entries.reduce((n, e) => n + e.encodedBodySize, 0),
          entries.reduce((n, e) => n + e.decodedBodySize, 0),
          entries.length,
          entries.filter((e) => e.name.includes('discord-sdk')).length];
}"""

# Draws from the stock by pointer events, each timed until the board is redrawn, and
# split where the time goes: the page until the move is sent, the server (the frame
# out, the move committed, the reply handed to the page), and the page
# again from the reply to the redrawn board (the view read, the board drawn and laid
# out, everything the page does before the browser may paint).
TAPS = """async (count) => {
  const board = document.querySelector('#board');
  const send = WebSocket.prototype.send;
  const parse = JSON.parse;
  let sentAt = 0;
  let arrivedAt = 0;
  WebSocket.prototype.send = function (data) {
    sentAt = performance.now();
    return send.call(this, data);
  };
  // The page's socket listener reads each frame with JSON.parse first: the reply's
  // arrival in the page (a listener added here would run after the page's own).
  JSON.parse = function (text, ...rest) {
    const reply = typeof text === 'string' && text.startsWith('{"type":"view"');
    if (reply) arrivedAt = performance.now();
    return parse.call(this, text, ...rest);
  };
  const times = [];
  for (let i = 0; i < count; i += 1) {
    const stock = board.querySelector('[data-pile="s"].card, .slot[data-pile="s"]');
    const redrawn = new Promise((done) => {
      const watch = new MutationObserver(() => { watch.disconnect(); done(performance.now()); });
      watch.observe(board, { childList: true, subtree: true });
    });
    arrivedAt = -1;
    const start = performance.now();
    const at = { bubbles: true, button: 0, pointerId: 1, isPrimary: true };
    stock.dispatchEvent(new PointerEvent('pointerdown', at));
    stock.dispatchEvent(new PointerEvent('pointerup', at));
    stock.dispatchEvent(new MouseEvent('click', { ...at, detail: 1 }));
    const end = await redrawn;
    times.push([end - start, sentAt - start, arrivedAt - sentAt, end - arrivedAt]);
    // A person's pace, under the server's rate limit (20 a second after a burst of 40):
    // faster, the taps would meet rate_limited errors instead of moves.
    await new Promise((done) => setTimeout(done, 60));
  }
  WebSocket.prototype.send = send;
  JSON.parse = parse;
  return times;
}"""


async def playable_ms(page: Page) -> float:
    handle = await page.wait_for_function(PLAYABLE, polling="raf")
    return float(await handle.json_value())


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(url: str, runs: int, taps: int) -> None:
    # The page's loads all come from one loopback address: lift the limits per address.
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        daily_prepare_ahead=False,
        address_connections_per_second=1e6,
        address_connection_burst=1_000_000,
        address_guests_per_minute=1e6,
        address_guest_burst=1_000_000,
    )
    load_before = os.getloadavg()[0]
    async with ArenaServer(config, url) as server, async_playwright() as playwright:
        page_url = server.url.replace("ws://", "http://") + "#deal=klondike:1"
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        cold: list[float] = []
        loaded: list[list[float]] = []
        warm: list[float] = []
        sizes: list[list[int]] = []
        for _ in range(runs):
            context = await browser.new_context(viewport={"width": 360, "height": 740})
            await context.add_init_script(SOCKET_TIMES)
            page = await context.new_page()
            await page.goto(page_url)
            cold.append(await playable_ms(page))
            loaded.append(await page.evaluate(LOADED))
            sizes.append(await page.evaluate(BYTES))
            await page.goto("about:blank")
            await page.goto(page_url)
            warm.append(await playable_ms(page))
            await context.close()
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        page = await context.new_page()
        await page.goto(page_url)
        await playable_ms(page)
        taps_split: list[list[float]] = await page.evaluate(TAPS, taps)
        draw_ms, whole_ms = await page.evaluate(DRAW, taps)
        await browser.close()

    load_after = os.getloadavg()[0]
    # Every tap must have been a move answered by a view (no error, no rate limit).
    assert all(split[2] >= 0 for split in taps_split), "a tap got no view in reply"
    # Outside Discord the page never fetches Discord's SDK (activity.js).
    assert all(size[4] == 0 for size in sizes), "the first load fetched Discord's SDK"
    tap_ms = [split[0] for split in taps_split]
    before_ms, server_ms, after_ms = ([split[k] for split in taps_split] for k in (1, 2, 3))
    transferred, compressed, decoded, files, _ = sizes[0]
    sdk = load_files(WEB_ROOT)["/discord-sdk.js"]
    sdk_bytes = len(sdk.gzipped or sdk.body)
    files_in, ready, opened, welcome, view = (
        statistics.median(times[k] for times in loaded) for k in range(5)
    )
    lines = [
        f"machine: {os.cpu_count()} cores, load average {load_before:.1f} before and "
        f"{load_after:.1f} after (1 minute)",
        f"first load: {files} files, {transferred} bytes transferred (headers included), "
        f"{compressed} bytes of compressed bodies, {decoded} bytes uncompressed",
        f"  not in it (inside Discord only, after the board): Discord's SDK, "
        f"{sdk_bytes} bytes compressed",
        f"time to a playable board, cold cache: median {statistics.median(cold):.0f} ms, "
        f"max {max(cold):.0f} ms over {runs} runs",
        f"  of which (medians): modules in at {files_in:.0f} ms, DOM ready at {ready:.0f} ms, "
        f"the WebSocket open at {opened:.0f} ms, the welcome (a new guest) in at "
        f"{welcome:.0f} ms, the first view in at {view:.0f} ms",
        f"time to a playable board, browser cache: median {statistics.median(warm):.0f} ms, "
        f"max {max(warm):.0f} ms",
        f"tap on the stock to redrawn board: p50 {percentile(tap_ms, 0.5):.1f} ms, "
        f"p99 {percentile(tap_ms, 0.99):.1f} ms over {taps} draws",
        f"  the page until the move is sent: p50 {percentile(before_ms, 0.5):.2f} ms, "
        f"p99 {percentile(before_ms, 0.99):.2f} ms",
        f"  the server's round trip (sent to reply in): p50 {percentile(server_ms, 0.5):.1f} ms, "
        f"p99 {percentile(server_ms, 0.99):.1f} ms",
        f"  the page from the reply to the redrawn board: p50 {percentile(after_ms, 0.5):.2f} ms, "
        f"p99 {percentile(after_ms, 0.99):.2f} ms",
        f"  the page's drawing of the board after a draw, alone: p50 "
        f"{percentile(draw_ms, 0.5):.2f} ms, p99 {percentile(draw_ms, 0.99):.2f} ms",
        f"  the page's drawing of a whole board anew, alone: p50 "
        f"{percentile(whole_ms, 0.5):.2f} ms, p99 {percentile(whole_ms, 0.99):.2f} ms",
    ]
    print("\n".join(lines))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default=LOCAL_SERVER_URL)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--taps", type=int, default=300)
    args = parser.parse_args()
    async with temporary_database(args.admin_url, prefix="solitaire_bench_web") as url:
        await measure(url, args.runs, args.taps)


if __name__ == "__main__":
    asyncio.run(main())
