"""Sign in with Discord, over plain HTTP on the WebSocket port.

Three routes (docs/operations.md, "Sign in with Discord"; docs/protocol.md, "Signing in"):

- ``/auth/discord/login`` (a page's form POST carrying its guest token, or a plain GET):
  answers ``303`` to Discord's authorization page, scope ``identify``, with a ``state``
  this server signed (a one-time nonce, the guest to bring along, an expiry) and the same
  nonce in a cookie for ``/auth/discord`` only, so that a callback another site starts
  in someone's browser cannot sign them in as someone else (login CSRF).
- ``/auth/discord/callback``: where Discord sends the browser back with a ``code``. The
  server checks the state against its cookie, exchanges the code with the application's
  secret (server/services/discord_oauth.py), finds the user's player (the bot's
  ``discord:<id>`` player), brings the guest's finished games over
  (server/services/accounts.py) and answers ``303`` to ``/#signed_in=<session token>``:
  the page keeps the token and says hello with it. A refusal or failure answers ``303``
  to ``/#sign_in_error=<denied|expired|failed>``.
- ``/api/token`` (POST, JSON ``{"code": …, "guest_token": …}``): the same exchange for a
  page that got the code itself, as a Discord Activity does (``authorize`` in the
  embedded-app SDK, then this route, as Discord's examples do); the answer is JSON with
  Discord's ``access_token`` (for the SDK's ``authenticate``), the player's session
  ``token`` and the ``player``.

The page never sees the application's secret, nor Discord's token in the redirect flow.
A server without the Discord settings answers ``404`` on all three and offers no
sign-in in ``welcome``.
"""

from __future__ import annotations

import json
import secrets
import urllib.parse
from collections.abc import Callable
from email.utils import formatdate
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from typing import Annotated, Final

import msgspec
import structlog
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.core.identity import TokenSigner
from server.ops.config import ServerConfig
from server.protocol.errors import IdentityError
from server.services.accounts import Accounts
from server.services.discord_oauth import DiscordApplication, SignInError

log = structlog.get_logger(__name__)

LOGIN: Final = "/auth/discord/login"
CALLBACK: Final = "/auth/discord/callback"
TOKEN: Final = "/api/token"
ROUTES: Final = frozenset({LOGIN, CALLBACK, TOKEN})
COOKIE: Final = "solitaire_sign_in"
STATE_PURPOSE: Final = "discord-state"
STATE_SECONDS: Final = 600  # how long a started sign-in may take at Discord


class TokenRequest(msgspec.Struct, forbid_unknown_fields=True):
    """``/api/token``'s body: Discord's one-time code and, optionally, the guest to bring."""

    code: Annotated[str, msgspec.Meta(min_length=1, max_length=512)]
    guest_token: Annotated[str, msgspec.Meta(max_length=512)] | None = None


def discord_application(config: ServerConfig) -> DiscordApplication | None:
    """The Discord application of the settings, or None when sign-in is not set up."""
    if not config.discord_client_id or not config.discord_client_secret:
        return None
    return DiscordApplication(
        config.discord_client_id,
        config.discord_client_secret,
        config.discord_token_url,
        config.discord_user_url,
    )


