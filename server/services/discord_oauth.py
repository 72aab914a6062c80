"""Discord's side of signing in: a code exchanged for an access token, and the user it is.

The OAuth2 authorization-code flow (docs/operations.md, "Sign in with Discord"): Discord
hands the browser (or an Activity) a one-time ``code``; this server, which alone holds
the application's secret, exchanges it at the token address for an access token
(``grant_type=authorization_code``), and asks the user address (``/users/@me``, scope
``identify``) who that token belongs to. The three addresses are settings, so tests run a
provider of their own on loopback.

The calls go through ``urllib`` in a worker thread (``asyncio.to_thread``) rather than an
asyncio HTTP client: the standard library's HTTPS checks the certificate and the host
name, follows the protocol's details (chunked answers, keep-alive, proxies from the
environment) and adds no dependency, while a sign-in is rare enough that a thread for
each of its two calls costs nothing that matters. Each call has a time limit.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

# A Discord user id: a snowflake, at most 20 digits.
USER_ID = re.compile(r"^[0-9]{1,20}$")


class SignInError(Exception):
    """Discord did not let the user in: ``reason`` says why, for the log and the page."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class DiscordUser:
    """Who a Discord access token belongs to: the user id and the name to show."""

    user_id: str
    name: str

    @property
    def principal(self) -> str:
        """The principal the Discord bot acts for this user as: ``discord:<id>``."""
        return f"discord:{self.user_id}"


@dataclass(frozen=True, slots=True)
class DiscordApplication:
    """The OAuth2 application this server signs players in with, and Discord's addresses."""

    client_id: str
    client_secret: str
    token_url: str
    user_url: str
    timeout: float = 10.0

    async def exchange(self, code: str, redirect_uri: str | None) -> str:
        """The access token for an authorization ``code``.

        ``redirect_uri`` must be the one the authorization was asked with (the browser's
        redirect flow); an Activity's code was asked without one.

        Raises:
            SignInError: Discord refused the code, or could not be reached.
        """
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
        }
        if redirect_uri is not None:
            form["redirect_uri"] = redirect_uri
        body = urllib.parse.urlencode(form).encode()
        request = urllib.request.Request(
            self.token_url,
            data=body,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            method="POST",
        )
        answer = await asyncio.to_thread(self._call, request)
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise SignInError("the token answer holds no access token")
        return token

    async def user(self, access_token: str) -> DiscordUser:
        """The user an access token belongs to.

        Raises:
            SignInError: Discord refused the token, or answered something unexpected.
        """
        request = urllib.request.Request(
            self.user_url,
            headers={"Authorization": f"Bearer {access_token}", "Accept": "application/json"},
        )
        answer = await asyncio.to_thread(self._call, request)
        user_id = answer.get("id")
        if not isinstance(user_id, str) or not USER_ID.match(user_id):
            raise SignInError("the user answer holds no Discord user id")
        name = answer.get("global_name") or answer.get("username")
        return DiscordUser(user_id, name if isinstance(name, str) else f"discord:{user_id}")

    def _call(self, request: urllib.request.Request) -> dict[str, Any]:
        """One HTTPS call, its JSON object answer (runs in a worker thread)."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data = response.read(65536)
        except urllib.error.HTTPError as error:
            raise SignInError(f"Discord answered {error.code}") from None
        except (urllib.error.URLError, OSError) as error:
            raise SignInError(f"Discord could not be reached: {error}") from None
        try:
            answer = json.loads(data)
        except ValueError:
            raise SignInError("Discord's answer is not JSON") from None
        if not isinstance(answer, dict):
            raise SignInError("Discord's answer is not a JSON object")
        return answer
