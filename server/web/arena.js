// The arena page (arena.html): the arenas open now, and one arena (#arena=<id>): its
// clock, the standings the server pushes at most once a second, your line and streak,
// your next race, and the podium at the end. It speaks the public protocol
// (docs/protocol.md, "Arenas") over its own connection, as the same player as the main
// page (the guest token is shared through localStorage); a race is played on the main
// page (/#race=<id>), which the "Play your race" button opens.

import { Connection } from "./connection.js";
import { initialLanguage, language, pageTexts, setLanguage, VARIANTS, variantName } from "./i18n.js";

const TEXTS = {
  en: {
    home: "← Solitaire Arena", arenas: "Arenas", liveRaces: "Live races", ghosts: "Race a ghost", noArenas: "No arena right now: open one.",
    openArena: "Open an arena", variant: "Game", minutes: "Minutes", startsIn: "Starts in (minutes)",
    create: "Open", join: "Join", pause: "Pause", leave: "Leave", allArenas: "All arenas",
    open: "Open", playRace: "Play your race",
    rules: "A race scores the places you beat; after two won races in a row you are on fire (×2): every race scores double until one you do not win.",
    startsAt: "Starts in {time}", endsAt: "Ends in {time}", ending: "Last races…", finished: "Finished",
    rated: "rated", players: "{n} players", you: "You: #{rank} · {score} points · {races}",
    race1: "1 race", races: "{n} races", podium: "Podium",
    streak: "{n} won in a row", fire: "on fire: your next race scores double",
    waiting: "waiting", paired: "pairing", racing: "racing", paused: "paused",
    online: "", offline: "Connection lost: reconnecting…", arenaTitle: "{variant} arena · {minutes} min",
  },
  de: {
    home: "← Solitaire Arena", arenas: "Arenen", liveRaces: "Laufende Rennen", ghosts: "Gegen einen Geist", noArenas: "Gerade keine Arena: eröffne eine.",
    openArena: "Arena eröffnen", variant: "Spiel", minutes: "Minuten", startsIn: "Beginnt in (Minuten)",
    create: "Eröffnen", join: "Mitmachen", pause: "Pause", leave: "Verlassen", allArenas: "Alle Arenen",
    open: "Öffnen", playRace: "Zu deinem Rennen",
    rules: "Ein Rennen zählt die Plätze, die du schlägst; nach zwei gewonnenen Rennen in Folge bist du in Fahrt (×2): jedes Rennen zählt doppelt, bis du eines nicht gewinnst.",
    startsAt: "Beginnt in {time}", endsAt: "Endet in {time}", ending: "Letzte Rennen…", finished: "Beendet",
    rated: "gewertet", players: "{n} Spieler", you: "Du: #{rank} · {score} Punkte · {races}",
    race1: "1 Rennen", races: "{n} Rennen", podium: "Siegerpodest",
    streak: "{n} in Folge gewonnen", fire: "in Fahrt: dein nächstes Rennen zählt doppelt",
    waiting: "wartet", paired: "wird gepaart", racing: "im Rennen", paused: "Pause",
    online: "", offline: "Verbindung verloren: verbinde neu…", arenaTitle: "Arena {variant} · {minutes} Min.",
  },
};

const a = pageTexts(TEXTS);

const $ = (selector) => document.querySelector(selector);

setLanguage(initialLanguage(localStorage, navigator.languages));
for (const el of document.querySelectorAll("[data-a]")) el.textContent = a(el.dataset.a);
$("#arena-variant").innerHTML = VARIANTS.map((v) => `<option value="${v}">${variantName(v)}</option>`).join("");

const scheme = location.protocol === "https:" ? "wss" : "ws";
const connection = new Connection(`${scheme}://${location.host}/`, localStorage, language());
const page = { arena: null, lines: [], you: null, around: [], race: null };

connection.on("status", (status) => { $("#status").textContent = a(status); });
connection.on("welcome", () => route());
connection.on("arena_event", (message) => {
  if (!page.arena || message.arena !== page.arena.arena) return;
  const event = message.event;
  if (event.kind === "standings") {
    page.arena.players = event.players;
    page.lines = event.top;
    if (message.player === connection.player?.id) {
      page.you = event.you ?? null;
      page.around = event.around ?? [];
    }
  } else if (event.kind === "state") {
    page.arena.state = event.state;
    if (event.podium) page.arena.podium = event.podium;
  } else if (event.kind === "race") {
    page.race = event.race;
  } else if (event.kind === "scored" && page.race === event.race) {
    page.race = null;
  }
  draw();
});

function route() {
  const match = /^#arena=(\d+)$/.exec(location.hash);
  if (match) openArena(Number(match[1]));
  else showList();
}
window.addEventListener("hashchange", route);

async function showList() {
  page.arena = null;
  $("#arena").hidden = true;
  $("#arena-list").hidden = false;
  const reply = await connection.request("list_arenas");
  const list = $("#arenas");
  list.replaceChildren(...reply.arenas.map(arenaItem));
  $("#no-arenas").hidden = reply.arenas.length > 0;
}

