// The page's start: language, the connection, and the screens (practice, races).
// The address says where the player is: "#race=12" is a race (an invite link),
// "#replay=12" its replays, "#replay=game:31" a daily or practice game's replay,
// "#deal=yukon:42" a practice game of that deal (a seed, or a deal code such as
// "1-3XRZ"), anything else is practice. Without the server, practice goes on with the
// rules in the page (local.js), and the service worker (sw.js) serves the page itself.

import { Activity, activityQuery } from "./activity.js";
import { Connection, TOKEN_KEY } from "./connection.js";
import { randomSeed, seedOf } from "./deal.js";
import { LOCAL_GAME, OfflinePractice, Outbox } from "./local.js";
import { GameController } from "./game.js";
import { initialLanguage, LANGUAGES, language, setLanguage, t, VARIANTS, variantName } from "./i18n.js";
import { DailyScreen } from "./daily.js";
import { RaceScreen } from "./race.js";
import { ReplayScreen } from "./replay.js";
import { AccountLine, takeSignInResult } from "./signin.js";
import { Settings, settingsDialog } from "./settings.js";
import { Sounds } from "./sound.js";
import { browserStorage } from "./storage.js";
import { PracticeStats } from "./stats.js";
import { applyOnlineTexts, difficultyHtml, OnlineScreen } from "./ratings.js";

const PRACTICE_KEY = "solitaire.practice";
// Practice on the server has every help, the solver's too ("still winnable?").
const PRACTICE_POLICY = { undo: true, hints: true, solver: true };
const $ = (selector) => document.querySelector(selector);

const live = $("#live");
function announce(text) {
  live.textContent = "";
  setTimeout(() => {
    live.textContent = text;
  }, 30);
}

const storage = browserStorage();
setLanguage(initialLanguage(storage, navigator.languages || [navigator.language]));
const settings = new Settings(storage);
const sounds = new Sounds(settings);
const stats = new PracticeStats(storage);
const outbox = new Outbox(storage, announce);
const offline = new OfflinePractice(storage, outbox);

// Back from signing in with Discord: its session token says hello from now on.
const signInFailure = takeSignInResult(storage);
const scheme = location.protocol === "https:" ? "wss" : "ws";
const connection = new Connection(`${scheme}://${location.host}/`, storage, language());
const account = new AccountLine(connection, $("#account"), storage, signInFailure);
const game = new GameController(
  connection,
  {
    board: $("#board"),
    counters: $("#counters"),
    message: $("#message"),
    undo: $("#undo"),
    hint: $("#hint"),
    finish: $("#finish"),
    check: $("#check"),
    jumpBack: $("#jump-back"),
    record: $("#record"),
  },
  announce,
  { settings, sounds, storage },
);
const race = new RaceScreen(connection, game, $("#race-panel"), announce, {
  showGame: (shown, state) => {
    $("#game").hidden = !shown;
    // A running race puts its standings beside the board on a wide screen (style.css).
    document.body.dataset.race = shown ? state : "";
  },
  practiceDeal: (variant, options, seed) => {
    history.replaceState(null, "", location.pathname + location.search);
    race.leave();
    startPractice(variant, options, seed).catch((error) => announce(error.message));
  },
  newRace: () => {
    if (activity) enterActivityRace();
    else location.hash = "#races";
  },
  // Inside Discord a rematch stays the Activity's race (activity.js).
  rematchFields: () => (activity ? { context: { discord_activity: activity.query.instanceId } } : {}),
});