class SignInRoutes:
    """The sign-in's HTTP routes (see the module docstring)."""

    def __init__(
        self,
        config: ServerConfig,
        accounts: Accounts,
        signer: TokenSigner,
        clock: Callable[[], int],
    ) -> None:
        self.config = config
        self.accounts = accounts
        self.signer = signer
        self.clock = clock
        self.application = discord_application(config)

    async def respond(self, connection: ServerConnection, request: Request) -> Response | None:
        """The answer to a sign-in route, or None for any other path."""
        path, _, query = request.path.partition("?")
        if path not in ROUTES:
            return None
        if self.application is None:
            return _text(HTTPStatus.NOT_FOUND, "Sign in with Discord is not set up here.\n")
        body = getattr(connection, "request_body", None)
        if path == TOKEN:
            if request.method != "POST":
                return _json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": "post_only"})
            return await self.token(self.application, body or b"")
        if self.config.discord_redirect_uri is None:
            return _text(HTTPStatus.NOT_FOUND, "Sign-in by redirect is not set up here.\n")
        if path == LOGIN:
            form = body.decode("utf-8", "replace") if request.method == "POST" and body else ""
            return await self.login(self.config.discord_redirect_uri, form)
        redirect_uri = self.config.discord_redirect_uri
        return await self.callback(self.application, redirect_uri, query, request)

    async def login(self, redirect_uri: str, form: str) -> Response:
        """Send the browser to Discord, remembering (signed) which guest asked."""
        token = urllib.parse.parse_qs(form).get("guest", [""])[0]
        guest = await self.accounts.guest_of(self.signer, token) if token else None
        nonce = secrets.token_urlsafe(16)
        expires = self.clock() // 1000 + STATE_SECONDS
        state = self.signer.seal(STATE_PURPOSE, f"{nonce}~{guest or 0}~{expires}")
        assert self.config.discord_authorize_url and self.config.discord_client_id
        target = (
            self.config.discord_authorize_url
            + "?"
            + urllib.parse.urlencode(
                {
                    "response_type": "code",
                    "client_id": self.config.discord_client_id,
                    "scope": "identify",
                    "redirect_uri": redirect_uri,
                    "state": state,
                }
            )
        )
        response = _redirect(target)
        secure = "; Secure" if redirect_uri.startswith("https:") else ""
        response.headers["Set-Cookie"] = (
            f"{COOKIE}={nonce}; Path=/auth/discord; Max-Age={STATE_SECONDS}; HttpOnly; "
            f"SameSite=Lax{secure}"
        )
        return response

    async def callback(
        self, application: DiscordApplication, redirect_uri: str, query: str, request: Request
    ) -> Response:
        """Discord sent the browser back: check, exchange, sign in, hand the page its token."""
        fields = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
        guest = self._guest_of_state(fields.get("state", ""), request)
        if guest is None:
            return self._back("expired")
        if "code" not in fields:
            log.info("sign_in_refused", error=fields.get("error"))
            return self._back("denied")
        try:
            access_token = await application.exchange(fields["code"], redirect_uri)
            user = await application.user(access_token)
        except SignInError as error:
            log.warning("sign_in_failed", reason=error.reason)
            return self._back("failed")
        player = await self.accounts.sign_in(user, guest or None)
        session = self.accounts.session_token(self.signer, player.player_id)
        response = _redirect(f"/#signed_in={session}")
        response.headers["Set-Cookie"] = f"{COOKIE}=; Path=/auth/discord; Max-Age=0"
        return response

    def _guest_of_state(self, state: str, request: Request) -> int | None:
        """The guest a state names (0: none), if this server signed it, it has not
        expired and it is this browser's (its nonce is the cookie's); else None."""
        try:
            nonce, guest, expires = self.signer.unseal(STATE_PURPOSE, state).split("~")
        except (IdentityError, ValueError):
            return None
        if int(expires) <= self.clock() // 1000 or not secrets.compare_digest(
            nonce, _cookie(request, COOKIE)
        ):
            return None
        return int(guest)

    def _back(self, reason: str) -> Response:
        response = _redirect(f"/#sign_in_error={reason}")
        response.headers["Set-Cookie"] = f"{COOKIE}=; Path=/auth/discord; Max-Age=0"
        return response

    async def token(self, application: DiscordApplication, body: bytes) -> Response:
        """``/api/token``: exchange a code for Discord's access token and a session token."""
        try:
            asked = msgspec.json.decode(body, type=TokenRequest)
        except msgspec.DecodeError as error:
            return _json(HTTPStatus.BAD_REQUEST, {"error": "invalid_request", "reason": str(error)})
        guest = None
        if asked.guest_token:
            guest = await self.accounts.guest_of(self.signer, asked.guest_token)
        try:
            access_token = await application.exchange(asked.code, None)
            user = await application.user(access_token)
        except SignInError as error:
            log.warning("sign_in_failed", reason=error.reason, route=TOKEN)
            failed = {"error": "sign_in_failed", "reason": error.reason}
            return _json(HTTPStatus.UNAUTHORIZED, failed)
        player = await self.accounts.sign_in(user, guest)
        return _json(
            HTTPStatus.OK,
            {
                "access_token": access_token,
                "token": self.accounts.session_token(self.signer, player.player_id),
                "player": {"id": player.player_id, "name": player.name, "user": player.user},
            },
        )


def _cookie(request: Request, name: str) -> str:
    """The value of cookie ``name`` in the request, or empty."""
    jar: SimpleCookie = SimpleCookie()
    for header in request.headers.get_all("Cookie"):
        try:
            jar.load(header)
        except CookieError:
            continue
    morsel = jar.get(name)
    return morsel.value if morsel is not None else ""


def _headers() -> Headers:
    headers = Headers()
    headers["Date"] = formatdate(usegmt=True)
    headers["Cache-Control"] = "no-store"
    return headers


def _redirect(location: str) -> Response:
    headers = _headers()
    headers["Location"] = location
    headers["Content-Length"] = "0"
    return Response(HTTPStatus.SEE_OTHER, HTTPStatus.SEE_OTHER.phrase, headers, b"")


def _text(status: HTTPStatus, text: str) -> Response:
    body = text.encode()
    headers = _headers()
    headers["Content-Type"] = "text/plain; charset=utf-8"
    headers["Content-Length"] = str(len(body))
    return Response(status, status.phrase, headers, body)


def _json(status: HTTPStatus, value: object) -> Response:
    body = json.dumps(value).encode()
    headers = _headers()
    headers["Content-Type"] = "application/json"
    headers["Content-Length"] = str(len(body))
    return Response(status, status.phrase, headers, body)
