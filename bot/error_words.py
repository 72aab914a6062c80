"""The bot's words for every error code the server sends, in English and German.

Kept apart from bot/i18n.py, whose ``error_text`` reads them; a test holds them to the
server's codes (tests/bot/test_app.py).
"""

from __future__ import annotations

from typing import Final

# Short messages for every error code the server sends (server/protocol/errors.py), plus the
# bot's own: the server could not be reached, or it does not offer a feature yet.
ERRORS: Final[dict[str, tuple[str, str]]] = {
    "bad_json": ("The bot sent a broken message.", "Der Bot hat eine kaputte Nachricht gesendet."),
    "unknown_type": (
        "The game server does not offer this yet.",
        "Der Spielserver bietet das noch nicht an.",
    ),
    "invalid_message": ("The server did not understand that.", "Der Server verstand das nicht."),
    "unsupported_version": (
        "The bot and the game server do not match; tell the admin.",
        "Bot und Spielserver passen nicht zusammen; sag es dem Admin.",
    ),
    "not_authenticated": (
        "The bot is not signed in to the game server.",
        "Der Bot ist nicht am Spielserver angemeldet.",
    ),
    "already_authenticated": ("The bot is already signed in.", "Der Bot ist schon angemeldet."),
    "rate_limited": ("Too fast! Try again in a moment.", "Zu schnell! Gleich nochmal versuchen."),
    "bad_token": ("Your sign-in is no longer valid.", "Deine Anmeldung ist nicht mehr gültig."),
    "bad_service_token": (
        "The bot's service token is wrong; tell the admin.",
        "Das Dienst-Token des Bots ist falsch; sag es dem Admin.",
    ),
    "forbidden": ("That is not yours.", "Das gehört dir nicht."),
    "too_many_guests": (
        "Too many new players at once; try again in a minute.",
        "Zu viele neue Spieler auf einmal; versuche es in einer Minute.",
    ),
    "not_found": ("That game or race does not exist.", "Dieses Spiel oder Rennen gibt es nicht."),
    "wrong_state": ("The race is not at that stage.", "Das Rennen ist gerade nicht so weit."),
    "race_full": ("The race is full.", "Das Rennen ist voll."),
    "already_joined": ("You are already in this race.", "Du bist schon in diesem Rennen."),
    "not_in_race": ("You are not in this race.", "Du bist nicht in diesem Rennen."),
    "arena_state": ("The arena does not allow that now.", "Die Arena lässt das jetzt nicht zu."),
    "arena_joined": ("You are already in this arena.", "Du bist schon in dieser Arena."),
    "not_in_arena": ("You are not in this arena.", "Du bist nicht in dieser Arena."),
    "too_many_arenas": (
        "You already have arenas of your own that are not finished; wait for one to end.",
        "Du hast schon eigene Arenen, die nicht beendet sind; warte, bis eine zu Ende ist.",
    ),
    "not_creator": (
        "Only the creator can start the race.",
        "Nur wer das Rennen erstellt hat, kann es starten.",
    ),
    "undo_disabled": ("Undo is off in this race.", "Zurücknehmen ist in diesem Rennen aus."),
    "hints_disabled": ("Hints are off in this race.", "Tipps sind in diesem Rennen aus."),
    "solver_help_disabled": (
        "The solver's help is off in this game.",
        "Die Hilfe des Lösers ist in diesem Spiel aus.",
    ),
    "not_lost": (
        "This game can still be won: nothing to jump back to.",
        "Dieses Spiel ist noch zu gewinnen: kein Rücksprung nötig.",
    ),
    "no_winnable_move": (
        "No earlier position of this game is proven winnable.",
        "Keine frühere Stellung dieses Spiels ist als gewinnbar bewiesen.",
    ),
    "invalid_move": ("I cannot read that move.", "Diesen Zug kann ich nicht lesen."),
    "illegal_move": ("That move is not allowed.", "Dieser Zug ist nicht erlaubt."),
    "ambiguous_move": ("That move could mean several.", "Dieser Zug ist mehrdeutig."),
    "nothing_to_undo": ("There is nothing to undo.", "Es gibt nichts zurückzunehmen."),
    "game_over": ("This game is over.", "Dieses Spiel ist vorbei."),
    "cannot_finish": ("The game cannot be finished yet.", "Das Spiel kann noch nicht fertig."),
    "not_started": ("The race has not started yet.", "Das Rennen hat noch nicht begonnen."),
    "invalid_options": ("Those settings are not valid.", "Diese Einstellungen gehen nicht."),
    "deal_not_ready": (
        "Today's deal is still being prepared; try again in a minute.",
        "Das Tagesspiel wird noch vorbereitet; versuche es in einer Minute.",
    ),
    "day_not_open": (
        "That day's deals are not open yet.",
        "Die Spiele dieses Tages gibt es noch nicht.",
    ),
    "deal_live": (
        "This deal is still being played; its replay opens later.",
        "Dieses Spiel läuft noch; die Wiederholung gibt es später.",
    ),
    "attempt_not_over": (
        "Finish your own ranked attempt at this daily first.",
        "Beende zuerst deinen eigenen gewerteten Versuch an diesem Tagesspiel.",
    ),
    "race_not_finished": ("That race is not finished yet.", "Dieses Rennen ist noch nicht vorbei."),
    "sign_in_required": (
        "Rated races are for signed-in players.",
        "Gewertete Rennen gibt es nur angemeldet.",
    ),
    "already_racing": (
        "Finish (or give up) your rated race first.",
        "Beende (oder gib auf) zuerst dein gewertetes Rennen.",
    ),
    "time_up": ("The time for this game is up.", "Die Zeit für dieses Spiel ist um."),
    "conflict": (
        "Another device moved first; here is the current board.",
        "Ein anderes Gerät war schneller; hier ist das aktuelle Spielfeld.",
    ),
    "unavailable": (
        "The game server could not save just now. Check the board and try again soon.",
        "Der Spielserver konnte gerade nicht speichern. Schau aufs Spielfeld und "
        "versuche es bald nochmal.",
    ),
    "bad_record": (
        "That finished game cannot be replayed on its deal; nothing was saved.",
        "Dieses Spiel lässt sich auf seinem Blatt nicht nachspielen; nichts gespeichert.",
    ),
    "record_not_over": (
        "That game is not over yet; it is saved once it is won or given up.",
        "Dieses Spiel ist noch nicht zu Ende; es wird gespeichert, wenn es gewonnen oder "
        "aufgegeben ist.",
    ),
    "internal": (
        "Something went wrong on the game server; nothing changed.",
        "Auf dem Spielserver ging etwas schief; nichts geändert.",
    ),
    "bot_error": (
        "Something went wrong in the bot; try again.",
        "Im Bot ist etwas schiefgegangen; versuche es nochmal.",
    ),
    "connection_lost": (
        "The game server is not reachable right now. Try again in a moment.",
        "Der Spielserver ist gerade nicht erreichbar. Gleich nochmal versuchen.",
    ),
    "timeout": (
        "The game server did not answer in time. Try again.",
        "Der Spielserver hat nicht rechtzeitig geantwortet. Nochmal versuchen.",
    ),
    "racing_here": (
        "You are racing here: you see the boards once you are done.",
        "Du spielst hier mit: die Spielfelder siehst du, sobald du fertig bist.",
    ),
}