const replays = new ReplayScreen(connection, $("#replay-panel"), announce);
const online = new OnlineScreen(connection, $("#online-panel"), announce);
const daily = new DailyScreen(
  connection,
  game,
  $("#daily-panel"),
  announce,
  (shown) => {
    $("#game").hidden = !shown;
  },
  // A past day's deal, played again as practice (archive.js).
  (variant, seed, label) => {
    history.replaceState(null, "", location.pathname + location.search);
    startPractice(variant, {}, seed, label).catch((error) => announce(error.message));
  },
);
game.onView = (view) => {
  daily.viewed(view);
  offerPracticeReplay(view);
  countPractice(view);
};
settingsDialog(settings, $("#settings"), $("#settings-open"));
// A table turned left-handed is laid out anew at once.
settings.onChange((name) => {
  if (name === "leftHanded" && game.view) game.board.draw();
});

// ---- practice statistics (stats.js) ---------------------------------------------------

/** Count a practice game's views: a game is its id, or offline its start. */
function countPractice(view) {
  const kept = JSON.parse(storage.getItem(PRACTICE_KEY) || "null");
  if (kept === null || kept.game !== game.game) return;
  const key = game.game === LOCAL_GAME ? `local:${view.started_at}` : String(game.game);
  stats.viewed(key, view);
  $("#stats-line").textContent = view.status === "won" ? stats.line(view.variant) : "";
  if (!$("#stats").hidden) showStats();
}

function showStats() {
  $("#stats").innerHTML = `<h2>${t("statistics")}</h2>${stats.tableHtml(VARIANTS)}`;
}

$("#stats-open").addEventListener("click", () => {
  const panel = $("#stats");
  panel.hidden = !panel.hidden;
  $("#stats-open").setAttribute("aria-expanded", String(!panel.hidden));
  if (!panel.hidden) showStats();
  if (game.view) game.board.draw(); // the table fits the room left
});

// A practice game played on the server, once over, replays beside the solver's win.
const practiceReplay = $("#practice-replay");
function offerPracticeReplay(view) {
  const kept = JSON.parse(storage.getItem(PRACTICE_KEY) || "null");
  const ours = kept !== null && kept.game === game.game && game.game !== LOCAL_GAME;
  practiceReplay.hidden = !(ours && (view.status === "won" || view.status === "resigned"));
  practiceReplay.querySelector("a").href = `#replay=game:${game.game}`;
}

// ---- texts --------------------------------------------------------------------------

function applyTexts() {
  document.title = t("title");
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const el of document.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(el.dataset.tLabel));
  const lang = $("#lang");
  lang.innerHTML = `<span class="wide">${t("language")}</span><span class="narrow">${t("languageShort")}</span>`;
  lang.setAttribute("aria-label", t("languageLabel"));
  for (const select of document.querySelectorAll("select[data-variants]")) {
    const chosen = select.value;
    select.innerHTML = VARIANTS.map((v) => `<option value="${v}">${variantName(v)}</option>`).join("");
    if (chosen) select.value = chosen;
  }
  applyOnlineTexts();
  if (game.view) game.update(game.view);
  if (race.race) race.changed();
  // The daily panel is drawn from the server's reply: drawn again in the new language.
  if (!$("#daily-panel").hidden) daily.refreshBoard().catch((error) => announce(error.message));
  account.render();
  if (!$("#stats").hidden) showStats();
}

$("#lang").addEventListener("click", () => {
  const next = LANGUAGES[(LANGUAGES.indexOf(language()) + 1) % LANGUAGES.length];
  storage.setItem("solitaire.lang", next);
  setLanguage(next);
  connection.locale = next;
  applyTexts();
  // The server speaks the player's language from now on (hello says it after a reconnect).
  if (connection.online) connection.request("set_profile", { locale: next }).catch(() => {});
});

// A guest's name, as the other racers and the boards see it (races already joined keep
// the name they were joined with).
const profileForm = $("#profile");
profileForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#profile-error").textContent = "";
  try {
    const reply = await connection.request("set_profile", { name: profileForm.name.value });
    connection.player = { ...connection.player, name: reply.player.name };
    profileForm.name.value = reply.player.name;
    announce(t("nameSaved", { name: reply.player.name }));
  } catch (error) {
    $("#profile-error").textContent = error.message;
  }
});

