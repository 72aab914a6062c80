// The watch page (watch.html): the live races anyone may watch (`list_live_races`), and
// one race (#race=<id>, also a private race's invitation): its standings as its events
// come, and any racer's board (`watch_race` with the racer), drawn by board.js without
// taps. The server decides everything shown: a board carries face-down cards only as
// counts, and a ranked race reaches watchers `delay_ms` late (docs/arena.md,
// "Watching"); this page only draws what it is sent.

import { Board } from "./board.js";
import { Connection } from "./connection.js";
import { clock } from "./game.js";
import { initialLanguage, language, pageTexts, setLanguage, variantName } from "./i18n.js";

const TEXTS = {
  en: {
    home: "← Solitaire Arena", liveRaces: "Live races", noRaces: "No race is running right now.",
    byInvite: "Watch a race you were invited to", raceCode: "Race code", watch: "Watch",
    allRaces: "All live races", players: "{n} players", arena: "arena {arena}",
    lobby: "waiting for players", countdown: "starting", running: "running", finished: "finished",
    raceTitle: "{variant} · race {race}",
    delayed: "Shown {s} s behind, so that nobody can coach a racer.", live: "Shown live.",
    endsIn: "Ends in {time}", ended: "Finished", startsSoon: "Starting…", underWay: "Under way", waitingPlayers: "Waiting for players",
    board: "Board", boardOf: "{name}'s board", cards: "{n} cards home", card1: "1 card home", moves: "{n} moves", move1: "1 move",
    won: "won in {time}", gaveUp: "gave up", playing: "playing", you: "you",
    online: "", offline: "Connection lost: reconnecting…",
  },
  de: {
    home: "← Solitaire Arena", liveRaces: "Laufende Rennen", noRaces: "Gerade läuft kein Rennen.",
    byInvite: "Ein Rennen ansehen, zu dem du eingeladen bist", raceCode: "Renn-Code", watch: "Ansehen",
    allRaces: "Alle laufenden Rennen", players: "{n} Spieler", arena: "Arena {arena}",
    lobby: "wartet auf Spieler", countdown: "beginnt", running: "läuft", finished: "beendet",
    raceTitle: "{variant} · Rennen {race}",
    delayed: "{s} s verzögert gezeigt, damit niemand einem Spieler einsagen kann.", live: "Live gezeigt.",
    endsIn: "Endet in {time}", ended: "Beendet", startsSoon: "Beginnt…", underWay: "Läuft", waitingPlayers: "Wartet auf Spieler",
    board: "Spielfeld", boardOf: "Spielfeld von {name}", cards: "{n} Karten abgelegt", card1: "1 Karte abgelegt", moves: "{n} Züge", move1: "1 Zug",
    won: "gewonnen in {time}", gaveUp: "aufgegeben", playing: "spielt", you: "du",
    online: "", offline: "Verbindung verloren: verbinde neu…",
  },
};

const w = pageTexts(TEXTS);

const $ = (selector) => document.querySelector(selector);

/** A standing's counts: cards on the foundations and moves. */
function counts(standing) {
  const cards = standing.foundation === 1 ? w("card1") : w("cards", { n: standing.foundation });
  const moves = standing.moves === 1 ? w("move1") : w("moves", { n: standing.moves });
  return `${cards} · ${moves}`;
}

setLanguage(initialLanguage(localStorage, navigator.languages));
document.documentElement.lang = language();
for (const el of document.querySelectorAll("[data-w]")) el.textContent = w(el.dataset.w);

const scheme = location.protocol === "https:" ? "wss" : "ws";
const connection = new Connection(`${scheme}://${location.host}/`, localStorage, language());
const board = new Board($("#board"), () => {}, () => {});
// The race watched: its settings and state, each racer's standing, the live order.
const page = { race: null, state: null, settings: null, endsAt: null, standings: new Map(), order: [], racer: null };

connection.on("status", (status) => { $("#status").textContent = w(status); });
connection.on("welcome", () => route());
connection.on("event", (message) => {
  if (message.race !== page.race) return;
  follow(message.event);
  draw();
});
connection.on("watch_board", (message) => {
  if (message.race === page.race && message.player === page.racer) showBoard(message.board);
});

function route() {
  const match = /^#race=(\d+)$/.exec(location.hash);
  if (match) watch(Number(match[1]), null).catch(report);
  else showList().catch(report);
}
window.addEventListener("hashchange", route);

async function showList() {
  if (page.race !== null) connection.request("unwatch_race", { race: page.race }).catch(() => {});
  page.race = null;
  $("#watching").hidden = true;
  $("#race-list").hidden = false;
  const reply = await connection.request("list_live_races", { limit: 50 });
  $("#live-races").replaceChildren(...reply.races.map(raceItem));
  $("#no-races").hidden = reply.races.length > 0;
}

function raceItem(race) {
  const item = document.createElement("li");
  item.dataset.race = race.race;
  const what = document.createElement("span");
  what.className = "what";
  const name = document.createElement("strong");
  name.textContent = w("raceTitle", { variant: variantName(race.variant), race: race.race });
  const about = document.createElement("span");
  about.className = "when";
  const parts = [w(race.state), w("players", { n: race.players })];
  if (race.arena) parts.push(w("arena", { arena: race.arena }));
  about.textContent = parts.join(" · ");
  what.append(name, about);
  const link = document.createElement("a");
  link.className = "button";
  link.href = `#race=${race.race}`;
  link.textContent = w("watch");
  item.append(what, link);
  return item;
}

