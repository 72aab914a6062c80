"""How the bot's buttons, menus and forms find the table: through the attribute the bot
declares for it.

discord.py hands an item only the interaction, whose ``client`` is the bot
(``SolitaireBot``, bot/app.py) or, in tests, a small stand-in. Both hold the table as
``table``; ``table_of`` checks that they do and gives it with its type, so a press can
call nothing the table does not have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from bot.table import Table


@runtime_checkable
class HoldsTable(Protocol):
    """A Discord client the bot's items work with: one that holds the table."""

    table: Table


def table_of(interaction: Any) -> Table:
    """The table of the client an interaction came to.

    Raises:
        TypeError: the client holds no table (an item used outside this bot).
    """
    client = interaction.client
    if not isinstance(client, HoldsTable):
        raise TypeError(f"{type(client).__name__} holds no table")
    return client.table
