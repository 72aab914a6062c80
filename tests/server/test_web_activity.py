"""The page as a Discord Activity, inside a fake Discord client.

Discord serves an Activity at https://<application id>.discordsays.com/ in an iframe of
its client and talks to it by postMessage through its SDK. Here the client is an outer
page that answers the SDK's handshake (READY) and its AUTHORIZE and AUTHENTICATE
commands as Discord does, and chromium resolves *.discordsays.com to this machine, so
the page runs at the address and with the query Discord gives it, against a real
server.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from arena_client import SERVICE_TOKEN, Client, Connect
from discord_provider import CLIENT_ID, DiscordAccount, Provider, discord_provider, discord_settings
from playwright.async_api import Browser, Frame, Page, Request, Route, async_playwright
from server_process import free_port
from test_web_practice import moves_shown
from web_browser import CHROMIUM, DESKTOP, board_ready, browser, open_page, page_url, snapshot
from websockets.asyncio.client import connect as ws_connect

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer
from server.transport.static import WEB_ROOT

__all__ = ["browser"]  # the fixture, imported for pytest

APPLICATION = "1180000000000000123"
INSTANCE = "i-1180000000000000777-gc-4242-5151"
CLIENT = "http://localhost:3333/"
ANN = DiscordAccount("80351110224678912", "ann", "Ann D.")

# The fake Discord client: the Activity in an iframe, and Discord's side of the SDK's
# RPC (opcodes 0 handshake, 1 frame). Every message is kept in window.discord.
FAKE_CLIENT = """<!doctype html><title>Discord</title>
<iframe id="activity" src="%(src)s" style="width:1200px;height:760px;border:0"></iframe>
<script>
window.discord = [];
window.code = "%(code)s";  // what AUTHORIZE answers: a code of the provider's, in tests
const frame = () => document.getElementById("activity").contentWindow;
const send = (payload) => frame().postMessage([1, payload], "*");
window.addEventListener("message", (event) => {
  const [opcode, data] = event.data;
  window.discord.push({ opcode, data });
  if (opcode === 0) {
    send({ cmd: "DISPATCH", evt: "READY", nonce: null, data: { v: 1,
      config: { api_endpoint: "//discord.com/api", environment: "production" },
      user: { id: "80351110224678912", username: "ann", discriminator: "0" } } });
  } else if (opcode === 1 && data.cmd === "AUTHORIZE") {
    send({ cmd: "AUTHORIZE", evt: null, nonce: data.nonce, data: { code: window.code } });
  } else if (opcode === 1 && data.cmd === "AUTHENTICATE") {
    send({ cmd: "AUTHENTICATE", evt: null, nonce: data.nonce, data: {
      access_token: data.args.access_token, scopes: ["identify"], expires: "2099-01-01T00:00:00Z",
      user: { id: "80351110224678912", username: "ann", discriminator: "0", public_flags: 0 },
      application: { id: "%(application)s", name: "Solitaire Arena", description: "" } } });
  }
});
</script>"""


@pytest.fixture(scope="module")
async def discord_browser() -> AsyncIterator[Browser]:
    """A chromium for which <application id>.discordsays.com is this machine. Discord's
    client and its Activities are public sites; here both are served by this machine
    under names chromium sorts apart (localhost is local, a discordsays.com name public),
    so its check against public pages framing local ones is off."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--host-resolver-rules=MAP *.discordsays.com 127.0.0.1",
                "--disable-features=LocalNetworkAccessChecks",
            ],
        )
        yield launched
        await launched.close()


def activity_url(server: ArenaServer, application: str = APPLICATION) -> str:
    """The page's address as Discord opens it: its host, and Discord's query."""
    query = f"frame_id=f-0042&instance_id={INSTANCE}&platform=desktop&guild_id=4242&channel_id=5151"
    return f"http://{application}.discordsays.com:{server.port}/?{query}"


