"""Who is speaking: signed guest tokens, service clients and the principals they act for.

A guest's token is ``<player id>.<HMAC-SHA256 of it>`` under a server secret kept
in the database, so every server process sharing the database accepts it and it
survives restarts. A service client (the Discord bot) proves itself with a token
from configuration and then acts for ``discord:<user id>`` principals; nobody
else may name a principal other than themselves.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

from server.protocol.errors import IdentityError, forbidden

DISCORD_USER = re.compile(r"^discord:[0-9]{1,20}$")


@dataclass(frozen=True, slots=True)
class Principal:
    """A player as the server knows them: database id, principal text, name, locale."""

    player_id: int
    user: str
    name: str
    locale: str = "en"


class TokenSigner:
    """Signs and checks guest tokens with one secret."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _signature(self, player_id: int) -> str:
        digest = hmac.new(self._secret, f"player:{player_id}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:24]).decode().rstrip("=")

    def sign(self, player_id: int) -> str:
        """The token that lets a guest come back as ``player_id``."""
        return f"{player_id}.{self._signature(player_id)}"

    def verify(self, token: str) -> int:
        """The player id a token stands for.

        Raises:
            IdentityError: ``bad_token`` when the token is malformed or its signature wrong.
        """
        head, _, signature = token.partition(".")
        if not head.isdigit() or len(head) > 18 or not signature:
            raise IdentityError("bad_token")
        player_id = int(head)
        if not hmac.compare_digest(signature, self._signature(player_id)):
            raise IdentityError("bad_token")
        return player_id


def check_service_token(token: str, configured: tuple[str, ...]) -> None:
    """Accept a service token only if it is one of the configured ones.

    Raises:
        IdentityError: ``bad_service_token``.
    """
    if not any(hmac.compare_digest(token.encode(), known.encode()) for known in configured):
        raise IdentityError("bad_service_token")


def check_discord_user(user: str) -> None:
    """A service client may act only for ``discord:<numeric id>`` principals.

    Raises:
        IdentityError: ``forbidden`` for any other principal text.
    """
    if not DISCORD_USER.match(user):
        raise forbidden(
            f"A service client acts only for discord:<user id> principals, not {user!r}.",
            f"Ein Dienst handelt nur für discord:<Benutzer-ID>, nicht für {user!r}.",
        )


def clean_name(name: str | None, fallback: str) -> str:
    """A display name: printable, trimmed, at most 32 characters."""
    text = "".join(ch for ch in (name or "") if ch.isprintable()).strip()[:32]
    return text or fallback
