"""Who is speaking: signed guest tokens, session tokens, service clients and the
principals they act for.

A guest's token is ``<player id>.<HMAC-SHA256 of it>`` under a server secret kept
in the database, so every server process sharing the database accepts it and it
survives restarts. A player signed in with Discord (in the browser, or later an
Activity) holds a session token instead, ``s1.<player id>.<expiry>.<HMAC>``: the same
secret, another message, and an end, since it stands for an account that can rank.
A service client (the Discord bot) proves itself with a token from configuration and
then acts for ``discord:<user id>`` principals; nobody else may name a principal other
than themselves. The player a Discord user is in the bot (``discord:<id>``) is the
player that user is when signed in anywhere else: one row, one history.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Final

from server.protocol.envelope import UnrankedReason
from server.protocol.errors import IdentityError, forbidden

DISCORD_USER = re.compile(r"^discord:[0-9]{1,20}$")
SESSION = "s1"  # the first part of a session token, so that it is never read as a guest's


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
        return self._mac(f"player:{player_id}")

    def _mac(self, message: str) -> str:
        digest = hmac.new(self._secret, message.encode(), hashlib.sha256).digest()
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

    def sign_session(self, player_id: int, expires_s: int) -> str:
        """The session token of a signed-in player, good until ``expires_s`` (Unix time)."""
        body = f"{SESSION}.{player_id}.{expires_s}"
        return f"{body}.{self._mac('session:' + body)}"

    def verify_session(self, token: str, now_s: float) -> int:
        """The player id a session token stands for, while it has not expired.

        Raises:
            IdentityError: ``bad_token`` when malformed, forged or expired.
        """
        parts = token.split(".")
        if len(parts) != 4 or parts[0] != SESSION:
            raise IdentityError("bad_token")
        head, player, expires, signature = parts
        readable = player.isdigit() and len(player) <= 18
        if not (readable and expires.isdigit() and len(expires) <= 12):
            raise IdentityError("bad_token")
        body = f"{head}.{player}.{expires}"
        if not hmac.compare_digest(signature, self._mac("session:" + body)):
            raise IdentityError("bad_token")
        if int(expires) <= now_s:
            raise IdentityError("bad_token")
        return int(player)

    def seal(self, purpose: str, text: str) -> str:
        """``text`` with a signature for ``purpose`` (the sign-in's state): whoever gets
        it back can trust that this server wrote it, for that purpose alone."""
        return f"{text}.{self._mac(purpose + ':' + text)}"

    def unseal(self, purpose: str, sealed: str) -> str:
        """The text ``seal`` signed for ``purpose``.

        Raises:
            IdentityError: ``bad_token`` when the signature is wrong.
        """
        text, _, signature = sealed.rpartition(".")
        if not text or not hmac.compare_digest(signature, self._mac(purpose + ":" + text)):
            raise IdentityError("bad_token")
        return text


def is_session_token(token: str) -> bool:
    """Whether ``token`` is a signed-in player's (else it is a guest's, or nothing)."""
    return token.startswith(SESSION + ".")


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


# Why a player's results rank nowhere: what replies and stored results say (``held``).
UNRANKED_GUEST: Final = "guest"  # a guest's: sign in to rank


def unranked_reason(user: str, guests_rank: bool = False) -> UnrankedReason | None:
    """Why the results of the player ``user`` (their principal) may not rank, or None
    when they may: the one rule of who ranks, for every result that could (races, daily
    attempts) and everything derived from results (ratings).

    Ranking needs an identity that costs something: a Discord user, in the bot
    (``discord:<id>``) or signed in from the browser (the same player). A guest costs one
    ``hello``, so a guest ranks nowhere (``guest``), unless the operator lets guests rank
    on a private server (``guests_rank``, docs/operations.md).
    """
    if user.startswith("discord:"):
        return None
    if guests_rank and user.startswith("guest:"):
        return None
    return UNRANKED_GUEST


def clean_name(name: str | None, fallback: str) -> str:
    """A display name: printable, trimmed, at most 32 characters."""
    text = "".join(ch for ch in (name or "") if ch.isprintable()).strip()[:32]
    return text or fallback