async def in_discord(
    browser: Browser,
    server: ArenaServer,
    opaque: bool = False,
    application: str = APPLICATION,
    code: str = "code-from-discord",
) -> tuple[Page, Frame]:
    """The fake Discord client with the page in its iframe; the page's frame. The client
    is at http://localhost:3333 (an origin the SDK accepts), or with ``opaque`` written
    in place, with no origin of its own ("null", accepted too), where chromium refuses
    the framed page its storage, as a browser blocking third-party storage does.
    ``application`` is the application's id (the page's host), ``code`` what Discord's
    AUTHORIZE hands the page."""
    context = await browser.new_context(viewport={"width": 1240, "height": 800})
    src = activity_url(server, application)
    html = FAKE_CLIENT % {"src": src, "application": application, "code": code}

    async def client(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html", body=html)

    await context.route(CLIENT, client)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    if opaque:
        await page.set_content(html)
    else:
        await page.goto(CLIENT)
    handle = await page.wait_for_selector("#activity")
    frame = await handle.content_frame()
    assert frame is not None
    return page, frame


async def reopen(page: Page, url: str) -> Frame:
    """The client opens the Activity anew at ``url``, in a new iframe."""
    await page.evaluate(
        """url => {
        const old = document.getElementById("activity");
        const frame = document.createElement("iframe");
        frame.style.cssText = old.style.cssText;
        frame.src = url;
        old.replaceWith(frame);
        frame.id = "activity";
    }""",
        url,
    )
    handle = await page.wait_for_selector("#activity")
    frame = await handle.content_frame()
    assert frame is not None
    await frame.wait_for_load_state()
    return frame


async def said_to_discord(page: Page) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = await page.evaluate("window.discord")
    return messages


async def test_the_activity_joins_its_instances_race_as_a_guest(
    discord_browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    created = await bob.ok("activity_race", instance_id=INSTANCE, guild_id="4242")
    race_id = created["race"]["race"]
    page, frame = await in_discord(discord_browser, server)

    # The SDK's handshake, then the sign-in asked of Discord without a prompt.
    await frame.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    said = await said_to_discord(page)
    handshake = next(m["data"] for m in said if m["opcode"] == 0)
    assert handshake["client_id"] == APPLICATION and handshake["frame_id"] == "f-0042"
    authorize = next(
        m["data"] for m in said if m["opcode"] == 1 and m["data"]["cmd"] == "AUTHORIZE"
    )
    assert authorize["args"]["client_id"] == APPLICATION
    assert authorize["args"]["scope"] == ["identify"] and authorize["args"]["prompt"] == "none"
    # This server has no sign-in (POST /api/token): the player is a guest, in the race.
    assert (await frame.evaluate("document.body.dataset.activity")).startswith("guest:")
    assert frame.url.endswith(f"#race={race_id}")
    assert f"frame_id=f-0042&instance_id={INSTANCE}" in frame.url

    await bob.ok("start_race", race=race_id)
    await frame.wait_for_selector("#board .card")
    await frame.click('#board .card.back[data-pile="s"]')
    await frame.wait_for_function(
        "() => document.querySelector('[data-counter=moves]')?.textContent === '1'"
    )
    # The page's own address changes kept Discord's query: loaded again at the address it
    # made (as Discord's reload does), it finds frame_id, the SDK shakes hands anew, and
    # the race goes on where it was.
    frame = await reopen(page, frame.url)
    await frame.wait_for_function(
        "() => document.querySelector('[data-counter=moves]')?.textContent === '1'"
    )
    handshakes = [m for m in await said_to_discord(page) if m["opcode"] == 0]
    assert len(handshakes) == 2
    assert f"frame_id=f-0042&instance_id={INSTANCE}" in frame.url
    await snapshot(page, "activity-desktop")

    # A rematch stays the Activity's race: the next to open the Activity lands in it.
    await bob.ok("resign", game=created["race"]["your_game"])
    await frame.click('[data-action="resign"]')
    await frame.click('[data-action="resign-yes"]')
    await frame.wait_for_selector("table.ranking")
    await frame.click('[data-action="rematch"]')
    await frame.wait_for_function(
        "old => /#race=\\d+$/.test(location.hash) && location.hash !== '#race=' + old", arg=race_id
    )
    rematch = int(frame.url.rsplit("=", 1)[1])
    again = await bob.ok("activity_race", instance_id=INSTANCE)
    assert again["race"]["race"] == rematch
    assert f"frame_id=f-0042&instance_id={INSTANCE}" in frame.url
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.fixture
async def signing_in(
    migrated_database_url: str, server_config: ServerConfig
) -> AsyncIterator[tuple[ArenaServer, Provider]]:
    """A server whose sign-in with Discord (``POST /api/token``) exchanges codes with the
    loopback provider that answers as Discord's OAuth2 does (discord_provider.py)."""
    with discord_provider() as provider:
        port = free_port()
        config = replace(server_config, port=port, **discord_settings(provider, port))
        async with ArenaServer(config, migrated_database_url) as server:
            yield server, provider


async def test_the_sign_in_goes_through_the_servers_exchange(
    discord_browser: Browser, signing_in: tuple[ArenaServer, Provider]
) -> None:
    """Discord's code handed to the server's ``POST /api/token``, which exchanges it
    with the provider: a code Discord does not take leaves a guest; one it gave signs
    the player in as the bot's Discord player, bringing the guest along."""
    server, provider = signing_in
    posted: list[Any] = []

    def keep(request: Request) -> None:
        if request.url.endswith("/api/token"):
            posted.append(json.loads(request.post_data or "null"))

    page, frame = await in_discord(
        discord_browser, server, application=CLIENT_ID, code="never-given-by-discord"
    )
    page.context.on("request", keep)
    await frame.wait_for_function("() => document.querySelectorAll('.standings li').length === 1")
    assert await frame.evaluate("document.body.dataset.activity") == "guest: sign-in refused (401)"
    guest = await frame.evaluate("localStorage.getItem('solitaire.token')")
    assert provider.exchanges == 1

    # Opened again with a code Discord gave for Ann: signed in, the guest brought along.
    code = provider.issue_code(ANN)
    await page.evaluate("code => { window.code = code; }", code)
    frame = await reopen(page, activity_url(server, CLIENT_ID))
    await frame.wait_for_function("() => document.body.dataset.activity === 'signed-in'")
    assert posted[-1] == {"code": code, "guest_token": guest}
    await frame.wait_for_selector(".standings li:has-text('Ann D. (you)')")
    token = await frame.evaluate("localStorage.getItem('solitaire.token')")
    assert token != guest
    # Discord's access token, from the server's exchange, handed to the SDK.
    authenticate = [
        m["data"]
        for m in await said_to_discord(page)
        if m["opcode"] == 1 and m["data"]["cmd"] == "AUTHENTICATE"
    ]
    assert [a["args"]["access_token"] for a in authenticate] == list(provider.tokens)

    # The page's player is the bot's player of that Discord user, in the instance's race.
    bot = Client(await ws_connect(server.url))
    try:
        await bot.ok("hello", service_token=SERVICE_TOKEN)
        act_as = {"user": f"discord:{ANN.user_id}"}
        assert (await bot.ok("player_stats", act_as=act_as))["name"] == "Ann D."
        joined = await bot.ok("activity_race", instance_id=INSTANCE, act_as=act_as)
        assert "Ann D." in [p["name"] for p in joined["race"]["players"]]
    finally:
        await bot.close()

    # The page's tabs and a practice deal keep Discord's query in the address too.
    query = f"?frame_id=f-0042&instance_id={INSTANCE}&"
    for tab, fragment in [("daily", "#daily"), ("online", "#online"), ("practice", "")]:
        await frame.click(f'[data-tab="{tab}"]')
        await frame.wait_for_function("f => location.hash === f", arg=fragment)
        assert query in frame.url, (tab, frame.url)
    await frame.evaluate("() => { location.hash = '#deal=yukon:5'; }")
    await frame.wait_for_selector("#board .card")
    await frame.wait_for_function("() => location.hash === ''")  # taken in, as outside
    assert query in frame.url
    assert page.errors == []  # type: ignore[attr-defined]


async def test_without_storage_the_activity_still_plays(
    discord_browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    """Discord in a browser that blocks third-party storage: the framed page may not use
    localStorage; it keeps what it needs in memory and plays the same."""
    page, frame = await in_discord(discord_browser, server, opaque=True)
    await frame.wait_for_function("() => document.querySelectorAll('.standings li').length === 1")
    assert (
        await frame.evaluate(
            "() => { try { localStorage.length; return 'usable'; } catch { return 'refused'; } }"
        )
        == "refused"
    )
    eve = await connect(name="Eve")
    joined = await eve.ok("activity_race", instance_id=INSTANCE)
    assert len(joined["race"]["players"]) == 2
    await frame.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    await frame.click('[data-action="start"]')
    await frame.wait_for_selector("#board .card")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_outside_discord_the_sdk_is_never_loaded(
    browser: Browser, server: ArenaServer
) -> None:
    page = await open_page(browser, page_url(server.url, "#deal=klondike:1"), DESKTOP)
    loaded: list[str] = []
    page.on("request", lambda request: loaded.append(request.url))
    await page.reload()
    await board_ready(page)
    await moves_shown(page, 0)
    assert not [url for url in loaded if "discord-sdk" in url]
    assert await page.evaluate("document.body.dataset.activity") == ""
    assert (WEB_ROOT / "discord-sdk.js").stat().st_size > 100_000  # served, but not here


def test_the_bundle_is_the_locked_sdk() -> None:
    """The committed bundle names the SDK and esbuild versions package-lock.json holds
    (`make activity-sdk` writes both): a version changed without a rebuild fails here."""
    root = WEB_ROOT.parents[1] / "activity"
    lock = json.loads((root / "package-lock.json").read_text())["packages"]
    head = (WEB_ROOT / "discord-sdk.js").read_text().splitlines()[:3]
    sdk = lock["node_modules/@discord/embedded-app-sdk"]["version"]
    esbuild = lock["node_modules/esbuild"]["version"]
    assert head[0].startswith(f"// Discord's embedded app SDK {sdk},")
    assert f"with esbuild {esbuild} from activity/package-lock.json" in head[1]
    package = json.loads((root / "package.json").read_text())["devDependencies"]
    assert package == {"@discord/embedded-app-sdk": sdk, "esbuild": esbuild}
