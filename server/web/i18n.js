// English and German texts of the page. The language follows the browser unless the
// player picked one with the switch (kept in localStorage); the server is told the
// same locale in hello, so its error messages match.

const TEXTS = {
  en: {
    title: "Solitaire Arena",
    practice: "Practice",
    race: "Race",
    newGame: "New game",
    undo: "Undo",
    hint: "Hint",
    finish: "Finish",
    giveUp: "Give up",
    language: "Deutsch",
    languageLabel: "Switch to German",
    variant: "Game",
    moves: "Moves",
    movesCount: "{n} moves",
    score: "Score",
    time: "Time",
    dealsLeft: "Deals left",
    stock: "Stock",
    stockCards: "Stock, {n} cards",
    stockEmpty: "Stock, empty: tap to turn the waste over",
    waste: "Waste",
    wasteCards: "Waste, {n} cards, top {card}",
    wasteEmpty: "Waste, empty",
    foundation: "Foundation {n}",
    foundationCards: "Foundation {n}, {count} cards, top {card}",
    foundationEmpty: "Foundation {n}, empty",
    runsRemoved: "Completed runs: {n}",
    column: "Column {n}",
    columnLabel: "Column {n}: {down} face-down, {up}",
    columnEmpty: "Column {n}, empty",
    faceDown: "face-down card",
    noUp: "no face-up cards",
    selected: "{card} selected: choose where it goes",
    tapToFinish: "Tap here or press Enter to finish",
    noMoves: "No more moves. Undo a few steps or start a new game.",
    won: "Solved in {moves} moves and {time}!",
    hintIs: "Hint: {move}",
    noHint: "No hint: nothing useful to move.",
    connecting: "Connecting…",
    offline: "Connection lost, reconnecting…",
    createRace: "Create a race",
    joinRace: "Join a race",
    raceCode: "Race code",
    join: "Join",
    create: "Create",
    passes: "Passes through the stock",
    unlimited: "unlimited",
    layout: "Layout",
    layoutSeed: "10 piles × 5",
    layoutDigital: "6 and 5 cards (classic app)",
    maxPlayers: "Players at most",
    countdown: "Countdown (s)",
    timeLimit: "Time limit (min, 0 = none)",
    allowUndo: "Undo allowed",
    allowHints: "Hints allowed",
    winnable: "Only winnable deals",
    lobby: "Race {id}: waiting for players",
    invite: "Invite: share this link or the code {id}",
    copyLink: "Copy link",
    copied: "Link copied",
    start: "Start",
    leave: "Leave",
    waitForCreator: "Waiting for the creator to start.",
    startsIn: "Starting in {n}",
    go: "Go!",
    standings: "Standings",
    you: "you",
    finished: "finished",
    resigned: "gave up",
    results: "Results of race {id}",
    rank: "#",
    player: "Player",
    cards: "Cards home",
    result: "Result",
    seed: "Seed",
    dealCode: "Deal code",
    commitment: "Commitment",
    verified: "checked: the deal was fixed before the start",
    notVerified: "does NOT match the revealed seed",
    playThisDeal: "Play this deal",
    newRace: "New race",
    endReason_all_done: "Everyone finished or gave up.",
    endReason_time_limit: "Time is up.",
    raceOver: "The race is over.",
    spectating: "You are watching this race.",
    variants: {
      klondike: "Klondike (draw 1)",
      "klondike-3": "Klondike (draw 3)",
      "spider-1": "Spider (1 suit)",
      "spider-2": "Spider (2 suits)",
      "spider-4": "Spider (4 suits)",
      yukon: "Yukon",
      russian: "Russian Solitaire",
      alaska: "Alaska",
    },
    ranks: { A: "Ace", J: "Jack", Q: "Queen", K: "King" },
    suits: { c: "clubs", d: "diamonds", h: "hearts", s: "spades" },
    cardName: "{rank} of {suit}",
  },
  de: {
    title: "Solitaire Arena",
    practice: "Üben",
    race: "Rennen",
    newGame: "Neues Spiel",
    undo: "Zurück",
    hint: "Tipp",
    finish: "Fertigspielen",
    giveUp: "Aufgeben",
    language: "English",
    languageLabel: "Auf Englisch umschalten",
    variant: "Spiel",
    moves: "Züge",
    movesCount: "{n} Züge",
    score: "Punkte",
    time: "Zeit",
    dealsLeft: "Reihen übrig",
    stock: "Stapel",
    stockCards: "Stapel, {n} Karten",
    stockEmpty: "Stapel leer: tippen, um den offenen Stapel umzudrehen",
    waste: "Offener Stapel",
    wasteCards: "Offener Stapel, {n} Karten, oben {card}",
    wasteEmpty: "Offener Stapel, leer",
    foundation: "Ablage {n}",
    foundationCards: "Ablage {n}, {count} Karten, oben {card}",
    foundationEmpty: "Ablage {n}, leer",
    runsRemoved: "Fertige Folgen: {n}",
    column: "Reihe {n}",
    columnLabel: "Reihe {n}: {down} verdeckt, {up}",
    columnEmpty: "Reihe {n}, leer",
    faceDown: "verdeckte Karte",
    noUp: "keine offenen Karten",
    selected: "{card} gewählt: wähle, wohin sie soll",
    tapToFinish: "Hier tippen oder Enter drücken zum Fertigspielen",
    noMoves: "Keine Züge mehr. Nimm ein paar Schritte zurück oder gib neu.",
    won: "Gelöst in {moves} Zügen und {time}!",
    hintIs: "Tipp: {move}",
    noHint: "Kein Tipp: nichts Sinnvolles zu ziehen.",
    connecting: "Verbinde…",
    offline: "Verbindung verloren, verbinde neu…",
    createRace: "Rennen eröffnen",
    joinRace: "Rennen beitreten",
    raceCode: "Renn-Code",
    join: "Beitreten",
    create: "Eröffnen",
    passes: "Durchgänge durch den Stapel",
    unlimited: "unbegrenzt",
    layout: "Auslage",
    layoutSeed: "10 Reihen × 5",
    layoutDigital: "6 und 5 Karten (klassische App)",
    maxPlayers: "Höchstens Spieler",
    countdown: "Countdown (s)",
    timeLimit: "Zeitlimit (min, 0 = keins)",
    allowUndo: "Zurück erlaubt",
    allowHints: "Tipps erlaubt",
    winnable: "Nur lösbare Spiele",
    lobby: "Rennen {id}: warte auf Mitspieler",
    invite: "Einladen: teile diesen Link oder den Code {id}",
    copyLink: "Link kopieren",
    copied: "Link kopiert",
    start: "Starten",
    leave: "Verlassen",
    waitForCreator: "Warte, bis der Gastgeber startet.",
    startsIn: "Start in {n}",
    go: "Los!",
    standings: "Stand",
    you: "du",
    finished: "fertig",
    resigned: "aufgegeben",
    results: "Ergebnis von Rennen {id}",
    rank: "#",
    player: "Spieler",
    cards: "Abgelegt",
    result: "Ergebnis",
    seed: "Seed",
    dealCode: "Spiel-Code",
    commitment: "Zusage",
    verified: "geprüft: das Spiel stand vor dem Start fest",
    notVerified: "passt NICHT zum aufgedeckten Seed",
    playThisDeal: "Dieses Spiel spielen",
    newRace: "Neues Rennen",
    endReason_all_done: "Alle sind fertig oder haben aufgegeben.",
    endReason_time_limit: "Die Zeit ist um.",
    raceOver: "Das Rennen ist vorbei.",
    spectating: "Du schaust diesem Rennen zu.",
    variants: {
      klondike: "Klondike (1 Karte)",
      "klondike-3": "Klondike (3 Karten)",
      "spider-1": "Spider (1 Farbe)",
      "spider-2": "Spider (2 Farben)",
      "spider-4": "Spider (4 Farben)",
      yukon: "Yukon",
      russian: "Russisch",
      alaska: "Alaska",
    },
    ranks: { A: "Ass", J: "Bube", Q: "Dame", K: "König" },
    suits: { c: "Kreuz", d: "Karo", h: "Herz", s: "Pik" },
    cardName: "{suit} {rank}",
  },
};

export const LANGUAGES = Object.keys(TEXTS);

/** The language the page starts in: the player's pick, else the browser's. */
export function initialLanguage(storage, navigatorLanguages) {
  const picked = storage.getItem("solitaire.lang");
  if (picked && TEXTS[picked]) return picked;
  for (const tag of navigatorLanguages || []) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (TEXTS[base]) return base;
  }
  return "en";
}

let current = "en";

export function setLanguage(lang) {
  current = TEXTS[lang] ? lang : "en";
  document.documentElement.lang = current;
}

export function language() {
  return current;
}

/** The text for ``key`` in the current language, with {name} filled from params. */
export function t(key, params = {}) {
  const text = TEXTS[current][key] ?? TEXTS.en[key] ?? key;
  return String(text).replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

export function variantName(variant) {
  return TEXTS[current].variants[variant] ?? variant;
}

/** A card code (``10d``, ``Qs``) as words for screen readers: "Queen of spades". */
export function cardName(code) {
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const texts = TEXTS[current];
  return t("cardName", { rank: texts.ranks[rank] ?? rank, suit: texts.suits[suit] ?? suit });
}