// ---- screens ------------------------------------------------------------------------

function show(screen) {
  if (screen !== "race") document.body.dataset.race = "";
  for (const el of document.querySelectorAll("[data-screen]")) el.hidden = el.dataset.screen !== screen;
  for (const tab of document.querySelectorAll("[data-tab]")) {
    const current = tab.dataset.tab === screen || (screen === "race" && tab.dataset.tab === "races");
    tab.setAttribute("aria-current", current ? "page" : "false");
  }
  if (screen === "practice") $("#game").hidden = false;
  if (["races", "daily", "replay", "online"].includes(screen)) $("#game").hidden = true;
}

function route() {
  const match = /^#race=(\d+)$/.exec(location.hash);
  if (match) {
    show("race");
    race.open(Number(match[1])).catch((error) => announce(error.message));
    return;
  }
  race.leave();
  replays.stop();
  const replay = /^#replay=(game:)?(\d+)$/.exec(location.hash);
  if (replay) {
    show("replay");
    const id = Number(replay[2]);
    (replay[1] ? replays.openGame(id) : replays.open(id)).catch((error) => announce(error.message));
    return;
  }
  const deal = /^#deal=([a-z0-9-]+):([0-9A-Za-z-]+)$/.exec(location.hash);
  if (deal) {
    history.replaceState(null, "", location.pathname + location.search);
    startPractice(deal[1], {}, seedOf(deal[2])).catch((error) => announce(error.message));
    return;
  }
  if (location.hash === "#races") {
    show("races");
    return;
  }
  if (location.hash === "#online") {
    show("online");
    online.open().catch((error) => announce(error.message));
    return;
  }
  if (location.hash === "#daily") {
    show("daily");
    daily.open().catch((error) => announce(error.message));
    return;
  }
  show("practice");
  resumePractice();
}

window.addEventListener("hashchange", route);

// ---- practice -----------------------------------------------------------------------

/** A new practice game (``seed``: that deal; ``label``: what it is, shown above the
 * table, such as a past day's daily played again). */
async function startPractice(variant, options = {}, seed = null, label = "") {
  show("practice");
  $("#variant").value = variant;
  $("#practice-label").textContent = label;
  stats.replaced();
  if (connection.online) {
    const fields = { variant, options };
    if (seed !== null) fields.seed = seed;
    else if ($("#difficulty").value) fields.difficulty = $("#difficulty").value;
    try {
      const reply = await connection.request("practice", fields);
      $("#practice-difficulty").innerHTML = difficultyHtml(reply.difficulty);
      storage.setItem(PRACTICE_KEY, JSON.stringify({ game: reply.game, variant }));
      game.load(reply.game, reply.view, PRACTICE_POLICY);
      showStatus();
      return;
    } catch (error) {
      if (error.code) throw error; // refused by the server; a lost connection plays here
    }
  }
  const reply = offline.start(variant, options, seed ?? randomSeed());
  storage.setItem(PRACTICE_KEY, JSON.stringify({ game: LOCAL_GAME, variant }));
  game.load(LOCAL_GAME, reply.view, { undo: true, hints: true }, offline);
  showStatus();
}

/** Back to the practice game left on this device, if it is still being played. */
async function resumePractice() {
  const kept = JSON.parse(storage.getItem(PRACTICE_KEY) || "null");
  const variant = kept?.variant ?? $("#variant").value ?? VARIANTS[0];
  if (kept?.game === LOCAL_GAME) {
    const reply = offline.resume();
    if (reply) {
      $("#variant").value = kept.variant;
      game.load(LOCAL_GAME, reply.view, { undo: true, hints: true }, offline);
      showStatus();
      return;
    }
  } else if (kept?.game && connection.online) {
    try {
      const reply = await connection.request("get_view", { game: kept.game });
      if (reply.view.status === "playing") {
        $("#variant").value = kept.variant;
        game.load(kept.game, reply.view, PRACTICE_POLICY);
        return;
      }
    } catch {
      // gone (another database) or not ours: a new game below
    }
  }
  await startPractice(variant);
}

