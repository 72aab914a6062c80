"""Errors the server reports to clients, each with a stable code.

Every failure a client can cause ends up as one of these, is sent back as an
``error`` message carrying ``code`` (stable, for programs) and ``message``
(for people, English or German), and changes nothing on the server. Each class owns
its codes and their texts (``messages``); raising a class with a code it does not own
is a programming error (``ValueError``), and tests/server/test_errors.py holds this
tree to the classes and to every code the server raises:

    ArenaError                     one root; ``code`` is stable, ``details`` is data
    │   internal
    ├── ProtocolError              the message itself is wrong
    │       bad_json, unknown_type, invalid_message, unsupported_version,
    │       not_authenticated, already_authenticated, rate_limited
    ├── IdentityError              who you are, or who you act for
    │       bad_token, bad_service_token, forbidden, too_many_guests
    ├── NotFoundError              a race or game that does not exist
    │       not_found
    ├── RaceError                  the race does not allow it (``wrong_state`` names the state)
    │       wrong_state, race_full, already_joined, not_in_race, not_creator,
    │       not_started, undo_disabled, hints_disabled, solver_help_disabled
    ├── GameError                  the game does not allow it
    │       invalid_move, illegal_move, ambiguous_move, nothing_to_undo,
    │       game_over, cannot_finish, invalid_options, time_up, not_lost,
    │       no_winnable_move, bad_record, record_not_over
    ├── DailyError                 daily deals, leaderboards and replays
    │       deal_not_ready, day_not_open, deal_live, attempt_not_over,
    │       race_not_finished
    ├── TournamentError            the arena does not allow it (``arena_state`` names the state)
    │       arena_state, arena_joined, not_in_arena, too_many_arenas
    ├── MatchError                 quick match refused
    │       sign_in_required, already_racing
    ├── WatchError                 a board that would show a racer their own deal
    │       racing_here
    ├── ConflictError              another connection moved first
    │       conflict
    └── UnavailableError           the database did not answer
            unavailable
"""

from __future__ import annotations

from typing import Any, ClassVar

from server.protocol.view import PlayerView


class ArenaError(Exception):
    """Root of every error a client can be told about.

    Attributes:
        code: stable machine-readable code (one of the class's ``messages``).
        details: data about the failure; also fills the message templates.
    """

    code = "internal"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "internal": (
            "Something went wrong on the server; nothing was changed.",
            "Auf dem Server ist etwas schiefgegangen; nichts wurde geändert.",
        ),
    }
    request_id: int | str | None = None
    view: PlayerView | None = None  # a fresh view, sent with ``conflict``

    def __init__(self, code: str | None = None, **details: Any) -> None:
        if code is not None:
            self.code = code
        if self.code not in self.messages:
            raise ValueError(f"{type(self).__name__} has no code {self.code!r}")
        self.details = details
        super().__init__(self.message("en"))

    def message(self, locale: str = "en") -> str:
        """The human message in ``locale`` ("de" for German, anything else English)."""
        english, german = self.messages[self.code]
        template = german if locale == "de" else english
        fields = {**self.details}
        fields.setdefault("reason_de", fields.get("reason", ""))
        try:
            return template.format(**fields)
        except (KeyError, IndexError, ValueError):
            return english


class ProtocolError(ArenaError):
    """The message is malformed, unknown, too early, or too frequent."""

    code = "invalid_message"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "bad_json": (
            "The message is not valid JSON.",
            "Die Nachricht ist kein gültiges JSON.",
        ),
        "unknown_type": (
            "Unknown message type {type!r}.",
            "Unbekannter Nachrichtentyp {type!r}.",
        ),
        "invalid_message": (
            "Invalid message: {reason}",
            "Ungültige Nachricht: {reason}",
        ),
        "unsupported_version": (
            "Protocol version {version} is not supported; this server speaks {supported}.",
            "Protokollversion {version} wird nicht unterstützt; dieser Server spricht {supported}.",
        ),
        "not_authenticated": (
            "Send hello before anything else.",
            "Sende zuerst hello.",
        ),
        "already_authenticated": (
            "This connection has already said hello.",
            "Diese Verbindung hat bereits hello gesendet.",
        ),
        "rate_limited": (
            "Too many messages; slow down (limit {rate} per second).",
            "Zu viele Nachrichten; bitte langsamer (höchstens {rate} pro Sekunde).",
        ),
    }


