// Play online: quick match (find a race with players of close ratings), your ratings per
// variant with a small chart of each one's history, and the rating boards; and the
// difficulty badge of a deal (daily, practice). Speaks only the public protocol:
// find_race, cancel_find, match_found, player_ratings, leaderboard (docs/protocol.md,
// "Ratings and quick match"); docs/ratings.md says what the numbers mean.

import { language, t, VARIANTS, variantName } from "./i18n.js";

const BANDS = ["easy", "medium", "hard"];

const TEXTS = {
  en: {
    online: "Online",
    quickMatch: "Quick match",
    quickMatchHelp: "Race players of about your strength on a deal dealt by the server.",
    anyDeal: "any deal",
    easy: "easy",
    medium: "medium",
    hard: "hard",
    rated: "Rated",
    ratedNeedsSignIn: "Rated races are for signed-in players.",
    find: "Find a race",
    cancel: "Stop looking",
    looking: "Looking for players… {time}",
    yourRatings: "Your ratings",
    noRatings: "No rating yet: play rated races (or the daily deal, signed in) to get one.",
    provisional: "provisional",
    ratedGames: "{games} rated",
    board: "Rating board",
    boardEmpty: "Nobody on this board yet.",
    stillProvisional: "{count} still provisional",
    difficulty: "Difficulty",
    dealRating: "deal rated {rating}",
    chart: "Rating history",
    rank: "#",
    player: "Player",
    ratingHead: "Rating",
    deviationHead: "±",
    ratedHead: "Rated games",
  },
  de: {
    online: "Online",
    quickMatch: "Schnelles Rennen",
    quickMatchHelp: "Spiele gegen etwa gleich Starke, auf einem Blatt, das der Server gibt.",
    anyDeal: "jedes Blatt",
    easy: "leicht",
    medium: "mittel",
    hard: "schwer",
    rated: "Gewertet",
    ratedNeedsSignIn: "Gewertete Rennen gibt es nur angemeldet.",
    find: "Rennen suchen",
    cancel: "Suche beenden",
    looking: "Suche Mitspieler… {time}",
    yourRatings: "Deine Wertungen",
    noRatings: "Noch keine Wertung: spiele gewertete Rennen (oder angemeldet das Tagesspiel).",
    provisional: "vorläufig",
    ratedGames: "{games} gewertet",
    board: "Wertungsliste",
    boardEmpty: "Noch niemand auf dieser Liste.",
    stillProvisional: "{count} noch vorläufig",
    difficulty: "Schwierigkeit",
    dealRating: "Blatt-Wertung {rating}",
    chart: "Verlauf der Wertung",
    rank: "#",
    player: "Spieler",
    ratingHead: "Wertung",
    deviationHead: "±",
    ratedHead: "Gewertete Spiele",
  },
};

/** A text of this screen in the page's language. */
export function say(key, params = {}) {
  const table = TEXTS[language()] || TEXTS.en;
  return (table[key] ?? TEXTS.en[key]).replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
}

const escape = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** This screen's texts on the page's own elements (the tab, the practice difficulty). */
export function applyOnlineTexts() {
  for (const el of document.querySelectorAll("[data-online-t]")) el.textContent = say(el.dataset.onlineT);
  for (const select of document.querySelectorAll("select[data-difficulties]")) {
    const chosen = select.value;
    select.innerHTML = ["", ...BANDS]
      .map((b) => `<option value="${b}">${escape(b ? say(b) : say("anyDeal"))}</option>`)
      .join("");
    select.value = chosen;
  }
}

/** A deal's difficulty as a small badge ("hard · deal rated 1721"), or "" without one. */
export function difficultyHtml(difficulty) {
  if (!difficulty) return "";
  const title = say("dealRating", { rating: difficulty.rating });
  return `<span class="difficulty ${difficulty.band}" title="${escape(title)}">${escape(say(difficulty.band))}</span>`;
}

