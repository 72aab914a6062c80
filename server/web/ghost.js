// The ghost race page (ghost.html): race a stored game's ghost (`ghost_race`), the best
// game of a closed day's daily deal (#daily=<variant>/<date>) or your own best on a
// deal (#game=<id>, one of your games), and follow it (#race=<id>, `get_ghost`): your
// standing and the ghost's side by side as the server sends them (`ghost_event`), and
// at the end whether you beat it (`ghost_result`). The race itself is played on the
// main page (/#race=<id>), as an arena's races are; the server times the ghost, ranks
// the two and decides the result (docs/arena.md, "Ghost races").

import { Connection } from "./connection.js";
import { clock } from "./game.js";
import { initialLanguage, language, pageTexts, setLanguage, VARIANTS, variantName } from "./i18n.js";

const TEXTS = {
  en: {
    home: "← Solitaire Arena", ghostRace: "Race a ghost",
    about: "Race a stored game as if its player raced beside you: the best game of a closed day's daily deal, or your own best game on a deal (from your attempts on the daily page). It never counts as a daily attempt.",
    dailyBest: "Race the daily's best", variant: "Game", day: "Day", race: "Race", playRace: "Play your race",
    titleDaily: "{variant} · the best of {date}: {name}", titleOwn: "{variant} · your best on this deal",
    ghostName: "{name}'s ghost", you: "You",
    startsIn: "Starts in {time}", racing: "{time}", over: "Race over",
    cards: "{n} cards home", card1: "1 card home", moves: "{n} moves", move1: "1 move", won: "won in {time}", gaveUp: "gave up", playing: "playing",
    beat: "You beat the ghost!", lost: "The ghost won.",
    beatWhy: "You: {you}. Ghost: {ghost}.", raceYours: "Race your own best on this deal",
    online: "", offline: "Connection lost: reconnecting…",
  },
  de: {
    home: "← Solitaire Arena", ghostRace: "Gegen einen Geist",
    about: "Spiele gegen ein gespeichertes Spiel, als ob sein Spieler neben dir spielte: das beste Spiel eines abgeschlossenen Tagesspiels oder dein eigenes bestes Spiel auf einem Deal (bei deinen Versuchen auf der Tagesspiel-Seite). Es zählt nie als Versuch am Tagesspiel.",
    dailyBest: "Gegen das Beste des Tages", variant: "Spiel", day: "Tag", race: "Los", playRace: "Zu deinem Rennen",
    titleDaily: "{variant} · das Beste vom {date}: {name}", titleOwn: "{variant} · dein bestes Spiel auf diesem Deal",
    ghostName: "Geist von {name}", you: "Du",
    startsIn: "Beginnt in {time}", racing: "{time}", over: "Rennen vorbei",
    cards: "{n} Karten abgelegt", card1: "1 Karte abgelegt", moves: "{n} Züge", move1: "1 Zug", won: "gewonnen in {time}", gaveUp: "aufgegeben", playing: "spielt",
    beat: "Du hast den Geist geschlagen!", lost: "Der Geist hat gewonnen.",
    beatWhy: "Du: {you}. Geist: {ghost}.", raceYours: "Gegen dein eigenes Bestes auf diesem Deal",
    online: "", offline: "Verbindung verloren: verbinde neu…",
  },
};

const g = pageTexts(TEXTS);

const $ = (selector) => document.querySelector(selector);

/** A standing's counts: cards on the foundations and moves. */
function counts(standing) {
  const cards = standing.foundation === 1 ? g("card1") : g("cards", { n: standing.foundation });
  const moves = standing.moves === 1 ? g("move1") : g("moves", { n: standing.moves });
  return `${cards} · ${moves}`;
}

setLanguage(initialLanguage(localStorage, navigator.languages));
document.documentElement.lang = language();
for (const el of document.querySelectorAll("[data-g]")) el.textContent = g(el.dataset.g);
$("#ghost-variant").innerHTML = VARIANTS.map((v) => `<option value="${v}">${variantName(v)}</option>`).join("");
$("#ghost-date").value = new Date(Date.now() - 2 * 86400_000).toISOString().slice(0, 10);

const scheme = location.protocol === "https:" ? "wss" : "ws";
const connection = new Connection(`${scheme}://${location.host}/`, localStorage, language());
// The ghost race followed: the race as replied, your standing, the ghost's, the order.
const page = { race: null, ghost: null, you: null, standing: null, order: [], result: null };

