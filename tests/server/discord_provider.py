"""A small OAuth2 provider on loopback that answers as Discord's does, for sign-in tests.

Discord cannot be reached from the tests, so the server's Discord addresses (settings)
point here: ``/authorize`` (the page where a user agrees; here the user the test chose
agrees at once, or refuses), ``/token`` (a one-time code exchanged, with the client's
id and secret, for an access token) and ``/users/@me`` (who the token belongs to). It
checks what Discord checks: the client's id and secret, the grant type, a code used
once, the same ``redirect_uri`` as at the authorization, the ``identify`` scope, the
bearer token. A real HTTP server (the standard library's) in a thread of its own.
"""

from __future__ import annotations

import json
import secrets
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CLIENT_ID = "1234567890"
CLIENT_SECRET = "test-client-secret"


@dataclass
class DiscordAccount:
    """A Discord user the provider knows."""

    user_id: str
    username: str
    global_name: str | None = None


@dataclass
class Provider:
    """The provider's state: who agrees next, the codes and tokens it gave out."""

    url: str = ""
    agreeing: DiscordAccount | None = None  # None: the user refuses
    codes: dict[str, tuple[DiscordAccount, str | None]] = field(default_factory=dict)
    tokens: dict[str, DiscordAccount] = field(default_factory=dict)
    exchanges: int = 0

    def issue_code(self, account: DiscordAccount, redirect_uri: str | None = None) -> str:
        """A code as the embedded app SDK's ``authorize`` hands an Activity one."""
        code = secrets.token_urlsafe(12)
        self.codes[code] = (account, redirect_uri)
        return code


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet in tests
            pass

        def _answer(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            fields = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
            if path == "/authorize":
                self._authorize(fields)
            elif path == "/users/@me":
                token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                account = provider.tokens.get(token)
                if account is None:
                    self._answer(401, {"message": "401: Unauthorized", "code": 0})
                    return
                self._answer(
                    200,
                    {
                        "id": account.user_id,
                        "username": account.username,
                        "global_name": account.global_name,
                        "discriminator": "0",
                        "avatar": None,
                    },
                )
            else:
                self._answer(404, {"message": "404: Not Found"})

        def _authorize(self, fields: dict[str, str]) -> None:
            redirect_uri = fields.get("redirect_uri", "")
            if (
                fields.get("client_id") != CLIENT_ID
                or fields.get("response_type") != "code"
                or "identify" not in fields.get("scope", "").split()
                or not redirect_uri
            ):
                self._answer(400, {"error": "invalid_request"})
                return
            back = {"state": fields.get("state", "")}
            if provider.agreeing is None:
                back["error"] = "access_denied"
            else:
                back["code"] = provider.issue_code(provider.agreeing, redirect_uri)
            self._answer(302, {}, {"Location": redirect_uri + "?" + urllib.parse.urlencode(back)})

        def do_POST(self) -> None:
            if self.path != "/token":
                self._answer(404, {"message": "404: Not Found"})
                return
            length = int(self.headers.get("Content-Length", "0"))
            form = {
                k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(length).decode()).items()
            }
            provider.exchanges += 1
            if (form.get("client_id"), form.get("client_secret")) != (CLIENT_ID, CLIENT_SECRET):
                self._answer(401, {"error": "invalid_client"})
                return
            issued = provider.codes.pop(form.get("code", ""), None)
            if form.get("grant_type") != "authorization_code" or issued is None:
                self._answer(400, {"error": "invalid_grant"})
                return
            account, redirect_uri = issued
            if form.get("redirect_uri") != redirect_uri:
                self._answer(400, {"error": "invalid_grant", "error_description": "redirect_uri"})
                return
            token = secrets.token_urlsafe(16)
            provider.tokens[token] = account
            self._answer(
                200,
                {
                    "access_token": token,
                    "token_type": "Bearer",
                    "expires_in": 604800,
                    "refresh_token": secrets.token_urlsafe(16),
                    "scope": "identify",
                },
            )

    return Handler


def discord_settings(provider: Provider, port: int) -> dict[str, str]:
    """The server's Discord settings for a server on ``port`` signing in at ``provider``."""
    return {
        "discord_client_id": CLIENT_ID,
        "discord_client_secret": CLIENT_SECRET,
        "discord_redirect_uri": f"http://127.0.0.1:{port}/auth/discord/callback",
        "discord_authorize_url": provider.url + "/authorize",
        "discord_token_url": provider.url + "/token",
        "discord_user_url": provider.url + "/users/@me",
    }


@contextmanager
def discord_provider() -> Iterator[Provider]:
    """The provider, listening on an ephemeral loopback port until the block ends."""
    provider = Provider()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(provider))
    provider.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="discord-provider", daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
