"""What each press on a board asks the server, and what it leads to.

A press on a board names a ``BoardOp`` (bot/views.py); ``PRESSES`` maps each op to the
one request it makes (acting for the user who pressed, so nobody can act for another)
and the board it leads to (a ``Pressed``: the reply with its view, the selection, a
notice). ``Boards`` (bot/boards.py) draws that board and answers Discord once.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.client import Actor, ArenaClient
from bot.i18n import text, variant_name
from bot.moves_text import readable_move
from bot.render import board_reply, format_time, game_time
from bot.views import CHOOSE, BoardOp, split_selection
from server import protocol as p


def typed_text(raw: str) -> str:
    """A typed move as it goes to the server: trimmed, at most 100 characters, and never
    read as a board button's "pick the card" target (which starts with ``?``)."""
    return raw.strip()[:100].lstrip("?") or "-"


def new_move_id() -> str:
    """A fresh id that makes a retransmitted move apply only once."""
    return uuid.uuid4().hex[:16]


@dataclass
class Pressed:
    """What a press led to: the server's reply (carrying the view) and how to draw it."""

    reply: Mapping[str, Any]
    sel: str = ""
    notice: str | None = None
    confirm_resign: bool = False
    target: str | None = None
    hint: str | None = None  # a hinted move, lit on the board and played by one tap
    undo_to: str = ""  # a one-tap move's source, selected again by the next Undo
    sent_home: int = 0  # safe cards the player's option sent home after this move


@dataclass
class Prefs:
    """A player's board options (``/solitaire options``), kept across restarts by the
    server (``set_preferences``, docs/protocol.md) and cached here."""

    one_tap: bool = False  # a tap plays wherever it fits (the server's one-tap rule)
    auto_home: bool = False  # safe cards go to the foundations by themselves


# One press: (client, who pressed, game, the button's arg, the board's selection).
Press = Callable[[ArenaClient, Actor, int, str, str], Awaitable[Pressed]]


async def view_of(client: ArenaClient, actor: Actor, game: int) -> Mapping[str, Any]:
    """The server's view of ``game`` for ``actor``."""
    return await _view_reply(client, actor, p.GetView(game=game))


async def _view_reply(
    client: ArenaClient, actor: Actor, request: p.ClientMessage
) -> Mapping[str, Any]:
    """The server's reply to a request answered with the player's view, in the form the
    board's renderers read."""
    return board_reply(await client.expect(request, actor, p.ViewReply))


