// A race in the page: the lobby (with its invite link), the countdown, the live race
// with everyone's progress from the race's events, and the results with the deal.
// Everything shown comes from the race's state (``race`` replies) and its events;
// the ranking is the server's, never recomputed here.

import { confirmHtml, focusAnswer } from "./confirm.js";
import { dealCode } from "./deal.js";
import { clock } from "./game.js";
import { t, variantName } from "./i18n.js";

/** Whether SHA-256("<seed>:<salt>") is the commitment (null when the page cannot hash). */
export async function commitmentHolds(seed, salt, commitment) {
  if (!globalThis.crypto?.subtle) return null;
  const bytes = new TextEncoder().encode(`${seed}:${salt}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment;
}

export class RaceScreen {
  constructor(connection, game, panel, announce, callbacks) {
    this.connection = connection;
    this.game = game;
    this.panel = panel;
    this.announce = announce;
    // {showGame(bool, state), practiceDeal(variant, options, seed), newRace(), rematchFields()}
    this.callbacks = callbacks;
    this.race = null;
    this.standings = new Map();
    this.lastSeq = 0;
    this.timer = null;
    this.confirming = false; // "Give up this race?" is on the screen
    connection.on("event", (message) => this.event(message));
    connection.on("welcome", () => this.reconnected());
    panel.addEventListener("click", (event) => this.click(event));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.confirming && !panel.hidden) this.askToResign(false);
    });
  }

  get id() {
    return this.race?.race ?? null;
  }

  async create(settings) {
    const reply = await this.connection.request("create_race", { start: "manual", ...settings });
    this.enter(reply.race);
  }

  /** Open race ``id``: join it while it can be joined, else watch it. */
  async open(id) {
    let reply = await this.connection.request("get_race", { race: id });
    const me = this.connection.player?.id;
    const joined = reply.race.players.some((p) => p.player === me);
    if (!joined && (reply.race.state === "lobby" || reply.race.state === "countdown")) {
      try {
        reply = await this.connection.request("join_race", { race: id });
      } catch (error) {
        this.announce(error.message);
      }
    }
    this.enter(reply.race);
  }

  leave() {
    clearInterval(this.timer);
    this.timer = null;
    this.race = null;
    this.game.stop();
  }

  enter(race) {
    if (race.race !== this.race?.race) this.confirming = false;
    this.race = race;
    this.lastSeq = race.seq;
    this.standings = new Map(race.players.map((p) => [p.player, { ...p }]));
    this.changed();
  }

  async reconnected() {
    if (!this.race || this.race.state === "finished") return;
    const reply = await this.connection.request("get_race", { race: this.race.race });
    this.enter(reply.race);
    if (this.game.game === reply.race.your_game) this.game.act("get_view");
  }

  event(message) {
    if (!this.race || message.race !== this.race.race || message.seq <= this.lastSeq) return;
    this.lastSeq = message.seq;
    const event = message.event;
    const race = this.race;
    if (event.kind === "lobby") {
      const next = new Map();
      for (const p of event.players) {
        next.set(p.id, this.standings.get(p.id) ?? { player: p.id, name: p.name, foundation: 0, moves: 0, finished: false, resigned: false, time_ms: null });
      }
      this.standings = next;
      race.starter = event.starter ?? null; // the creator, or who took the lobby over
    } else if (event.kind === "countdown") {
      race.state = "countdown";
      race.starts_at = event.starts_at;
    } else if (event.kind === "start") {
      race.state = "running";
      race.starts_at = event.at;
      race.ends_at = event.ends_at;
    } else if (event.kind === "progress") {
      for (const line of event.standings) {
        this.standings.set(line.player, { ...this.standings.get(line.player), ...line });
      }
    } else if (event.kind === "finish") {
      const line = this.standings.get(event.player);
      if (line) Object.assign(line, { finished: true, time_ms: event.time_ms, moves: event.moves });
    } else if (event.kind === "rematch") {
      race.rematch = { race: event.rematch, by: event.by };
    } else if (event.kind === "end") {
      Object.assign(race, {
        state: "finished",
        ranking: event.ranking,
        seed: event.seed,
        salt: event.salt,
        end_reason: event.reason,
      });
    }
    this.changed();
  }

  /** Redraw the panel for the race's state, and show or hide the player's board. The
   * button in focus keeps it across the redraw (events redraw the panel often). */
  changed() {
    const race = this.race;
    clearInterval(this.timer);
    this.timer = null;
    const focused = this.panel.contains(document.activeElement) ? document.activeElement.dataset.action : null;
    const mine = race.your_game !== null && race.your_game !== undefined;
    if (race.state === "lobby") this.panel.innerHTML = this.lobbyHtml();
    if (race.state === "countdown") {
      this.panel.innerHTML = `<p class="countdown" aria-live="assertive" data-countdown></p>${this.standingsHtml()}`;
      this.tick();
      this.timer = setInterval(() => this.tick(), 200);
    }
    if (race.state === "running") {
      this.panel.innerHTML = this.runningHtml(mine);
      if (mine && this.game.game !== race.your_game) this.loadGame();
    }
    if (race.state === "finished") {
      this.confirming = false;
      this.panel.innerHTML = this.resultsHtml();
      this.checkCommitment();
      if (mine && this.game.game === race.your_game) this.game.act("get_view");
    }
    if (focused) this.panel.querySelector(`[data-action="${focused}"]`)?.focus();
    this.callbacks.showGame(mine && (race.state === "running" || race.state === "finished"), race.state);
  }

  /** Whether the player is still in the race: their game is being played. */
  stillPlaying() {
    const line = this.standings.get(this.connection.player?.id);
    if (line?.finished || line?.resigned) return false;
    return this.game.game !== this.race.your_game || this.game.view?.status === "playing";
  }

  /** Show (or take back) "Give up this race?" in place of the button. */
  askToResign(asking) {
    this.confirming = asking;
    this.changed();
    if (asking) focusAnswer(this.panel);
    else this.panel.querySelector('[data-action="resign"]')?.focus();
  }

  /** Give up: the reply's view ends the game on the board (its buttons with it). */
  async resign() {
    this.confirming = false;
    await this.game.act("resign");
    if (this.race) this.changed();
  }

  async loadGame() {
    const race = this.race;
    const reply = await this.connection.request("get_view", { game: race.your_game });
    this.game.load(race.your_game, reply.view, {
      undo: race.settings.allow_undo,
      hints: race.settings.allow_hints,
      solver: race.settings.solver_help,
      giveUp: true,
    });
  }

  tick() {
    const cell = this.panel.querySelector("[data-countdown]");
    if (!cell || !this.race.starts_at) return;
    const left = Math.ceil((this.race.starts_at - this.connection.now()) / 1000);
    cell.textContent = left > 0 ? t("startsIn", { n: left }) : t("go");
  }

  click(event) {
    const button = event.target.closest("[data-action]");
    if (!button || !this.race) return;
    const id = this.race.race;
    const action = button.dataset.action;
    const request = (type) =>
      this.connection.request(type, { race: id }).then(
        (reply) => reply.race && this.enter(reply.race),
        (error) => this.announce(error.message),
      );
    if (action === "start") request("start_race");
    if (action === "leave") request("leave_race").then(() => this.callbacks.newRace());
    if (action === "resign" && this.race.your_game) this.askToResign(true);
    if (action === "resign-no") this.askToResign(false);
    if (action === "resign-yes" && this.race.your_game) this.resign();
    if (action === "copy") {
      navigator.clipboard?.writeText(inviteLink(id)).then(() => this.announce(t("copied")));
    }
    if (action === "again") {
      const settings = this.race.settings;
      this.callbacks.practiceDeal(settings.variant, settings.options, BigInt(this.race.seed));
    }
    if (action === "new") this.callbacks.newRace();
    if (action === "rematch") {
      // The first to ask opens the rematch; asking after someone did joins theirs.
      this.connection.request("rematch", { race: id, ...(this.callbacks.rematchFields?.() ?? {}) }).then(
        (reply) => {
          location.hash = `#race=${reply.race.race}`;
        },
        (error) => this.announce(error.message),
      );
    }
  }

  // ---- HTML of each state -----------------------------------------------------------

  header() {
    const s = this.race.settings;
    return `<h2>${escape(variantName(s.variant))} · ${t("race")} <span data-race-id>${this.race.race}</span></h2>`;
  }

  lobbyHtml() {
    const race = this.race;
    // Who may start: the creator, or once the creator left, the first to join of those left.
    const creator = (race.starter ?? race.creator) === this.connection.player?.id;
    const link = inviteLink(race.race);
    const start = creator
      ? `<button data-action="start" class="primary">${t("start")}</button>`
      : `<p>${t("waitForCreator")}</p>`;
    return `${this.header()}
      <p>${t("lobby", { id: race.race })}</p>
      <p>${t("invite", { id: `<b data-race-code>${race.race}</b>` })}</p>
      <p class="invite"><input readonly value="${escape(link)}" aria-label="${t("invite", { id: race.race })}" data-invite>
      <button data-action="copy">${t("copyLink")}</button></p>
      ${this.standingsHtml()}
      <p class="actions">${start} <button data-action="leave">${t("leave")}</button></p>`;
  }

  runningHtml(mine) {
    let actions = `<span>${t("spectating")}</span>`;
    if (mine && !this.stillPlaying()) {
      const line = this.standings.get(this.connection.player?.id);
      actions = `<span data-out>${t(line?.finished || this.game.view?.status === "won" ? "youFinished" : "youGaveUp")}</span>`;
    } else if (mine && this.confirming) {
      actions = confirmHtml("resign", t("giveUpRace"), t("giveUpYes"), t("keepPlaying"));
    } else if (mine) actions = `<button data-action="resign">${t("giveUp")}</button>`;
    return `${this.header()}${this.standingsHtml()}<p class="actions">${actions}</p>`;
  }

  standingsHtml() {
    const me = this.connection.player?.id;
    const total = this.race.settings.variant.startsWith("spider") ? 104 : 52;
    const lines = [...this.standings.values()].map((p) => {
      const state = p.finished
        ? `${t("finished")} ${clock(p.time_ms ?? 0)}`
        : p.resigned
          ? t("resigned")
          : t("movesCount", { n: p.moves });
      const share = Math.round((100 * (p.foundation ?? 0)) / total);
      const you = p.player === me ? ` (${t("you")})` : "";
      return `<li data-player="${p.player}"><span class="who">${escape(p.name)}${you}</span>
        <span class="bar" role="progressbar" aria-valuenow="${p.foundation ?? 0}" aria-valuemax="${total}"><i style="width:${share}%"></i></span>
        <span class="state">${p.foundation ?? 0}/${total} · ${state}</span></li>`;
    });
    return `<h3>${t("standings")}</h3><ol class="standings">${lines.join("")}</ol>`;
  }

  resultsHtml() {
    const race = this.race;
    const me = this.connection.player?.id;
    const rows = (race.ranking || []).map((line) => {
      const result = line.finished ? clock(line.time_ms) : line.resigned ? t("resigned") : "–";
      const you = line.player === me ? ` (${t("you")})` : "";
      return `<tr data-rank="${line.rank}" data-player="${line.player}"><td>${line.rank}</td><td>${escape(line.name)}${you}</td><td>${line.foundation}</td><td>${line.moves}</td><td>${result}</td></tr>`;
    });
    const reason = race.end_reason ? `<p>${t(`endReason_${race.end_reason}`)}</p>` : `<p>${t("raceOver")}</p>`;
    const deal = race.seed
      ? `<dl class="deal"><dt>${t("dealCode")}</dt><dd data-deal-code>${dealCode(race.seed)}</dd>
        <dt>${t("seed")}</dt><dd>${race.seed}</dd>
        <dt>${t("commitment")}</dt><dd><code>${race.commitment}</code> <span data-commitment></span></dd></dl>`
      : "";
    const played = race.your_game !== null && race.your_game !== undefined;
    const offer = race.rematch
      ? `<p class="rematch" data-rematch="${race.rematch.race}" role="status">${escape(t("rematchOffered", { name: race.rematch.by.name, id: race.rematch.race }))}</p>`
      : "";
    const rematch = played
      ? `<button data-action="rematch"${race.rematch ? ' class="primary"' : ""}>${t(race.rematch ? "joinRematch" : "rematch")}</button>`
      : "";
    return `${this.header()}<h3>${t("results", { id: race.race })}</h3>${reason}${offer}
      <table class="ranking"><thead><tr><th>${t("rank")}</th><th>${t("player")}</th><th>${t("cards")}</th><th>${t("moves")}</th><th>${t("result")}</th></tr></thead>
      <tbody>${rows.join("")}</tbody></table>${deal}
      <p class="actions">${race.seed ? `<button data-action="again" class="primary">${t("playThisDeal")}</button>` : ""}
      ${rematch}
      <a class="button" href="#replay=${race.race}" data-action="replay">${t("replay")}</a>
      <button data-action="new">${t("newRace")}</button></p>`;
  }

  async checkCommitment() {
    const race = this.race;
    if (!race.seed) return;
    const holds = await commitmentHolds(race.seed, race.salt, race.commitment);
    const cell = this.panel.querySelector("[data-commitment]");
    if (!cell || holds === null) return;
    cell.textContent = holds ? `✓ ${t("verified")}` : `✗ ${t("notVerified")}`;
    cell.className = holds ? "ok" : "bad";
  }
}

export function inviteLink(id) {
  return `${location.origin}${location.pathname}#race=${id}`;
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
