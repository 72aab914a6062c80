"""Every word the bot says, in English and German, chosen by the user's Discord locale.

``text(locale, key, **fields)`` gives a reply; ``error_text(locale, code, message)``
gives the short message for a server error code (server/protocol/errors.py lists them). A
locale is "de" for any German Discord locale and "en" for everything else.

One language at a time: a German reply uses German rank letters (A, B, D, K, as the
seeds and the engine's German reasons write them), an English one A, J, Q, K
(``rank_text``). A word that follows a number is written ``{count|card|cards}`` in a
text: the first form when the field is 1, the second otherwise ("1 card", "2 cards").
"""

from __future__ import annotations

import re
from typing import Final

from bot.arena_words import ARENA_TEXTS
from bot.error_words import ERRORS


def locale_of(discord_locale: object) -> str:
    """Return "de" for de, de-AT, … (Discord's ``Locale`` or a string), else "en"."""
    value = getattr(discord_locale, "value", discord_locale)
    return "de" if str(value or "").lower().startswith("de") else "en"


VARIANT_NAMES: Final[dict[str, tuple[str, str]]] = {
    "klondike": ("Klondike · draw 1", "Klondike · 1 Karte ziehen"),
    "klondike-3": ("Klondike · draw 3", "Klondike · 3 Karten ziehen"),
    "spider-1": ("Spider · 1 suit", "Spider · 1 Farbe"),
    "spider-2": ("Spider · 2 suits", "Spider · 2 Farben"),
    "spider-4": ("Spider · 4 suits", "Spider · 4 Farben"),
    "yukon": ("Yukon", "Yukon"),
    "russian": ("Russian Solitaire", "Russische Patience"),
    "alaska": ("Alaska", "Alaska"),
}