/** A rating as people read it: "1562" or, while provisional, "1500?". */
export function ratingText(line) {
  return `${line.rating}${line.provisional ? "?" : ""}`;
}

/** An inline SVG line of a rating's history (its points' ``rating``), oldest first. */
export function chartSvg(points, width = 160, height = 40) {
  if (points.length === 0) return "";
  const values = points.map((p) => p.rating);
  const low = Math.min(...values) - 10;
  const high = Math.max(...values) + 10;
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const y = (v) => (height - ((v - low) / (high - low)) * height).toFixed(1);
  const path = values.map((v, i) => `${(i * step).toFixed(1)},${y(v)}`).join(" ");
  const last = values.length - 1;
  return `<svg class="rating-chart" viewBox="-3 -3 ${width + 6} ${height + 6}" width="${width}" height="${height}" role="img" aria-label="${escape(say("chart"))}">
    <polyline points="${path}" fill="none" stroke="currentColor" stroke-width="2"/>
    <circle cx="${(last * step).toFixed(1)}" cy="${y(values[last])}" r="3" fill="currentColor"/></svg>`;
}

export class OnlineScreen {
  constructor(connection, panel, announce) {
    this.connection = connection;
    this.panel = panel;
    this.announce = announce;
    this.waiting = null; // {fields, since}: the find_race asked, and since when (server ms)
    this.ticker = null;
    this.boardVariant = VARIANTS[0];
    panel.addEventListener("submit", (event) => this.submit(event));
    panel.addEventListener("click", (event) => this.click(event));
    panel.addEventListener("change", (event) => {
      if (event.target.name === "board-variant") this.showBoard(event.target.value);
    });
    connection.on("match_found", (message) => this.found(message));
    // A reconnect keeps the place in the queue: the same find_race again.
    connection.on("welcome", () => {
      if (this.waiting) this.find(this.waiting.fields).catch(() => {});
    });
  }

  get signedIn() {
    const user = this.connection.player?.user || "";
    return user.startsWith("discord:");
  }

  /** Show the screen: the quick match form (or the wait), ratings and a board. */
  async open() {
    this.panel.innerHTML = `${this.formHtml()}<div data-ratings></div><div data-board></div>`;
    this.showWait();
    await Promise.all([this.showRatings(), this.showBoard(this.boardVariant)]);
  }

  formHtml() {
    const variants = VARIANTS.map((v) => `<option value="${v}">${escape(variantName(v))}</option>`).join("");
    const bands = ["", ...BANDS]
      .map((b) => `<option value="${b}">${escape(b ? say(b) : say("anyDeal"))}</option>`)
      .join("");
    const rated = this.signedIn
      ? `<label class="check"><input name="rated" type="checkbox" checked> <span>${escape(say("rated"))}</span></label>`
      : `<p class="hint">${escape(say("ratedNeedsSignIn"))}</p>`;
    return `<form id="quick-match" class="menu-card">
      <h2>${escape(say("quickMatch"))}</h2><p>${escape(say("quickMatchHelp"))}</p>
      <label><span>${escape(t("variant"))}</span> <select name="variant">${variants}</select></label>
      <label><span>${escape(say("difficulty"))}</span> <select name="difficulty">${bands}</select></label>
      ${rated}
      <button class="primary" data-find>${escape(say("find"))}</button>
      <p data-wait hidden><span data-wait-text></span> <button type="button" data-action="cancel">${escape(say("cancel"))}</button></p>
      <p class="error" role="alert" data-error></p></form>`;
  }

  async submit(event) {
    if (event.target.id !== "quick-match") return;
    event.preventDefault();
    const form = event.target;
    const fields = { variant: form.variant.value, rated: Boolean(form.rated?.checked) };
    if (form.difficulty.value) fields.difficulty = form.difficulty.value;
    form.querySelector("[data-error]").textContent = "";
    try {
      await this.find(fields);
    } catch (error) {
      form.querySelector("[data-error]").textContent = error.message;
    }
  }