$("#new-game").addEventListener("click", () => startPractice($("#variant").value));
$("#stats-open").setAttribute("aria-expanded", "false");
$("#variant").addEventListener("change", () => startPractice($("#variant").value));

// ---- races --------------------------------------------------------------------------

function raceOptions(form) {
  const variant = form.variant.value;
  if (variant.startsWith("klondike")) return { passes: Number(form.passes.value) };
  if (variant.startsWith("spider")) return { layout: form.layout.value };
  return {};
}

function showOptionFields(form) {
  const variant = form.variant.value;
  form.querySelector("[data-option=passes]").hidden = !variant.startsWith("klondike");
  form.querySelector("[data-option=layout]").hidden = !variant.startsWith("spider");
}

const createForm = $("#create-race");
createForm.variant.addEventListener("change", () => showOptionFields(createForm));
createForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const f = createForm;
  const minutes = Number(f.time_limit.value);
  try {
    await connection.ready;
    show("race");
    await race.create({
      variant: f.variant.value,
      options: raceOptions(f),
      max_players: Number(f.max_players.value),
      countdown_s: Number(f.countdown.value),
      time_limit_s: minutes > 0 ? minutes * 60 : null,
      allow_undo: f.allow_undo.checked,
      allow_hints: f.allow_hints.checked,
      require_winnable: f.require_winnable.checked,
    });
    history.replaceState(null, "", `#race=${race.id}`);
  } catch (error) {
    show("races");
    announce(error.message);
    $("#race-error").textContent = error.message;
  }
});

$("#join-race").addEventListener("submit", (event) => {
  event.preventDefault();
  const code = $("#join-race").code.value.trim().replace(/^.*#race=/, "");
  if (/^\d+$/.test(code)) location.hash = `#race=${code}`;
});

// ---- start --------------------------------------------------------------------------

/** The status line: connecting, lost, or practice going on in the page. */
function showStatus() {
  let text = "";
  if (!connection.online) text = game.table === offline ? t("offlinePractice") : t("offline");
  $("#status").textContent = text;
  document.body.dataset.online = connection.online ? "yes" : "no";
}

// ---- inside Discord (activity.js) ------------------------------------------------------

const inDiscord = activityQuery();
const activity = inDiscord ? new Activity(inDiscord, storage, TOKEN_KEY) : null;

/** The Activity's race: found or created by the server for its instance, then shown. */
function enterActivityRace() {
  return activity
    .race(connection, $("#variant").value || VARIANTS[0])
    .then((id) => history.replaceState(null, "", `${location.pathname}${location.search}#race=${id}`))
    .catch((error) => announce(error.message))
    .finally(route);
}

let started = false;
connection.on("status", (status) => {
  showStatus();
  // No server at the first try: the page (from the service worker) plays on its own.
  if (status === "offline" && !started) {
    started = true;
    route();
  }
});

connection.on("welcome", (welcome) => {
  if (document.activeElement !== profileForm.name) profileForm.name.value = welcome.player.name;
  outbox.flush(connection);
  if (!started) {
    started = true;
    if (activity) enterActivityRace();
    else route();
  } else if (game.game && !race.race) {
    game.act("get_view");
  }
});

applyTexts();
showOptionFields(createForm);
// The service worker keeps the page's files for a start without the server.
navigator.serviceWorker?.register("/sw.js").catch(() => {});
$("#status").textContent = t("connecting");
// Inside Discord the player signs in first, so the hello already carries their token.
(activity ? activity.start() : Promise.resolve("")).then((why) => {
  document.body.dataset.activity = activity ? (activity.signedIn ? "signed-in" : `guest: ${why}`) : "";
  connection.open().catch(() => {});
});