TEXTS: Final[dict[str, tuple[str, str]]] = {
    # the board
    "stock": ("Stock {count}", "Talon {count}"),
    "waste": ("Waste {count}", "Ablage {count}"),
    "waste_empty": ("Waste empty", "Ablage leer"),
    "pass": ("pass {number}/{limit}", "Runde {number}/{limit}"),
    "foundations": ("Foundations", "Fundamente"),
    "runs_removed": ("Runs done {count}/8", "Fertige Folgen {count}/8"),
    "deals_left": ("deals left {count}", "noch {count}× geben"),
    "time": ("⏱️ {time}", "⏱️ {time}"),
    "moves": ("Moves {count}", "Züge {count}"),
    "score": ("Score {count}", "Punkte {count}"),
    "undos": ("Undos {count}", "Rücknahmen {count}"),
    "hints": ("Hints {count}", "Tipps {count}"),
    "deal": ("deal {code}", "Spiel {code}"),
    "outcome_won": ("🏆 **Won!** Every card is home.", "🏆 **Gewonnen!** Alle Karten liegen oben."),
    "outcome_no_moves": (
        "No helpful move is left. Undo to try another way, or resign.",
        "Kein hilfreicher Zug mehr. Nimm Züge zurück und versuche einen anderen Weg, oder gib auf.",
    ),
    "outcome_resigned": ("You resigned this game.", "Du hast dieses Spiel aufgegeben."),
    "selected": (
        "Moving from **{source}**: pick a target.",
        "Zug von **{source}**: wähle ein Ziel.",
    ),
    "other_moves": ("Other moves…", "Andere Züge…"),
    "choose_option": ("👉 Another move: choose its pile…", "👉 Anderer Zug: Stapel wählen…"),
    "choose": (
        "Tap the pile to move from: its targets light up.",
        "Tippe den Stapel, von dem du ziehen willst: seine Ziele leuchten auf.",
    ),
    "pick_card": ("Pick the card to move", "Wähle die Karte, die ziehen soll"),
    "pick_card_to": (
        "Pick the card to move to column {target}",
        "Wähle die Karte, die auf Spalte {target} ziehen soll",
    ),
    "card_count": (
        "{card} ({count} {count|card|cards})",
        "{card} ({count} {count|Karte|Karten})",
    ),
    "confirm_resign": ("Really resign? Tap Resign again.", "Wirklich aufgeben? Nochmal tippen."),
    "hint_is": ("Hint: **{move}**", "Tipp: **{move}**"),
    "no_hint": ("No useful move found.", "Kein sinnvoller Zug gefunden."),
    "lost_notice": (
        "This game can no longer be won: undo, jump back to the last winnable move, or resign.",
        "Dieses Spiel ist nicht mehr zu gewinnen: Zug zurück, zurück zum letzten gewinnbaren"
        " Zug springen oder aufgeben.",
    ),
    "played": ("Played {moves}", "Gespielt: {moves}"),
    "onto": ("onto {card}", "auf {card}"),
    "empty_column": ("empty column", "leere Spalte"),
    # buttons
    "btn_draw": ("Draw", "Ziehen"),
    "btn_deal": ("Deal", "Geben"),
    "btn_undo": ("Undo", "Zurück"),
    "btn_hint": ("Hint", "Tipp"),
    "btn_finish": ("Finish", "Fertig legen"),
    "btn_resign": ("Resign", "Aufgeben"),
    "btn_jump_back": ("Jump back", "Zurückspringen"),
    "btn_cancel": ("Cancel", "Abbrechen"),
    "btn_join": ("Join", "Mitmachen"),
    "btn_leave": ("Leave", "Verlassen"),
    "btn_start": ("Start", "Starten"),
    "btn_board": ("Open my board", "Mein Spielfeld"),
    "btn_quit": ("Leave and resign", "Verlassen und aufgeben"),
    "leave_resigns": (
        "The race is running: leaving it resigns your game.",
        "Das Rennen läuft: wer es verlässt, gibt sein Spiel auf.",
    ),
    "creator_stays": (
        "You opened this race, so only you can start it: start it, and resign once it"
        " runs if you must.",
        "Du hast dieses Rennen eröffnet, nur du kannst es starten: starte es und gib"
        " notfalls auf, sobald es läuft.",
    ),
    "btn_play_deal": ("Play this deal", "Dieses Spiel spielen"),
    "btn_rematch": ("Rematch", "Revanche"),
    "btn_share": ("Share", "Teilen"),
    "btn_type": ("Type a move", "Zug tippen"),
    "type_title": ("Type a move", "Zug tippen"),
    "type_label": ("Move", "Zug"),
    "type_placeholder": ("7 3 · w f · 9h 3 · d · undo", "7 3 · w f · 9h 3 · d · zurück"),
    "board_updated": (
        "Played {moves}: your board is up to date.",
        "Gespielt: {moves}. Dein Spielfeld ist aktuell.",
    ),
    "board_redrawn": (
        "Your board is up to date.",
        "Dein Spielfeld ist aktuell.",
    ),
    "sent_home": ("Sent home: {cards}", "Nach oben gelegt: {cards}"),
    "options_now": (
        "Your board options: tap plays wherever it fits {one_tap} · safe cards go home"
        " by themselves {auto_home}.",
        "Deine Spielfeld-Optionen: Tippen legt, wohin es passt {one_tap} · sichere Karten"
        " gehen von selbst nach oben {auto_home}.",
    ),
    "waste_short": ("Waste", "Ablage"),
    "empty_pile": ("Empty {number}", "Leer {number}"),
    "foundation_short": ("Foundation", "Fundament"),
    # the race message
    "race_title": ("Race #{race}: {variant}", "Rennen #{race}: {variant}"),
    "race_lobby": (
        "Waiting for players ({count}/{max}). Join, then the creator starts.",
        "Warte auf Mitspieler ({count}/{max}). Mitmachen; wer es erstellt hat, startet.",
    ),
    "race_players": ("Players: {names}", "Spieler: {names}"),
    "race_nobody": ("nobody yet", "noch niemand"),
    "race_countdown": ("Starts {when}!", "Start {when}!"),
    "race_running": ("Racing! Open your board with the button.", "Los! Öffne dein Spielfeld."),
    "race_ends": ("Time limit {when}.", "Zeitlimit {when}."),
    "race_over": ("Race over.", "Rennen beendet."),
    "race_expired": (
        "Nobody started this race: it closed after a long wait without a join or leave.",
        "Niemand hat dieses Rennen gestartet: es wurde nach langer Ruhe geschlossen.",
    ),
    "race_over_time": ("Race over: time is up.", "Rennen beendet: die Zeit ist um."),
    "race_deal": (
        "Deal **{code}**: play it with the button or `/solitaire play deal:{code}` · "
        "seed {seed}, commitment {commitment}… (check it yourself)",
        "Spiel **{code}**: spiel es mit dem Knopf oder `/solitaire spielen spielcode:{code}` · "
        "Seed {seed}, Zusage {commitment}… (prüfe es selbst)",
    ),
    "race_thread_name": ("Race #{race}: {variant}", "Rennen #{race}: {variant}"),
    "result_title": (
        "Solitaire Arena · race #{race} · {variant} · deal {code}",
        "Solitaire Arena · Rennen #{race} · {variant} · Spiel {code}",
    ),
    "card_home_count": (
        "{count} {count|card|cards} home",
        "{count} {count|Karte|Karten} oben",
    ),
    "race_result": (
        "🏁 Race #{race} is over: {podium} · deal **{code}**",
        "🏁 Rennen #{race} ist vorbei: {podium} · Spiel **{code}**",
    ),
    "thread_missing": (
        "The race is open, but without a thread: the bot lacks {permissions} in this channel.",
        "Das Rennen ist offen, aber ohne Thread: dem Bot fehlt hier {permissions}.",
    ),
    "thread_failed": (
        "The race is open, but Discord did not make its thread: {reason}",
        "Das Rennen ist offen, aber Discord hat keinen Thread dazu erstellt: {reason}",
    ),
    "perm_create_public_threads": ("Create Public Threads", "Öffentliche Threads erstellen"),
    "perm_send_messages_in_threads": (
        "Send Messages in Threads",
        "Nachrichten in Threads senden",
    ),
    "and": ("and", "und"),
    "race_started_ping": (
        "🏁 Race #{race} is on: {mentions}",
        "🏁 Rennen #{race} läuft: {mentions}",
    ),
    "board_before_start": (
        "The race starts {when}: the cards turn up then, on this board"
        " (if not, tap Turn the cards up).",
        "Das Rennen startet {when}: dann drehen sich hier die Karten um"
        " (sonst tippe auf Karten aufdecken).",
    ),
    "btn_turn_up": ("Turn the cards up", "Karten aufdecken"),
    "face_down_pile": ("{number} 🟦", "{number} 🟦"),
    "share_intro": ("Copy and share (no cards in it):", "Kopieren und teilen (ohne Karten):"),
    "share_race": (
        "Solitaire Arena · race #{race} · {variant} · deal {code} · place {place} of {count}"
        " · {result}",
        "Solitaire Arena · Rennen #{race} · {variant} · Spiel {code} · Platz {place} von"
        " {count} · {result}",
    ),
    "share_game": ("Solitaire Arena · {what} · {result}", "Solitaire Arena · {what} · {result}"),
    "share_daily": ("daily {variant} {date}", "Tagesspiel {variant} {date}"),
    "daily_card_title": ("Solitaire Arena · daily {date}", "Solitaire Arena · Tagesspiel {date}"),
    "daily_card_place": ("place {rank} of {players} today", "Platz {rank} von {players} heute"),
    "daily_card_unplaced": ("not on today's board yet", "noch nicht auf der Tagesliste"),
    "daily_card_practice": ("practice, not ranked", "Übung, nicht gewertet"),
    "share_deal": ("{variant} · deal {code}", "{variant} · Spiel {code}"),
    "share_won": (
        "won in {time}, {moves} {moves|move|moves}",
        "gewonnen in {time}, {moves} {moves|Zug|Züge}",
    ),
    "share_unfinished": (
        "{foundation} {foundation|card|cards} home, {moves} {moves|move|moves}",
        "{foundation} {foundation|Karte|Karten} oben, {moves} {moves|Zug|Züge}",
    ),
    "rematch_opening": ("Opening the rematch…", "Die Revanche wird eröffnet…"),
    "rematch_joined": (
        "{name} joins the rematch, race #{race}.",
        "{name} ist bei der Revanche dabei, Rennen #{race}.",
    ),
    "race_more": ("… and {count} more", "… und {count} weitere"),
    "standing_line": (
        "{rank}. {name}: {foundation} {foundation|card|cards} home, {moves} {moves|move|moves}",
        "{rank}. {name}: {foundation} {foundation|Karte|Karten} oben, {moves} {moves|Zug|Züge}",
    ),
    "standing_won": ("won in {time}", "gewonnen in {time}"),
    "standing_resigned": ("resigned", "aufgegeben"),
    "race_options": (
        "{start} · undo {undo} · hints {hints}",
        "{start} · Rücknahme {undo} · Tipps {hints}",
    ),
    "race_unranked": (
        "unranked (a chosen deal or the solver's help)",
        "ohne Wertung (gewähltes Spiel oder Hilfe des Lösers)",
    ),
    "start_now": ("open start", "offener Start"),
    "start_manual": ("creator starts", "Start durch Ersteller"),
    "start_countdown": ("countdown {seconds}s", "Countdown {seconds}s"),
    "on": ("on", "an"),
    "off": ("off", "aus"),
    # commands
    "no_game": (
        "You have no game open. Start one with /solitaire play or open your race board.",
        "Du hast kein offenes Spiel. Starte eins mit /solitaire play oder öffne dein "
        "Rennen-Spielfeld.",
    ),
    "not_racing": ("You are not in this race.", "Du bist nicht in diesem Rennen."),
    "race_not_started": ("The race has not started yet.", "Das Rennen hat noch nicht begonnen."),
    "bad_deal_code": (
        "{code} is not a deal code.",
        "{code} ist kein Spielcode.",
    ),
    "no_guild": ("Races need a server channel.", "Rennen gibt es nur in einem Server-Kanal."),
    "slow_down": (
        "Slow down a little: too many taps at once. Try again in a moment.",
        "Nicht so schnell: zu viele Klicks auf einmal. Gleich geht es weiter.",
    ),
    "leaderboard_title": (
        "**Leaderboard** {variant} · {date} · {scope}",
        "**Bestenliste** {variant} · {date} · {scope}",
    ),
    "all_time_title": (
        "**All-time leaderboard** {variant} · {scope}",
        "**Ewige Bestenliste** {variant} · {scope}",
    ),
    # Ratings (bot/ratings.py; docs/ratings.md)
    "rating_line": (
        "{rank}. {name}: {rating} ±{deviation} · {rated} rated {rated|game|games}",
        "{rank}. {name}: {rating} ±{deviation} · {rated} {rated|gewertetes Spiel|gewertete Spiele}",
    ),
    "rating_board_total": (
        "{total} {total|player|players} · {provisional} still provisional",
        "{total} Spieler · {provisional} noch vorläufig",
    ),
    "ratings_title": ("**Ratings**", "**Wertungen**"),
    "ratings_line": (
        "{variant}: {rating} ±{deviation} · {rated} rated {rated|game|games}",
        "{variant}: {rating} ±{deviation} · {rated} {rated|gewertetes Spiel|gewertete Spiele}",
    ),
    "ratings_line_provisional": (
        "{variant}: {rating} (provisional) · {rated} rated {rated|game|games}",
        "{variant}: {rating} (vorläufig) · {rated} {rated|gewertetes Spiel|gewertete Spiele}",
    ),
    "ratings_none": (
        "No rating yet: play a rated quick match (or the daily deal).",
        "Noch keine Wertung: spiele ein gewertetes schnelles Rennen (oder das Tagesspiel).",
    ),
    "looking": (
        "Looking for a {variant} race… You will be told here when one is found.",
        "Suche ein Rennen {variant}… Du erfährst es hier, sobald eines gefunden ist.",
    ),
    "looking_rated": (
        "Looking for a rated {variant} race near your rating of {rating}… You will be told "
        "here when one is found.",
        "Suche ein gewertetes Rennen {variant} nahe deiner Wertung von {rating}… Du "
        "erfährst es hier, sobald eines gefunden ist.",
    ),
    "found_starts": (
        "Race found: {variant} with {players}. It starts {when}.",
        "Rennen gefunden: {variant} mit {players}. Es beginnt {when}.",
    ),
    "found_running": (
        "Race found: {variant} with {players}. It has started.",
        "Rennen gefunden: {variant} mit {players}. Es läuft schon.",
    ),
    "rated_title": ("**Race {race} rated** · {variant}", "**Rennen {race} gewertet** · {variant}"),
    "rated_line": (
        "{place}. {name}: {rating} ({change})",
        "{place}. {name}: {rating} ({change})",
    ),
    "scope_global": ("everyone", "alle"),
    "scope_server": ("this server", "dieser Server"),
    "board_line": ("{rank}. {name}: {result}", "{rank}. {name}: {result}"),
    "board_won": (
        "{time}, {moves} {moves|move|moves}",
        "{time}, {moves} {moves|Zug|Züge}",
    ),
    "board_unfinished": ("not finished", "nicht geschafft"),
    "board_total": ("{total} {total|player|players}", "{total} Spieler"),
    "stats_title": ("**Statistics for {name}**", "**Statistik für {name}**"),
    "stats_line": (
        "{variant}: {wins}/{games} won ({rate}%) · best {best} · daily streak {streak} "
        "{streak|day|days} (longest {longest})",
        "{variant}: {wins}/{games} gewonnen ({rate} %) · beste {best} · Tagesserie {streak} "
        "{streak|Tag|Tage} (längste {longest})",
    ),
    "daily_started": (
        "Daily deal {date}: {ranked}. Time is up {deadline}.",
        "Tagesspiel {date}: {ranked}. Die Zeit endet {deadline}.",
    ),
    "daily_ranked": ("ranked attempt", "gewertet"),
    "daily_practice": ("practice (your ranked attempt is used)", "Übung (gewertet wurde schon)"),
    "daily_unranked_guest": (
        "not ranked: sign in to rank",
        "ohne Wertung: melde dich an, um gewertet zu werden",
    ),
    "empty_list": ("Nothing here yet.", "Noch nichts da."),
    "resigned": ("You resigned.", "Du hast aufgegeben."),
    "help": (
        "**How to read a board**\n"
        "Each line is a column, numbered 1️⃣ to 🔟; its last card is the one you can play. "
        "🟦 is a face-down card. Hearts ♡ and diamonds ♢ are red, spades ♠\ufe0e and "
        "clubs ♣\ufe0e black (grey marks). The line above the columns shows "
        "the stock, the waste (its last card is playable) and the foundations; the line "
        "under them the time, moves, score, undos ↶ and hints 💡. 🟦×5 is five face-down "
        "cards, K♠\ufe0e–8♠\ufe0e a run of one suit, ↳7 column 7 going on.\n"
        "**How to move**\nTap a column (or Waste / a foundation), then the target that lights "
        "up. Or type a move with /solitaire move, or just send it to me in a DM:\n"
        "• `7 3` or `7>3`: top card of column 7 onto column 3\n"
        "• `7:3>2`: the top three cards of column 7 onto column 2\n"
        "• `w f`, `7 f`: waste or column 7 to the foundation · `9h 3`: the 9♡ onto column 3\n"
        "• `d`: draw (Spider: deal a row) · `undo`: take back",
        "**So liest du das Spielfeld**\n"
        "Jede Zeile ist eine Spalte, nummeriert 1️⃣ bis 🔟; ihre letzte Karte ist spielbar. "
        "🟦 ist eine verdeckte Karte. Herz ♡ und Karo ♢ sind rot, Pik ♠\ufe0e und "
        "Kreuz ♣\ufe0e schwarz (graue Zeichen). Die Zeile über den Spalten "
        "zeigt Talon, Ablage (ihre letzte Karte ist spielbar) und Fundamente, die Zeile "
        "darunter Zeit, Züge, Punkte, Rücknahmen ↶ und Tipps 💡. 🟦×5 sind fünf verdeckte "
        "Karten, K♠\ufe0e–8♠\ufe0e eine Folge einer Farbe, ↳7 die Fortsetzung von Spalte 7.\n"
        "**So ziehst du**\nTippe eine Spalte (oder Ablage / ein Fundament), dann das Ziel, das "
        "aufleuchtet. Oder tippe einen Zug mit /solitaire zug oder schick ihn mir per DM:\n"
        "• `7 3` oder `7>3`: oberste Karte von Spalte 7 auf Spalte 3\n"
        "• `7:3>2`: die obersten drei Karten von Spalte 7 auf Spalte 2\n"
        "• `w f`, `7 f`: Ablage oder Spalte 7 aufs Fundament · `9h 3`: die 9♡ auf Spalte 3\n"
        "• `d`: ziehen (Spider: eine Reihe geben) · `zurück`: Zug zurücknehmen",
    ),
    **ARENA_TEXTS,
}