  async find(fields) {
    const reply = await this.connection.request("find_race", fields);
    this.waiting = { fields, since: reply.since };
    this.showWait();
    this.announce(say("looking", { time: "" }));
  }

  async click(event) {
    const button = event.target.closest("[data-action]");
    if (button?.dataset.action !== "cancel") return;
    await this.connection.request("cancel_find").catch(() => {});
    this.waiting = null;
    this.showWait();
  }

  /** The wait line with the time waited, ticking; the form's button while not waiting. */
  showWait() {
    clearInterval(this.ticker);
    const wait = this.panel.querySelector("[data-wait]");
    const find = this.panel.querySelector("[data-find]");
    if (!wait) return;
    wait.hidden = !this.waiting;
    find.hidden = Boolean(this.waiting);
    if (!this.waiting) return;
    const tick = () => {
      const seconds = Math.max(0, Math.round((this.connection.now() - this.waiting.since) / 1000));
      const time = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
      wait.querySelector("[data-wait-text]").textContent = say("looking", { time });
    };
    tick();
    this.ticker = setInterval(tick, 1000);
  }

  /** A race was found: the player is in it; open it (race.js counts down with them). */
  found(message) {
    if (this.connection.player && message.player !== this.connection.player.id) return;
    this.waiting = null;
    clearInterval(this.ticker);
    location.hash = `#race=${message.race.race}`;
  }

  async showRatings() {
    const box = this.panel.querySelector("[data-ratings]");
    const reply = await this.connection.request("player_ratings", { history: 30 });
    const rows = reply.ratings.map((pool) => {
      const last = pool.history.at(-1);
      const change = last ? ` <span class="change">${last.change >= 0 ? "+" : ""}${last.change}</span>` : "";
      return `<li><span class="pool">${escape(variantName(pool.variant))}</span>
        <strong class="rating">${escape(ratingText(pool))}</strong>${change}
        <span class="muted">±${pool.deviation} · ${escape(say("ratedGames", { games: pool.games }))}${pool.provisional ? ` · ${escape(say("provisional"))}` : ""}</span>
        ${chartSvg(pool.history)}</li>`;
    });
    box.innerHTML = `<h2>${escape(say("yourRatings"))}</h2>${
      rows.length ? `<ul class="ratings">${rows.join("")}</ul>` : `<p>${escape(say("noRatings"))}</p>`
    }`;
  }

  async showBoard(variant) {
    this.boardVariant = variant;
    const box = this.panel.querySelector("[data-board]");
    const reply = await this.connection.request("leaderboard", { variant, page_size: 10 });
    const options = VARIANTS.map(
      (v) => `<option value="${v}"${v === variant ? " selected" : ""}>${escape(variantName(v))}</option>`,
    ).join("");
    const me = this.connection.player?.id;
    const lines = reply.lines.map(
      (line) => `<tr${line.player === me ? ' class="me"' : ""}><td>${line.rank}</td><td>${escape(line.name)}</td>
        <td class="rating">${line.rating}</td><td class="muted">±${line.deviation}</td><td class="muted">${line.rated_games}</td></tr>`,
    );
    const head = ["rank", "player", "ratingHead", "deviationHead", "ratedHead"]
      .map((key) => `<th scope="col">${escape(say(key))}</th>`)
      .join("");
    const table = lines.length
      ? `<table class="board-table"><thead><tr>${head}</tr></thead><tbody>${lines.join("")}</tbody></table>`
      : `<p>${escape(say("boardEmpty"))}</p>`;
    const provisional = reply.provisional ? `<p class="muted">${escape(say("stillProvisional", { count: reply.provisional }))}</p>` : "";
    box.innerHTML = `<h2>${escape(say("board"))}</h2>
      <label><select name="board-variant" aria-label="${escape(say("board"))}">${options}</select></label>${table}${provisional}`;
  }
}
