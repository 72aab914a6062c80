"""Sign in with Discord: the redirect flow and /api/token against a provider on loopback,
one player with the Discord bot's, and a guest's games kept."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from collections.abc import Iterator
from http.client import HTTPConnection
from typing import Any

import pytest
from arena_client import SERVICE_TOKEN
from discord_provider import (
    CLIENT_ID,
    CLIENT_SECRET,
    DiscordAccount,
    Provider,
    discord_provider,
    discord_settings,
)
from server_process import free_port

from server.core.identity import TokenSigner
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

ANN = DiscordAccount("80351110224678912", "ann", "Ann D.")


@pytest.fixture
def provider() -> Iterator[Provider]:
    with discord_provider() as running:
        yield running


@pytest.fixture
def server_config(provider: Provider) -> ServerConfig:
    port = free_port()
    return ServerConfig(
        host="127.0.0.1",
        port=port,
        service_tokens=(SERVICE_TOKEN,),
        rate_per_second=1000,
        rate_burst=1000,
        daily_prepare_ahead=False,
        **discord_settings(provider, port),
    )


def _http(
    method: str, url: str, body: bytes | None, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    parts = urllib.parse.urlsplit(url)
    connection = HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


async def http(
    method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request, off the event loop the server runs on; no redirect followed."""
    return await asyncio.to_thread(_http, method, url, body, headers or {})


def base(server: ArenaServer) -> str:
    return f"http://127.0.0.1:{server.port}"


async def start_sign_in(server: ArenaServer, guest_token: str | None) -> tuple[str, str]:
    """The page's form POST: Discord's address to go to, and the cookie that came with it."""
    form = urllib.parse.urlencode({"guest": guest_token} if guest_token else {}).encode()
    status, headers, _ = await http(
        "POST",
        base(server) + "/auth/discord/login",
        form,
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 303
    assert headers["Set-Cookie"].startswith("solitaire_sign_in=")
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Lax" in headers["Set-Cookie"]
    return headers["Location"], headers["Set-Cookie"].split(";")[0]


async def sign_in_by_redirect(server: ArenaServer, guest_token: str | None) -> str:
    """The whole redirect flow as a browser goes through it; the page's address at the end."""
    authorize, cookie = await start_sign_in(server, guest_token)
    asked = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorize).query))
    assert asked["scope"] == "identify" and asked["client_id"] == CLIENT_ID
    assert CLIENT_SECRET not in authorize
    status, headers, _ = await http("GET", authorize)  # Discord's page; the user agrees
    assert status == 302
    status, headers, _ = await http("GET", headers["Location"], headers={"Cookie": cookie})
    assert status == 303
    return headers["Location"]


async def test_a_guest_signs_in_and_is_the_discord_bots_player_with_its_games(
    connect: Any, server: ArenaServer, provider: Provider
) -> None:
    guest = await connect(name="Ann")
    assert guest.welcome["sign_in"] == ["discord"]
    created = await guest.ok(
        "create_race", variant="klondike", max_players=1, start="now", require_winnable=False
    )
    race = created["race"]["race"]
    await guest.ok("resign", game=created["race"]["your_game"])  # a finished race
    in_play = (await guest.ok("practice", variant="yukon", seed=5))["game"]
    provider.agreeing = ANN

    landed = await sign_in_by_redirect(server, guest.welcome["token"])
    assert landed.startswith("/#signed_in=s1.")
    session = landed.removeprefix("/#signed_in=")
    signed = await connect(token=session)
    player = signed.welcome["player"]
    assert player["user"] == "discord:80351110224678912" and player["name"] == "Ann D."
    assert "sign_in" not in signed.welcome
    assert signed.welcome["token"].startswith("s1.")  # renewed

    history = await signed.ok("race_history")
    assert [line["race"] for line in history["races"]] == [race]
    bot = await connect(service_token=SERVICE_TOKEN)
    act_as = {"user": "discord:80351110224678912", "name": "Ann"}
    by_bot = await bot.ok("race_history", act_as=act_as)
    assert by_bot["player"] == player["id"]
    assert [line["race"] for line in by_bot["races"]] == [race]

    # The guest is gone: its token opens nothing, and its game in play stayed its own.
    await (await connect()).error("hello", "bad_token", token=guest.welcome["token"])
    await signed.error("get_view", "forbidden", game=in_play)

    # Signing in again (another browser of Ann's) finds the same player.
    again = await sign_in_by_redirect(server, None)
    second = await connect(token=again.removeprefix("/#signed_in="))
    assert second.welcome["player"]["id"] == player["id"]