async def _select(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    new_sel = sel or arg
    source, _ = split_selection(new_sel)
    if source == CHOOSE:  # Choose: the next tap on a pile selects it
        return Pressed(await view_of(client, actor, game), CHOOSE, text(actor.locale, "choose"))
    notice = text(actor.locale, "selected", source=source)
    return Pressed(await view_of(client, actor, game), new_sel, notice)


async def _target(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    if not arg.startswith("?"):
        pressed = await _move(client, actor, game, arg)
        source = arg.partition(":")[0]
        if re.fullmatch(r"\d+|w|f\d", source):  # a source alone: the one-tap rule chose
            pressed.undo_to = source
        return pressed
    # Several cards of the source reach the target: the menu offers them. (A bare "?"
    # comes from a board drawn before targets carried their pile.)
    target = arg[1:] or None
    notice = (
        text(actor.locale, "pick_card_to", target=target)
        if target
        else text(actor.locale, "pick_card")
    )
    return Pressed(await view_of(client, actor, game), sel, notice, target=target)


async def _move(client: ArenaClient, actor: Actor, game: int, move: str) -> Pressed:
    move_request = p.Move(game=game, text=move, move_id=new_move_id())
    return Pressed(await _view_reply(client, actor, move_request))


async def _draw(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    return await _move(client, actor, game, "d")


def undo_arg(undo_to: str, sent_home: int) -> str:
    """The Undo button's argument: the source to select again after it (a one-tap move's)
    and, after ``+``, how many cards the auto-home option sent home after the move."""
    return f"{undo_to}+{sent_home}" if sent_home else undo_to


async def _undo(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    # Cards sent home by the option after the last move are taken back with it: the
    # player made one move, so one Undo puts back what it set off.
    source, _, count = arg.partition("+")
    for _ in range(int(count) if count.isdigit() else 0):
        await client.expect(p.Undo(game=game, move_id=new_move_id()), actor, p.ViewReply)
    reply = await _view_reply(client, actor, p.Undo(game=game, move_id=new_move_id()))
    # After a one-tap move, Undo selects its source again: the next tap picks the target.
    keep = source if source in (reply["view"].get("legal_moves") or {}) else ""
    notice = text(actor.locale, "selected", source=source) if keep else None
    return Pressed(reply, sel=keep, notice=notice)


async def _jump_back(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    jump = p.JumpBack(game=game, move_id=new_move_id())
    return Pressed(await _view_reply(client, actor, jump))


async def _hint(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    reply = await _view_reply(client, actor, p.Hint(game=game))
    hint = reply.get("hint")
    notice = (
        text(actor.locale, "hint_is", move=readable_move(reply["view"], hint, actor.locale))
        if hint
        else text(actor.locale, "no_hint")
    )
    # The hint is lit: its source selected, its target ready to play it in one tap.
    sel = ""
    if hint and ">" in hint:
        head = hint.split(">")[0]
        source, _, size = head.partition(":")
        sel = f"{source}.{size}" if size else source
    return Pressed(reply, sel=sel, notice=notice, hint=hint)


async def _share(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    reply = await view_of(client, actor, game)
    line = won_line(reply, actor.locale, daily=arg or None)
    return Pressed(reply, notice=shared(line, actor.locale) if line else None)


def top_card(view: Mapping[str, Any], source: str) -> str | None:
    """The card a pile would move: the waste's top, a column's last face-up card."""
    if source == "w":
        visible = (view.get("waste") or {}).get("visible") or []
        return visible[-1] if visible else None
    if source.isdigit():
        up = view["tableau"][int(source) - 1]["up"]
        return up[-1] if up else None
    return None


def won_line(reply: Mapping[str, Any], locale: str, daily: str | None = None) -> str | None:
    """A won game as a line to share, spoiler-free: what was played (the daily and its
    date, the race, or the deal code), the time and the moves; None unless won."""
    view = reply["view"]
    if view.get("status") != "won" and view.get("outcome") != "won":
        return None
    variant = variant_name(locale, view["variant"])
    if daily:
        what = text(locale, "share_daily", variant=variant, date=daily)
    elif reply.get("race"):
        what = text(locale, "race_title", race=reply["race"], variant=variant)
    elif view.get("deal_code"):
        what = text(locale, "share_deal", variant=variant, code=view["deal_code"])
    else:
        what = variant
    moves = (view.get("counters") or {}).get("moves", 0)
    played = game_time(view, None)
    result = text(locale, "share_won", time=format_time(played or 0), moves=moves)
    return text(locale, "share_game", what=what, result=result)


def shared(line: str, locale: str) -> str:
    """A line to copy: in a code block (no emoji in it, which code blocks would not show)."""
    return f"{text(locale, 'share_intro')}\n```\n{line}\n```"


async def _finish(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    return Pressed(await _view_reply(client, actor, p.AutoFinish(game=game)))


async def _resign(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    notice = text(actor.locale, "confirm_resign")
    return Pressed(await view_of(client, actor, game), notice=notice, confirm_resign=True)


async def _resign_confirmed(
    client: ArenaClient, actor: Actor, game: int, arg: str, sel: str
) -> Pressed:
    return Pressed(await _view_reply(client, actor, p.Resign(game=game)))


async def _cancel(client: ArenaClient, actor: Actor, game: int, arg: str, sel: str) -> Pressed:
    return Pressed(await view_of(client, actor, game))


PRESSES: Mapping[BoardOp, Press] = {
    BoardOp.SELECT: _select,
    BoardOp.TARGET: _target,
    BoardOp.CANCEL: _cancel,
    BoardOp.DRAW: _draw,
    BoardOp.UNDO: _undo,
    BoardOp.JUMP_BACK: _jump_back,
    BoardOp.HINT: _hint,
    BoardOp.FINISH: _finish,
    BoardOp.RESIGN: _resign,
    BoardOp.RESIGN_CONFIRMED: _resign_confirmed,
    BoardOp.SHARE: _share,
}