class IdentityError(ArenaError):
    """A token is wrong, the sender may not act for the principal it names, or its
    address made too many guests."""

    code = "forbidden"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "bad_token": (
            "The player token is not valid.",
            "Das Spieler-Token ist ungültig.",
        ),
        "bad_service_token": (
            "The service token is not valid.",
            "Das Dienst-Token ist ungültig.",
        ),
        "forbidden": (
            "{reason}",
            "{reason_de}",
        ),
        "too_many_guests": (
            "Too many new players from your address just now; come back with your token, "
            "sign in, or try again in a minute.",
            "Gerade zu viele neue Spieler von deiner Adresse; komm mit deinem Token zurück, "
            "melde dich an oder versuche es in einer Minute noch einmal.",
        ),
    }


class NotFoundError(ArenaError):
    """The race or game named does not exist."""

    code = "not_found"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "not_found": (
            "No {what} with id {ref}.",
            "Kein(e) {what} mit der Kennung {ref}.",
        ),
    }


class RaceError(ArenaError):
    """The race's state or settings do not allow the request."""

    code = "wrong_state"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "wrong_state": (
            "The race is {state}; {action} is not possible now.",
            "Das Rennen ist im Zustand {state}; {action} ist jetzt nicht möglich.",
        ),
        "race_full": (
            "The race is full ({max_players} players).",
            "Das Rennen ist voll ({max_players} Spieler).",
        ),
        "already_joined": (
            "You are already in this race.",
            "Du bist schon in diesem Rennen.",
        ),
        "not_in_race": (
            "You are not in this race.",
            "Du bist nicht in diesem Rennen.",
        ),
        "not_creator": (
            "Only the creator of the race can start it.",
            "Nur wer das Rennen erstellt hat, kann es starten.",
        ),
        "not_started": (
            "The race has not started yet.",
            "Das Rennen hat noch nicht begonnen.",
        ),
        "undo_disabled": (
            "This race does not allow undo.",
            "In diesem Rennen ist Rückgängig nicht erlaubt.",
        ),
        "hints_disabled": (
            "This race does not allow hints.",
            "In diesem Rennen sind Tipps nicht erlaubt.",
        ),
        "solver_help_disabled": (
            "The solver's help is off here (it knows the face-down cards).",
            "Die Hilfe des Lösers ist hier aus (er kennt die verdeckten Karten).",
        ),
    }


class GameError(ArenaError):
    """The game does not allow the request (illegal move, nothing to undo, …)."""

    code = "illegal_move"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "invalid_move": (
            "{reason}",
            "{reason_de}",
        ),
        "illegal_move": (
            "{reason}",
            "{reason_de}",
        ),
        "ambiguous_move": (
            "{reason}",
            "{reason_de}",
        ),
        "nothing_to_undo": (
            "There is no move to undo.",
            "Es gibt keinen Zug zum Zurücknehmen.",
        ),
        "game_over": (
            "This game is over.",
            "Dieses Spiel ist beendet.",
        ),
        "cannot_finish": (
            "The game cannot be finished automatically yet.",
            "Das Spiel kann noch nicht automatisch beendet werden.",
        ),
        "invalid_options": (
            "{reason}",
            "{reason}",
        ),
        "time_up": (
            "The time for this game is up.",
            "Die Zeit für dieses Spiel ist abgelaufen.",
        ),
        "not_lost": (
            "The game is not proven lost (the solver says: {verdict}).",
            "Das Spiel ist nicht als verloren erwiesen (der Löser sagt: {verdict}).",
        ),
        "no_winnable_move": (
            "The solver proves no earlier position of this game winnable.",
            "Der Löser beweist keine frühere Stellung dieses Spiels als gewinnbar.",
        ),
        "bad_record": (
            "Action {index} of the record ({action}) cannot be played: {reason}",
            "Aktion {index} der Aufzeichnung ({action}) ist nicht spielbar: {reason_de}",
        ),
        "record_not_over": (
            "The record is of a game still being played; send it once it is won or given up.",
            "Die Aufzeichnung ist von einem laufenden Spiel; schicke sie, wenn es gewonnen "
            "oder aufgegeben ist.",
        ),
    }