/** Watch ``race`` (and ``racer``'s board, when given): the reply is the race as its
 * watchers may see it now; its events and the board's changes follow. */
async function watch(race, racer) {
  $("#race-list").hidden = true;
  $("#watching").hidden = false;
  $("#watch-error").textContent = "";
  const fields = racer === null ? { race } : { race, player: racer };
  const reply = await connection.request("watch_race", fields);
  page.race = reply.race;
  page.state = reply.state;
  page.settings = reply.settings;
  page.endsAt = reply.ends_at ?? null;
  page.delay = reply.delay_ms;
  page.standings = new Map(reply.players.map((s) => [s.player, s]));
  page.order = reply.players.map((s) => s.player);
  page.racer = reply.player ?? null;
  if (reply.board) showBoard(reply.board);
  else {
    $("#board").replaceChildren();
    $("#watch-board-title").hidden = true;
  }
  draw();
}

/** A race event, as every racer gets it: the standings change with it. */
function follow(event) {
  if (event.kind === "lobby") {
    for (const player of event.players) {
      if (!page.standings.has(player.id)) {
        page.standings.set(player.id, { player: player.id, name: player.name, foundation: 0, moves: 0, finished: false, resigned: false, time_ms: null });
        page.order.push(player.id);
      }
    }
  } else if (event.kind === "countdown") page.state = "countdown";
  else if (event.kind === "start") {
    page.state = "running";
    page.endsAt = event.ends_at ?? null;
  } else if (event.kind === "progress") {
    for (const standing of event.standings) page.standings.set(standing.player, standing);
    if (event.order) page.order = event.order;
  } else if (event.kind === "finish") {
    const standing = page.standings.get(event.player);
    if (standing) Object.assign(standing, { finished: true, time_ms: event.time_ms, moves: event.moves });
  } else if (event.kind === "end") {
    page.state = "finished";
    for (const line of event.ranking) page.standings.set(line.player, line);
    page.order = event.ranking.map((line) => line.player);
  }
}

function showBoard(racerBoard) {
  const view = { ...racerBoard, variant: page.settings.variant };
  // Spider's stock is dealt ten cards at a time: its badge counts the deals left.
  if (view.waste === null && view.stock !== null) view.deals_left = Math.ceil(view.stock / 10);
  board.show(view, false);
  const name = page.standings.get(page.racer)?.name ?? "";
  $("#watch-board-title").textContent = w("boardOf", { name });
  $("#watch-board-title").hidden = false;
}

function stateText() {
  if (page.state === "finished") return w("ended");
  if (page.state === "lobby") return w("waitingPlayers");
  if (page.state === "countdown") return w("startsSoon");
  if (page.endsAt === null) return w("underWay");
  const left = Math.max(0, page.endsAt - connection.now() + (page.delay ?? 0));
  return w("endsIn", { time: clock(left) });
}

function standingLine(standing, place) {
  const item = document.createElement("li");
  item.dataset.player = standing.player;
  if (standing.player === page.racer) item.classList.add("me");
  const result = standing.finished
    ? w("won", { time: clock(standing.time_ms ?? 0) })
    : standing.resigned ? w("gaveUp") : w("playing");
  const cells = [
    ["rank", `${place}`],
    ["name", standing.player === connection.player?.id ? `${standing.name} (${w("you")})` : standing.name],
    ["state", `${counts(standing)} · ${result}`],
  ];
  for (const [kind, text] of cells) {
    const cell = document.createElement("span");
    cell.className = kind;
    cell.textContent = text;
    item.append(cell);
  }
  const show = document.createElement("button");
  show.type = "button";
  show.className = "show-board";
  show.textContent = w("board");
  show.setAttribute("aria-pressed", String(standing.player === page.racer));
  show.addEventListener("click", () => watch(page.race, standing.player).catch(report));
  item.append(show);
  return item;
}

function draw() {
  if (page.race === null) return;
  $("#watch-title").textContent = w("raceTitle", { variant: variantName(page.settings.variant), race: page.race });
  $("#watch-state").textContent = stateText();
  $("#watch-delay").textContent = page.delay ? w("delayed", { s: Math.round(page.delay / 1000) }) : w("live");
  const ordered = [...page.order, ...[...page.standings.keys()].filter((id) => !page.order.includes(id))];
  const lines = ordered.filter((id) => page.standings.has(id)).map((id, i) => standingLine(page.standings.get(id), i + 1));
  $("#watch-standings").replaceChildren(...lines);
}

$("#watch-code").addEventListener("submit", (event) => {
  event.preventDefault();
  const code = $("#watch-race-code").value.trim();
  if (/^\d+$/.test(code)) location.hash = `#race=${code}`;
});

function report(error) {
  $("#watch-error").textContent = error.message;
}

setInterval(() => {
  if (page.race !== null) $("#watch-state").textContent = stateText();
}, 1000);
// The list of live races is looked at again every 10 s while it is shown.
setInterval(() => {
  if (page.race === null && !$("#race-list").hidden && connection.online) showList().catch(() => {});
}, 10_000);

connection.open().catch(() => {});
