"""German names and descriptions of the bot's commands, in one table.

Discord shows them to German clients through ``GermanTranslator`` (bot/cog.py); the
arenas' own (bot/arena_words.py) are taken in.
"""

from __future__ import annotations

from typing import Final

from bot.arena_words import ARENA_COMMANDS_DE

# German names and descriptions of the /solitaire commands, their options and choices,
# keyed by the English text in bot/cog.py (Discord shows them to German clients).
COMMANDS_DE: Final[dict[str, str]] = {
    "solitaire": "solitaire",
    "Play solitaire": "Patience spielen",
    "race": "rennen",
    "Open a race in this channel": "Ein Rennen in diesem Kanal eröffnen",
    "quickmatch": "schnelles_rennen",
    "Race players of about my strength": "Gegen etwa gleich Starke antreten",
    "Rated: the race changes ratings": "Gewertet: das Rennen ändert die Wertungen",
    "daily": "tagesspiel",
    "Play today's deal": "Das Spiel des Tages spielen",
    "play": "spielen",
    "Practise a game on your own": "Allein ein Übungsspiel spielen",
    "board": "spielfeld",
    "Show my board again": "Mein Spielfeld wieder zeigen",
    "move": "zug",
    "Type a move, like 7 3 or w f": "Einen Zug tippen, etwa 7 3 oder w f",
    "undo": "zurück",
    "options": "optionen",
    "My board options": "Meine Spielfeld-Optionen",
    "one_tap": "ein_tipp",
    "A tap plays the card wherever it fits (Undo puts a wrong one right)": (
        "Ein Tipp legt die Karte, wohin sie passt (Zurück korrigiert)"
    ),
    "auto_home": "von_selbst_hoch",
    "Safe cards go to the foundations by themselves": (
        "Sichere Karten gehen von selbst auf die Fundamente"
    ),
    "Take back my last move": "Meinen letzten Zug zurücknehmen",
    "hint": "tipp",
    "Suggest a useful move": "Einen sinnvollen Zug vorschlagen",
    "resign": "aufgeben",
    "Give up my current game": "Mein aktuelles Spiel aufgeben",
    "leaderboard": "bestenliste",
    "Show a leaderboard": "Eine Bestenliste zeigen",
    "stats": "statistik",
    "Show my statistics": "Meine Statistik zeigen",
    "help": "hilfe",
    "How to read a board and type moves": "So liest du das Spielfeld und tippst Züge",
    # options
    "variant": "variante",
    "The game everyone plays": "Das Spiel, das alle spielen",
    "The game of the day": "Das Spiel des Tages",
    "The game to play": "Das Spiel",
    "The game": "Das Spiel",
    "start": "start",
    "How the race starts": "Wie das Rennen startet",
    "time_limit": "zeitlimit",
    "Time limit in minutes (none: until everyone is done)": (
        "Zeitlimit in Minuten (ohne: bis alle fertig sind)"
    ),
    "countdown": "countdown",
    "Countdown in seconds before the start (default 10; 60 with start Countdown)": (
        "Countdown in Sekunden vor dem Start (sonst 10; 60 bei Start Countdown)"
    ),
    "Allow undo": "Zurücknehmen erlauben",
    "hints": "tipps",
    "Allow hints": "Tipps erlauben",
    "passes": "runden",
    "Klondike: passes through the stock": "Klondike: Runden durch den Talon",
    "layout": "auslage",
    "Spider: how the deal is laid out": "Spider: wie ausgeteilt wird",
    "max_players": "spieler",
    "Most players": "Höchstens so viele Spieler",
    "thread": "thread",
    "A thread for the race, for its start and result (default: yes, if allowed)": (
        "Ein Thread zum Rennen: Start und Ergebnis kommen dorthin"
    ),
    "deal": "spielcode",
    "A deal code to replay (default: a new deal)": "Ein Spielcode (sonst ein neues Spiel)",
    "A deal code to race on (default: a secret new deal)": (
        "Ein Spielcode für das Rennen (sonst ein geheimes neues Spiel)"
    ),
    "The move (the list shows your legal moves)": "Der Zug (die Liste zeigt deine Züge)",
    "period": "zeitraum",
    "Today's deal or all time": "Heute oder insgesamt",
    "scope": "bereich",
    "Everyone or this server": "Alle oder dieser Server",
    "around_me": "um_mich",
    "Show the players around me": "Die Spieler um mich herum zeigen",
    # choices
    "Klondike (draw 1)": "Klondike (1 Karte ziehen)",
    "Klondike (draw 3)": "Klondike (3 Karten ziehen)",
    "Spider (1 suit)": "Spider (1 Farbe)",
    "Spider (2 suits)": "Spider (2 Farben)",
    "Spider (4 suits)": "Spider (4 Farben)",
    "Russian Solitaire": "Russische Patience",
    "Creator starts": "Start durch Ersteller",
    "Countdown": "Countdown",
    "Open start (join any time)": "Offener Start (jederzeit beitreten)",
    "Unlimited passes": "Unbegrenzte Runden",
    "1 pass": "1 Runde",
    "3 passes": "3 Runden",
    "Seed layout (5 per column)": "Klassisch (5 pro Spalte)",
    "Digital layout (6/5)": "Digital (6/5)",
    "Today": "Heute",
    "All time": "Insgesamt",
    "Everyone": "Alle",
    "This server": "Dieser Server",
    **ARENA_COMMANDS_DE,
}
