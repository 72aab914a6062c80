"""The words of arenas and watching on Discord, in English and German.

Kept beside bot/i18n.py and bot/command_words.py, which take them into ``TEXTS`` and
``COMMANDS_DE``, so ``text(locale, key)`` finds them like any other; only the words of
these two formats live here.
"""

from __future__ import annotations

from typing import Final

ARENA_TEXTS: Final[dict[str, tuple[str, str]]] = {
    # the arena's channel message
    "arena_title": ("🏟️ **Arena #{arena}: {variant}**", "🏟️ **Arena #{arena}: {variant}**"),
    "arena_settings": (
        "{minutes} {minutes|minute|minutes} · races of up to {size} {size|player|players}"
        " · at most {race} min a race · {rated}",
        "{minutes} {minutes|Minute|Minuten} · Rennen mit bis zu {size} Spielern"
        " · höchstens {race} Min. je Rennen · {rated}",
    ),
    "arena_rated": ("rated", "gewertet"),
    "arena_unrated": ("unrated", "ohne Wertung"),
    "arena_upcoming": (
        "Starts {when}. Join now: finish a race and you are paired again at once.",
        "Beginnt {when}. Jetzt mitmachen: nach jedem Rennen geht es sofort ins nächste.",
    ),
    "arena_running": (
        "Running, ends {when}. Join any time: finish a race and you are paired again at once.",
        "Läuft, endet {when}. Jederzeit mitmachen: nach jedem Rennen geht es sofort ins nächste.",
    ),
    "arena_ending": (
        "Time is up: the last races are being scored.",
        "Die Zeit ist um: die letzten Rennen werden gewertet.",
    ),
    "arena_finished": ("The arena is over.", "Die Arena ist vorbei."),
    "arena_players": ("{count} {count|player|players}", "{count} Spieler"),
    "arena_nobody": ("Nobody has joined yet.", "Noch niemand dabei."),
    "arena_line": (
        "{rank}. {name}: {score} {score|point|points} · {races} {races|race|races},"
        " {wins} won{fire}",
        "{rank}. {name}: {score} {score|Punkt|Punkte} · {races} Rennen, {wins} gewonnen{fire}",
    ),
    "arena_podium": (
        "🏆 Arena #{arena} is over: {podium}",
        "🏆 Arena #{arena} ist vorbei: {podium}",
    ),
    "arena_podium_empty": ("nobody completed a race", "niemand hat ein Rennen beendet"),
    "btn_place": ("My place", "Mein Platz"),
    "btn_pause": ("Pause", "Pause"),
    # what a player is told privately
    "arena_in": (
        "You are in arena #{arena}. The board of each race you are paired into comes here"
        " (or with a mention in the channel); finish a race and the next one follows.",
        "Du bist in Arena #{arena}. Das Spielfeld jedes Rennens, in das du gelost wirst,"
        " kommt hierher (oder mit einer Erwähnung im Kanal); nach jedem Rennen folgt das"
        " nächste.",
    ),
    "arena_next": (
        "⚔️ Arena #{arena}, race #{race} with {players}.",
        "⚔️ Arena #{arena}, Rennen #{race} mit {players}.",
    ),
    "arena_next_ping": (
        "⚔️ <@{user}>: your next race in arena #{arena} is race #{race}.",
        "⚔️ <@{user}>: dein nächstes Rennen in Arena #{arena} ist Rennen #{race}.",
    ),
    "arena_scored": (
        "Race #{race}: place {rank} of {racers}, +{points} {points|point|points}{fire}"
        " · your score {score}",
        "Rennen #{race}: Platz {rank} von {racers}, +{points} {points|Punkt|Punkte}{fire}"
        " · dein Stand {score}",
    ),
    "arena_place": ("Your place in arena #{arena}:", "Dein Platz in Arena #{arena}:"),
    "arena_not_joined": (
        "You have not joined this arena: press Join.",
        "Du bist nicht in dieser Arena: tippe auf Mitmachen.",
    ),
    "arena_paused": (
        "Paused: after the race under way you are not paired again until you press Join.",
        "Pause: nach dem laufenden Rennen wirst du erst wieder gelost, wenn du Mitmachen tippst.",
    ),
    "arena_left": (
        "You left the arena; your score stays on the standings. Join brings you back.",
        "Du hast die Arena verlassen; dein Stand bleibt. Mitmachen holt dich zurück.",
    ),
    # watching a race
    "btn_watch": ("Watch", "Zuschauen"),
    "btn_refresh": ("Refresh", "Aktualisieren"),
    "watch_title": ("👀 Race #{race}: {variant}", "👀 Rennen #{race}: {variant}"),
    "watch_delay": (
        "Shown {seconds} s late, so that nobody can coach a racer.",
        "{seconds} s verzögert, damit niemand einem Spieler einsagen kann.",
    ),
    "watch_live": ("Live: no delay (an unranked race).", "Live: ohne Verzögerung (ungewertet)."),
    "watch_line": (
        "{name}: {foundation} {foundation|card|cards} home, {moves} {moves|move|moves}{end}",
        "{name}: {foundation} {foundation|Karte|Karten} oben, {moves} {moves|Zug|Züge}{end}",
    ),
    "watch_board_of": ("Board of **{name}**:", "Spielfeld von **{name}**:"),
    "watch_pick": ("Whose board?", "Wessen Spielfeld?"),
    "watch_nobody": ("Nobody races yet.", "Noch niemand im Rennen."),
}

# German names and descriptions of the arena command and its options (bot/cog.py).
ARENA_COMMANDS_DE: Final[dict[str, str]] = {
    "arena": "arena",
    "Open an arena in this channel: back-to-back races, join any time": (
        "Eine Arena in diesem Kanal eröffnen: Rennen auf Rennen, Einstieg jederzeit"
    ),
    "minutes": "minuten",
    "How long the arena runs (5 to 60 minutes)": "Wie lange die Arena läuft (5 bis 60 Minuten)",
    "starts_in": "beginnt_in",
    "Minutes until it starts (default: at once)": "Minuten bis zum Beginn (sonst sofort)",
    "title": "titel",
    "A name for the arena": "Ein Name für die Arena",
}