# Codes whose server message carries the engine's reason in the player's language,
# which says more than the short text (e.g. "a 9♥ cannot go on a 7♠").
REASON_CODES: Final = frozenset({"invalid_move", "illegal_move", "ambiguous_move"})


_PLURAL: Final = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")

# Rank letters that differ by language (the view's cards use the English ones).
GERMAN_RANKS: Final[dict[str, str]] = {"J": "B", "Q": "D"}


def text(locale: str, key: str, **fields: object) -> str:
    """The reply ``key`` in ``locale`` with ``fields`` filled in (and ``{n|one|many}``
    made the word for the number in field ``n``)."""
    english, german = TEXTS[key]
    template = german if locale == "de" else english
    template = _PLURAL.sub(lambda m: m[2] if fields[m[1]] == 1 else m[3], template)
    return template.format(**fields)


def rank_text(rank: str, locale: str) -> str:
    """A rank as the player's language writes it: ``Q`` → ``D`` in German, ``10`` stays."""
    return GERMAN_RANKS.get(rank, rank) if locale == "de" else rank


def variant_name(locale: str, variant: str) -> str:
    """A variant's display name."""
    english, german = VARIANT_NAMES.get(variant, (variant, variant))
    return german if locale == "de" else english


def error_text(locale: str, code: str, server_message: str = "") -> str:
    """The short message for an error ``code``; for move errors the server's own
    reason (already in the player's language) is added."""
    english, german = ERRORS.get(code, ERRORS["internal"])
    short = german if locale == "de" else english
    if code in REASON_CODES and server_message:
        return f"{short} {board_cards(server_message)}"
    return short


# A card as the engine's reasons write it: suit first (♦7, ♠K, German ♠D).
_REASON_CARD = re.compile(r"([♠♣♥♦])(10|[2-9AJQKBDT])")
# The suit marks boards write (text marks; the red ones outlined), by the engine's mark.
_BOARD_SUITS = {"♠": "♠\ufe0e", "♣": "♣\ufe0e", "♥": "♡", "♦": "♢"}


def board_cards(reason: str) -> str:
    """The engine's reason with its cards written as boards write them: ``♦7`` → ``7♢``,
    ``♠K`` → ``K♠︎`` (the rank already in the player's language)."""
    return _REASON_CARD.sub(lambda m: m[2] + _BOARD_SUITS[m[1]], reason)