connection.on("status", (status) => { $("#status").textContent = g(status); });
connection.on("welcome", () => route());
connection.on("event", (message) => {
  if (!page.race || message.race !== page.race.race) return;
  const event = message.event;
  const me = connection.player?.id;
  if (event.kind === "countdown") page.race.starts_at = event.starts_at;
  else if (event.kind === "start") Object.assign(page.race, { state: "running", starts_at: event.at, ends_at: event.ends_at ?? null });
  else if (event.kind === "progress") page.you = event.standings.find((s) => s.player === me) ?? page.you;
  else if (event.kind === "finish" && event.player === me) Object.assign(page.you, { finished: true, time_ms: event.time_ms, moves: event.moves });
  else if (event.kind === "end") {
    page.race.state = "finished";
    page.you = event.ranking.find((line) => line.player === me) ?? page.you;
  }
  draw();
});
connection.on("ghost_event", (message) => {
  if (!page.race || message.race !== page.race.race) return;
  page.standing = message.standing;
  page.order = message.order;
  draw();
});
connection.on("ghost_result", (message) => {
  if (!page.race || message.race !== page.race.race) return;
  page.result = message.result;
  draw();
});

function route() {
  const hash = location.hash;
  const daily = /^#daily=([a-z0-9-]+)\/(\d{4}-\d\d-\d\d)$/.exec(hash);
  const game = /^#game=(\d+)$/.exec(hash);
  const race = /^#race=(\d+)$/.exec(hash);
  $("#ghost-error").textContent = "";
  if (daily) start({ variant: daily[1], date: daily[2] });
  else if (game) start({ game: Number(game[1]) });
  else if (race) follow(connection.request("get_ghost", { race: Number(race[1]) }));
  else {
    page.race = null;
    $("#ghost").hidden = true;
    $("#ghost-start").hidden = false;
  }
}
window.addEventListener("hashchange", route);

/** Start a ghost race; the address then names the race, so a reload follows it. */
function start(fields) {
  follow(connection.request("ghost_race", fields).then((reply) => {
    history.replaceState(null, "", `#race=${reply.race.race}`);
    return reply;
  }));
}

async function follow(request) {
  try {
    const reply = await request;
    page.race = reply.race;
    page.ghost = reply.ghost;
    page.standing = reply.standing;
    page.you = reply.race.players.find((s) => s.player === connection.player?.id) ?? reply.race.players[0];
    page.result = reply.result ?? null;
    $("#ghost-start").hidden = true;
    $("#ghost").hidden = false;
    draw();
  } catch (error) {
    $("#ghost-error").textContent = error.message;
  }
}

function result(standing) {
  if (standing.finished) return g("won", { time: clock(standing.time_ms ?? 0) });
  return standing.resigned ? g("gaveUp") : g("playing");
}

function line(standing, name, place, kind) {
  const item = document.createElement("li");
  item.dataset.side = kind;
  if (kind === "you") item.classList.add("me");
  const cells = [
    ["rank", `${place}`],
    ["name", name],
    ["state", `${counts(standing)} · ${result(standing)}`],
  ];
  for (const [cls, text] of cells) {
    const cell = document.createElement("span");
    cell.className = cls;
    cell.textContent = text;
    item.append(cell);
  }
  return item;
}

function clockText() {
  const race = page.race;
  if (race.state === "finished") return g("over");
  const now = connection.now();
  if (race.starts_at && now < race.starts_at) return g("startsIn", { time: clock(race.starts_at - now) });
  return race.starts_at ? g("racing", { time: clock(now - race.starts_at) }) : "";
}

function draw() {
  if (!page.race) return;
  const settings = page.race.settings;
  const ghost = page.ghost;
  $("#ghost-title").textContent = ghost.source === "daily"
    ? g("titleDaily", { variant: variantName(settings.variant), date: ghost.date, name: ghost.name })
    : g("titleOwn", { variant: variantName(settings.variant) });
  $("#ghost-clock").textContent = clockText();
  const me = page.you?.player;
  const ghostFirst = page.order.length ? page.order[0] === 0 : false;
  const you = line(page.you, g("you"), ghostFirst ? 2 : 1, "you");
  const them = line(page.standing, g("ghostName", { name: ghost.name }), ghostFirst ? 1 : 2, "ghost");
  $("#ghost-standings").replaceChildren(...(ghostFirst ? [them, you] : [you, them]));
  $("#ghost-race-link").href = `/#race=${page.race.race}`;
  $("#ghost-play").hidden = page.race.state === "finished" || me === undefined;
  const shown = page.result;
  $("#ghost-result").hidden = !shown;
  if (shown) {
    $("#ghost-result").textContent = `${shown.beat ? g("beat") : g("lost")} ${g("beatWhy", { you: result(shown.you), ghost: result(shown.ghost) })}`;
    $("#ghost-result").classList.toggle("beat", shown.beat);
  }
  // Won: this game is one of yours on the deal, so your own best there can be raced.
  const won = Boolean(shown?.you.finished && page.race.your_game);
  $("#ghost-again").hidden = !won;
  if (won) $("#ghost-yours").href = `#game=${page.race.your_game}`;
}

$("#ghost-daily").addEventListener("submit", (event) => {
  event.preventDefault();
  location.hash = `#daily=${$("#ghost-variant").value}/${$("#ghost-date").value}`;
});

setInterval(() => {
  if (page.race) $("#ghost-clock").textContent = clockText();
}, 1000);

connection.open().catch(() => {});