function arenaItem(summary) {
  const item = document.createElement("li");
  item.dataset.arena = summary.arena;
  const what = document.createElement("span");
  what.className = "what";
  const name = document.createElement("strong");
  name.textContent = title(summary.settings);
  const when = document.createElement("span");
  when.className = "when";
  when.textContent = `${clockText(summary)} · ${a("players", { n: summary.players })}`;
  what.append(name, when);
  const open = document.createElement("a");
  open.className = "button";
  open.href = `#arena=${summary.arena}`;
  open.textContent = a("open");
  item.append(what, open);
  return item;
}

function title(settings) {
  const base = settings.title || a("arenaTitle", { variant: variantName(settings.variant), minutes: settings.minutes });
  return settings.rated ? `${base} · ${a("rated")}` : base;
}

async function openArena(id) {
  $("#arena-list").hidden = true;
  $("#arena").hidden = false;
  take((await connection.request("get_arena", { arena: id })).arena);
}

/** An ``arena`` reply's state: everything the page draws. */
function take(info) {
  page.arena = info;
  page.lines = info.top;
  page.you = info.you ?? null;
  page.around = info.around ?? [];
  page.race = info.your_race ?? null;
  draw();
}

function clockText(arena) {
  const now = connection.now();
  const span = (ms) => {
    const s = Math.max(0, Math.round(ms / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const text = `${String(m).padStart(h ? 2 : 1, "0")}:${String(s % 60).padStart(2, "0")}`;
    return h ? `${h}:${text}` : text;
  };
  if (arena.state === "finished") return a("finished");
  if (arena.state === "ending") return a("ending");
  if (arena.state === "upcoming") return a("startsAt", { time: span(arena.starts_at - now) });
  return a("endsAt", { time: span(arena.ends_at - now) });
}

function line(entry, mine) {
  const item = document.createElement("li");
  item.dataset.player = entry.player;
  if (mine) item.classList.add("me");
  const cells = [
    ["rank", `${entry.rank}`],
    ["name", entry.name],
    ["state", a(entry.status)],
    ["score", `${entry.score}`],
  ];
  for (const [kind, text] of cells) {
    const cell = document.createElement("span");
    cell.className = kind;
    cell.textContent = text;
    item.append(cell);
  }
  if (entry.fire) {
    const fire = document.createElement("span");
    fire.className = "fire";
    fire.textContent = "×2";
    fire.title = a("fire");
    item.querySelector(".name").append(" ", fire);
  }
  return item;
}

function draw() {
  const arena = page.arena;
  if (!arena) return;
  const me = connection.player?.id;
  $("#arena-title").textContent = title(arena.settings);
  $("#arena-clock").textContent = clockText(arena);
  const open = arena.state === "upcoming" || arena.state === "running";
  const you = page.you;
  $("#arena-join").hidden = !open || (you !== null && you.status !== "paused");
  $("#arena-pause").hidden = !open || you === null || you.status === "paused";
  $("#arena-leave").hidden = !open || you === null;
  let text = "";
  if (you) {
    const races = you.races === 1 ? a("race1") : a("races", { n: you.races });
    text = a("you", { rank: you.rank, score: you.score, races });
    if (you.fire) text += ` · ${a("fire")}`;
    else if (you.streak > 0) text += ` · ${a("streak", { n: you.streak })}`;
  }
  $("#arena-you").textContent = text;
  $("#arena-next").hidden = page.race === null || !open;
  if (page.race !== null) $("#arena-race").href = `/#race=${page.race}`;
  const shown = page.lines.map((entry) => line(entry, entry.player === me));
  const below = page.around.filter((entry) => !page.lines.some((top) => top.player === entry.player));
  if (below.length) {
    const gap = document.createElement("li");
    gap.className = "gap";
    gap.textContent = "…";
    shown.push(gap, ...below.map((entry) => line(entry, entry.player === me)));
  }
  $("#standings").replaceChildren(...shown);
  const podium = arena.state === "finished" ? arena.podium ?? [] : [];
  $("#podium").hidden = podium.length === 0;
  $("#podium-title").hidden = podium.length === 0;
  $("#podium").replaceChildren(...podium.map((entry) => line(entry, entry.player === me)));
}

async function act(type) {
  if (!page.arena) return;
  take((await connection.request(type, { arena: page.arena.arena })).arena);
}

$("#arena-join").addEventListener("click", () => act("join_arena").catch(report));
$("#arena-pause").addEventListener("click", () => act("pause_arena").catch(report));
$("#arena-leave").addEventListener("click", () => act("leave_arena").catch(report));

$("#create-arena").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#arena-error").textContent = "";
  try {
    const reply = await connection.request("create_arena", {
      variant: $("#arena-variant").value,
      minutes: Number($("#arena-minutes").value),
      starts_in_s: Math.round(Number($("#arena-starts").value) * 60),
    });
    location.hash = `#arena=${reply.arena.arena}`;
  } catch (error) {
    $("#arena-error").textContent = error.message;
  }
});

function report(error) {
  $("#status").textContent = error.message;
}

setInterval(() => {
  if (page.arena) $("#arena-clock").textContent = clockText(page.arena);
}, 1000);

connection.open().catch(() => {});