async def test_the_bots_player_signs_in_as_itself(
    connect: Any, server: ArenaServer, provider: Provider
) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    act_as = {"user": "discord:80351110224678912", "name": "Ann"}
    game = (await bot.ok("practice", variant="klondike", seed=2, act_as=act_as))["game"]
    await bot.ok("move", game=game, text="d", act_as=act_as)
    provider.agreeing = ANN
    landed = await sign_in_by_redirect(server, None)
    signed = await connect(token=landed.removeprefix("/#signed_in="))
    view = await signed.ok("get_view", game=game)  # the bot's game is the browser's too
    assert view["view"]["counters"]["moves"] == 1
    await signed.ok("move", game=game, text="d")
    after = await bot.ok("get_view", game=game, act_as=act_as)
    assert after["view"]["counters"]["moves"] == 2


async def test_a_refused_forged_or_foreign_sign_in_signs_nobody_in(
    connect: Any, server: ArenaServer, provider: Provider
) -> None:
    provider.agreeing = None  # the user says no at Discord
    assert await sign_in_by_redirect(server, None) == "/#sign_in_error=denied"

    provider.agreeing = ANN
    authorize, cookie = await start_sign_in(server, None)
    _, headers, _ = await http("GET", authorize)
    callback = headers["Location"]
    # Without this browser's cookie (a callback another site started): nobody signs in.
    status, headers, _ = await http("GET", callback)
    assert (status, headers["Location"]) == (303, "/#sign_in_error=expired")
    status, headers, _ = await http("GET", callback, headers={"Cookie": "solitaire_sign_in=x"})
    assert headers["Location"] == "/#sign_in_error=expired"
    # A state this server did not sign.
    forged = callback.replace("state=", "state=x")
    status, headers, _ = await http("GET", forged, headers={"Cookie": cookie})
    assert headers["Location"] == "/#sign_in_error=expired"
    assert provider.exchanges == 0  # no code was even tried
    # The real one still works once; its code cannot be used twice.
    status, headers, _ = await http("GET", callback, headers={"Cookie": cookie})
    assert headers["Location"].startswith("/#signed_in=")
    status, headers, _ = await http("GET", callback, headers={"Cookie": cookie})
    assert headers["Location"] == "/#sign_in_error=failed"


async def test_api_token_exchanges_an_activitys_code(
    connect: Any, server: ArenaServer, provider: Provider
) -> None:
    guest = await connect(name="Ann")
    game = (await guest.ok("practice", variant="klondike", seed=7))["game"]
    await guest.ok("resign", game=game)
    code = provider.issue_code(ANN)  # as the SDK's authorize() hands it to the Activity
    body = json.dumps({"code": code, "guest_token": guest.welcome["token"]}).encode()
    headers = {"Content-Type": "application/json"}
    status, answered, data = await http("POST", base(server) + "/api/token", body, headers)
    assert status == 200, data
    assert answered["Content-Type"] == "application/json"
    answer = json.loads(data)
    assert answer["access_token"] in provider.tokens
    assert answer["player"]["user"] == "discord:80351110224678912"
    signed = await connect(token=answer["token"])
    assert signed.welcome["player"]["id"] == answer["player"]["id"]
    assert (await signed.ok("get_view", game=game))["view"]["status"] == "resigned"

    status, _, data = await http("POST", base(server) + "/api/token", body, headers)
    assert (status, json.loads(data)["error"]) == (401, "sign_in_failed")  # a used code
    status, _, data = await http("POST", base(server) + "/api/token", b"{no", headers)
    assert (status, json.loads(data)["error"]) == (400, "invalid_request")
    status, _, _ = await http("GET", base(server) + "/api/token")
    assert status == 405


async def test_a_server_without_discord_settings_offers_no_sign_in(
    migrated_database_url: str,
) -> None:
    config = ServerConfig(port=0, daily_prepare_ahead=False)
    async with ArenaServer(config, migrated_database_url) as plain:
        for method, path in [
            ("POST", "/auth/discord/login"),
            ("GET", "/auth/discord/callback?code=x&state=y"),
            ("POST", "/api/token"),
        ]:
            body = b'{"code": "x"}' if method == "POST" else None
            status, _, _ = await http(method, base(plain) + path, body)
            assert status == 404
        status, _, page = await http("GET", base(plain) + "/")
        assert status == 200 and b"<html" in page


def test_session_tokens_end_and_cannot_be_forged() -> None:
    signer = TokenSigner(b"k" * 32)
    token = signer.sign_session(7, expires_s=2_000)
    assert signer.verify_session(token, now_s=1_999) == 7
    for bad in [
        token.replace("s1.7.", "s1.8."),
        token.replace(".2000.", ".9000."),
        signer.sign(7),
        TokenSigner(b"x" * 32).sign_session(7, 2_000),
    ]:
        with pytest.raises(Exception, match="token"):
            signer.verify_session(bad, now_s=1_000)
    with pytest.raises(Exception, match="token"):
        signer.verify_session(token, now_s=2_000)
