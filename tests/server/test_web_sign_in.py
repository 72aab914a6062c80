"""The page signs in with Discord: a guest's line offers it, the server does the exchange
(against a provider on loopback), and the page comes back signed in as the Discord player."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from arena_client import SERVICE_TOKEN, Connect
from discord_provider import DiscordAccount, Provider, discord_provider, discord_settings
from playwright.async_api import Browser, Page
from server_process import free_port
from web_browser import PHONE, browser, open_page, page_url

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

ANN = DiscordAccount("80351110224678912", "ann", "Ann D.")


@pytest.fixture
def provider() -> Iterator[Provider]:
    with discord_provider() as running:
        yield running


@pytest.fixture
def server_config(provider: Provider) -> ServerConfig:
    port = free_port()
    return ServerConfig(
        port=port,
        service_tokens=(SERVICE_TOKEN,),
        rate_per_second=1000,
        rate_burst=1000,
        daily_prepare_ahead=False,
        **discord_settings(provider, port),
    )


async def shot(page: Page, name: str) -> None:
    """A screenshot into SOLITAIRE_WEB_SCREENSHOTS (a folder), when it is set."""
    folder = os.environ.get("SOLITAIRE_WEB_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        await page.screenshot(path=os.path.join(folder, f"{name}.png"))


async def test_a_guest_signs_in_with_discord_and_comes_back_signed_in(
    browser: Browser, server: ArenaServer, provider: Provider, connect: Connect
) -> None:
    page = await open_page(browser, page_url(server.url, "#races"), PHONE)
    line = "#account[data-account=guest]"
    await page.wait_for_selector(line)
    assert "not ranked" in await page.inner_text("#account")
    assert await page.inner_text(f"{line} button") == "Sign in with Discord to rank"
    guest_token = await page.evaluate("localStorage.getItem('solitaire.token')")
    await shot(page, "sign-in-guest")

    provider.agreeing = ANN
    await page.click(f"{line} button")
    await page.wait_for_selector("#account[data-account=discord]")
    assert await page.inner_text("#account span") == "Signed in with Discord: Ann D."
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    assert token.startswith("s1.") and token != guest_token
    assert await page.evaluate("location.hash") == ""  # the token left the address
    await page.wait_for_function("() => document.querySelector('#profile [name=name]').value")
    assert await page.input_value("#profile [name=name]") == "Ann D."
    await shot(page, "sign-in-discord")

    # The bot's player for that Discord user is the page's player.
    bot = await connect(service_token=SERVICE_TOKEN)
    act_as = {"user": "discord:80351110224678912"}
    stats = await bot.ok("player_stats", act_as=act_as)
    assert stats["name"] == "Ann D."

    await page.click("#account button")  # sign out: a new guest
    await page.wait_for_selector(line)
    assert not page.errors  # type: ignore[attr-defined]


async def test_a_refused_sign_in_is_said_and_the_guest_plays_on(
    browser: Browser, server: ArenaServer, provider: Provider
) -> None:
    page = await open_page(browser, page_url(server.url, "#races"), PHONE, locale="de-DE")
    await page.wait_for_selector("#account[data-account=guest]")
    provider.agreeing = None
    await page.click("#account button")
    await page.wait_for_selector("#account [role=alert]")
    assert await page.inner_text("#account [role=alert]") == "Anmeldung abgebrochen."
    assert await page.inner_text("#account button") == "Für Wertung mit Discord anmelden"
    await shot(page, "sign-in-refused-de")
    assert not page.errors  # type: ignore[attr-defined]