class DailyError(ArenaError):
    """A daily deal, leaderboard or replay cannot be given now."""

    code = "deal_not_ready"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "deal_not_ready": (
            "The daily deal of {variant} for {day} is not ready; try again shortly.",
            "Das Tagesspiel {variant} für {day} ist noch nicht bereit; "
            "versuche es gleich noch einmal.",
        ),
        "day_not_open": (
            "The daily deals of {day} are not open yet.",
            "Die Tagesspiele vom {day} sind noch nicht freigegeben.",
        ),
        "deal_live": (
            "This deal can still be played; its replay opens once nobody can play it any more "
            "(a race at its end, a daily deal when its day closes).",
            "Dieses Spiel kann noch gespielt werden; die Wiederholung gibt es, sobald niemand "
            "mehr daran spielen kann (ein Rennen an seinem Ende, ein Tagesspiel nach "
            "Tagesschluss).",
        ),
        "attempt_not_over": (
            "Finish your own ranked attempt at this daily deal first: until then another "
            "player's game would give the deal away.",
            "Beende zuerst deinen eigenen gewerteten Versuch an diesem Tagesspiel: bis dahin "
            "würde das Spiel eines anderen die Karten verraten.",
        ),
        "race_not_finished": (
            "Race {race} is not finished yet.",
            "Das Rennen {race} ist noch nicht beendet.",
        ),
    }


class TournamentError(ArenaError):
    """An arena tournament's state does not allow the request (docs/arena.md)."""

    code = "arena_state"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "arena_state": (
            "The arena is {state}; {action} is not possible now.",
            "Die Arena ist im Zustand {state}; {action} ist jetzt nicht möglich.",
        ),
        "arena_joined": (
            "You are already in this arena.",
            "Du bist schon in dieser Arena.",
        ),
        "not_in_arena": (
            "You are not in this arena.",
            "Du bist nicht in dieser Arena.",
        ),
        "too_many_arenas": (
            "You already have {limit} arenas of your own that are not finished; create "
            "another once one of them has ended.",
            "Du hast schon {limit} eigene Arenen, die nicht beendet sind; erstelle eine "
            "weitere, sobald eine davon zu Ende ist.",
        ),
    }


class MatchError(ArenaError):
    """A quick match cannot be looked for now."""

    code = "sign_in_required"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "sign_in_required": (
            "Rated races are for signed-in players; sign in, or look for an unrated race.",
            "Gewertete Rennen gibt es nur angemeldet; melde dich an oder suche ein "
            "ungewertetes Rennen.",
        ),
        "already_racing": (
            "You are still playing rated race {race}; finish it (or give up) first.",
            "Du spielst noch das gewertete Rennen {race}; beende es (oder gib auf) zuerst.",
        ),
    }


class WatchError(ArenaError):
    """Watching cannot show this: a racer sees no board of their own race while racing."""

    code = "racing_here"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "racing_here": (
            "You are racing in this race: its boards show your own deal, so you see them "
            "once you are done.",
            "Du spielst in diesem Rennen mit: seine Spielfelder zeigen deine eigenen Karten, "
            "du siehst sie, sobald du fertig bist.",
        ),
    }


class ConflictError(ArenaError):
    """Another connection of the same player moved first (the move log key decided)."""

    code = "conflict"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "conflict": (
            "Another connection moved in this game first; here is the current position.",
            "Eine andere Verbindung hat in diesem Spiel zuerst gezogen; hier ist die aktuelle "
            "Stellung.",
        ),
    }


class UnavailableError(ArenaError):
    """The database did not answer; the change was not acknowledged.

    Usually nothing was stored; a commit cut on its way may have been (docs/protocol.md,
    "When the database is away"), which is why the message asks for the same move id.
    """

    code = "unavailable"
    messages: ClassVar[dict[str, tuple[str, str]]] = {
        "unavailable": (
            "The server cannot reach its database right now; try again in a moment "
            "(a move sent again with the same move_id never counts twice).",
            "Der Server erreicht seine Datenbank gerade nicht; versuche es gleich noch "
            "einmal (ein Zug mit derselben move_id zählt nie doppelt).",
        ),
    }


def forbidden(reason: str, reason_de: str) -> IdentityError:
    """A ``forbidden`` error with its English and German reason."""
    return IdentityError("forbidden", reason=reason, reason_de=reason_de)


def _every_message() -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = dict(ArenaError.messages)
    for cls in ArenaError.__subclasses__():
        found.update(cls.messages)
    return found


MESSAGES: dict[str, tuple[str, str]] = _every_message()
"""Every code the server can send, with its English and German text."""
