"""Accounts: who a token stands for, and one player per Discord user on every client.

A guest's token (``hello`` without sign-in) names a guest; a session token names a
player signed in with Discord, the same player the Discord bot acts for as
``discord:<id>``. Signing in (server/transport/sign_in.py) finds or makes that player and
brings the guest's finished games along (server/store/accounts.py says which), so a
guest who signs in keeps what it played; its old token is refused from then on.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from server.core.identity import Principal, TokenSigner, clean_name, is_session_token
from server.protocol.errors import IdentityError
from server.services.derived import rebuild_derived
from server.services.discord_oauth import DiscordUser
from server.services.games import GameCache
from server.store.accounts import AccountStore
from server.store.storage import Storage

log = structlog.get_logger(__name__)


class Accounts:
    """Players as their tokens find them, and Discord sign-ins."""

    def __init__(
        self,
        store: AccountStore,
        storage: Storage,
        games: GameCache,
        clock: Callable[[], int],
        session_days: float,
    ) -> None:
        self.store = store
        self.storage = storage
        self.games = games
        self.clock = clock
        self.session_seconds = round(session_days * 86400)

    def session_token(self, signer: TokenSigner, player_id: int) -> str:
        """A fresh session token for a signed-in player, good for ``session_days``."""
        return signer.sign_session(player_id, self.clock() // 1000 + self.session_seconds)

    async def resume(self, signer: TokenSigner, token: str) -> tuple[Principal, str]:
        """The player a token stands for, and the token to keep from now on (a session
        token is renewed: a player who keeps coming back stays signed in).

        Raises:
            IdentityError: ``bad_token`` for a forged or expired token, a guest's token
                once that guest signed in (its games are the Discord player's now), and a
                guest token of anyone but a guest.
        """
        if is_session_token(token):
            player_id = signer.verify_session(token, self.clock() / 1000)
            account = await self.store.account(player_id)
            if account is None or not account.principal.user.startswith("discord:"):
                raise IdentityError("bad_token")
            return account.principal, self.session_token(signer, player_id)
        account = await self.store.account(signer.verify(token))
        if (
            account is None
            or not account.principal.user.startswith("guest:")
            or account.merged_into is not None
        ):
            raise IdentityError("bad_token")
        return account.principal, token

    async def guest_of(self, signer: TokenSigner, token: str) -> int | None:
        """The guest a guest token stands for, if it is a guest's that can still sign in."""
        try:
            player, _ = await self.resume(signer, token)
        except IdentityError:
            return None
        return player.player_id if player.user.startswith("guest:") else None

    async def sign_in(self, user: DiscordUser, guest_id: int | None) -> Principal:
        """The player of a Discord user (made on first sign-in, as the bot makes it on
        first use), with the finished games of ``guest_id`` brought over to it."""
        player = await self.storage.discord_player(
            user.principal, clean_name(user.name, user.principal), None
        )
        if guest_id is not None and guest_id != player.player_id:
            merged = await self.store.merge_guest(guest_id, player.player_id)
            if merged is not None:
                for game_id in merged.games:
                    self.games.forget(game_id)  # a copy held here names the guest
                await rebuild_derived(self.storage.pool, [guest_id, player.player_id])
                log.info(
                    "guest_merged",
                    guest=guest_id,
                    player=player.player_id,
                    games=len(merged.games),
                    results=merged.results,
                    attempts=merged.attempts,
                )
        log.info("signed_in", player=player.player_id, user=player.user)
        return player
