// The daily deal of a variant: the day's deal (the same for everyone, proven winnable),
// the player's attempts (each, once over, with a link to its replay beside the day's
// best: replay.js), starting one (the first is ranked, later ones are practice),
// and the day's board: the top lines and the player's own place ("around me"). Below,
// the past days (archive.js), opened on demand.

import { DailyArchive } from "./archive.js";
import { confirmHtml, focusAnswer } from "./confirm.js";
import { clock } from "./game.js";
import { t, variantName } from "./i18n.js";
import { difficultyHtml } from "./ratings.js";

export const DAILY_VARIANTS = ["klondike", "klondike-3", "spider-1", "spider-2", "spider-4", "yukon"];

export class DailyScreen {
  constructor(connection, game, panel, announce, showGame, playDeal) {
    this.connection = connection;
    this.game = game;
    this.panel = panel;
    this.announce = announce;
    this.showGame = showGame;
    this.variant = DAILY_VARIANTS[0];
    this.playing = null; // the attempt on the board: {game, ranked}
    this.confirming = false; // "Give up your ranked attempt?" is on the screen
    this.archive = new DailyArchive(connection, playDeal);
    this.archiveOpen = false;
    panel.addEventListener("toggle", (event) => this.toggled(event), true);
    panel.addEventListener("click", (event) => this.click(event));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.confirming && !panel.hidden) this.askToResign(false);
    });
    panel.addEventListener("change", (event) => {
      if (event.target.name === "daily-variant") this.open(event.target.value);
    });
  }

  /** Show the day's deal of ``variant`` with the player's attempts and the board. */
  async open(variant = this.variant) {
    this.variant = variant;
    this.playing = null;
    this.game.stop();
    this.showGame(false);
    this.panel.innerHTML = `${this.pickerHtml()}<p>${t("connecting")}</p>`;
    try {
      await this.refreshBoard();
    } catch (error) {
      this.panel.innerHTML = `${this.pickerHtml()}<p class="error">${escape(error.message)}</p>`;
    }
  }

  /** Called with every view of the game on the board: a finished attempt refreshes. */
  viewed(view) {
    if (this.playing && view.status !== "playing") {
      const done = this.playing;
      this.playing = null;
      setTimeout(() => {
        if (this.game.game !== done.game) return;
        // A won game stays on the screen under the board with its win; one given up
        // or out of time has nothing more to show than its line in the attempts.
        if (view.status !== "won") this.showGame(false);
        this.refreshBoard();
      }, 0);
    }
  }

  async refreshBoard() {
    const variant = this.variant;
    const [reply, board, around, stats] = await Promise.all([
      this.connection.request("daily", { variant }),
      this.connection.request("daily_board", { variant, page_size: 10 }),
      this.connection.request("daily_around", { variant, span: 2 }),
      this.connection.request("player_stats", { variant }),
    ]);
    this.panel.innerHTML =
      this.pickerHtml() +
      this.dealHtml(reply) +
      this.statsHtml(stats) +
      this.boardHtml(board, around) +
      `<details class="archive" data-archive${this.archiveOpen ? " open" : ""}><summary>${t("pastDays")}</summary>
        <div data-archive-days></div></details>`;
  }

  /** The past days, listed when their section is opened (and again at each refresh). */
  async toggled(event) {
    const details = event.target;
    if (!details.matches?.("[data-archive]")) return;
    this.archiveOpen = details.open;
    if (!details.open) return;
    const list = details.querySelector("[data-archive-days]");
    list.innerHTML = `<p>${t("connecting")}</p>`;
    try {
      list.innerHTML = await this.archive.daysHtml(this.variant);
    } catch (error) {
      list.innerHTML = `<p class="error">${escape(error.message)}</p>`;
    }
  }

  async click(event) {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const action = button.dataset.action;
    try {
      if (await this.archive.click(button, this.variant, this.panel)) return;
      if (action === "daily-play") {
        const reply = await this.connection.request("daily_start", { variant: this.variant });
        this.playing = { game: reply.game, ranked: reply.ranked };
        this.confirming = false;
        this.showAttempt();
        this.game.load(reply.game, reply.view, { undo: true, hints: true, giveUp: true });
        this.showGame(true);
      }
      if (action === "daily-resign") this.askToResign(true);
      if (action === "daily-resign-no") this.askToResign(false);
      if (action === "daily-resign-yes" && this.game.game) {
        this.confirming = false;
        this.showAttempt();
        await this.game.act("resign");
      }
      if (action === "daily-board") {
        this.showGame(false);
        await this.refreshBoard();
      }
    } catch (error) {
      this.announce(error.message);
    }
  }

  /** Show (or take back) the question before giving up, in the button's place. */
  askToResign(asking) {
    this.confirming = asking;
    this.showAttempt();
    if (asking) focusAnswer(this.panel);
    else this.panel.querySelector('[data-action="daily-resign"]')?.focus();
  }

  /** The panel above an attempt's board: ranked or practice, Give up, the day's board. */
  showAttempt() {
    const ranked = this.playing?.ranked;
    const resign = this.confirming
      ? confirmHtml("daily-resign", t(ranked ? "giveUpRanked" : "giveUpAttempt"), t("giveUpYes"), t("keepPlaying"))
      : `<button data-action="daily-resign">${t("giveUp")}</button>`;
    this.panel.innerHTML = `${this.pickerHtml()}<p>${t(ranked ? "dailyRanked" : "dailyPractice")}</p>
      <p class="actions">${this.playing ? resign : ""}
      <button data-action="daily-board">${t("dailyBoard")}</button></p>`;
  }

  // ---- HTML ---------------------------------------------------------------------------

  pickerHtml() {
    const options = DAILY_VARIANTS.map(
      (v) => `<option value="${v}"${v === this.variant ? " selected" : ""}>${variantName(v)}</option>`,
    ).join("");
    return `<p class="bar"><label><span class="sr-only">${t("variant")}</span>
      <select name="daily-variant">${options}</select></label></p>`;
  }

  dealHtml(reply) {
    const deal = reply.deal;
    const attempts = (reply.attempts || []).map((a) => {
      const result = a.status === "won" ? clock(a.time_ms ?? 0) : statusText(a.status);
      const kind = a.ranked ? t("ranked") : t("practice");
      // Once over, beside the day's best (the server opens it when the ranked one is over).
      const replay = a.status === "playing" ? "" : ` · <a href="#replay=game:${a.game}" data-replay-game="${a.game}">${t("replay")}</a>`;
      return `<li>${kind}: ${result} · ${t("movesCount", { n: a.moves ?? 0 })}${replay}</li>`;
    });
    const play = reply.attempts?.length ? t("dailyPlayAgain") : t("dailyPlay");
    return `<h2>${t("dailyTitle", { variant: variantName(deal.variant), date: deal.date })} ${difficultyHtml(deal.difficulty)}</h2>
      <p>${t("dailyAbout", { n: deal.solution_length, minutes: Math.round(deal.time_limit_s / 60) })}</p>
      ${attempts.length ? `<h3>${t("dailyAttempts")}</h3><ul class="attempts">${attempts.join("")}</ul>` : ""}
      <p class="actions"><button class="primary" data-action="daily-play">${play}</button></p>
      <p class="small">${t("commitment")}: <code>${deal.commitment}</code></p>`;
  }

  /** The player's record in this variant: streak of won dailies, wins, best time. */
  statsHtml(stats) {
    const line = (stats.variants || []).find((v) => v.variant === this.variant);
    if (!line || !line.games) return "";
    const best = line.best_time_ms === null || line.best_time_ms === undefined ? "–" : clock(line.best_time_ms);
    return `<p data-daily-stats>${t("dailyStats", {
      streak: line.current_streak,
      longest: line.longest_streak,
      wins: line.wins,
      games: line.games,
      best,
    })}</p>`;
  }

  boardHtml(board, around) {
    const me = this.connection.player?.id;
    const row = (line) => {
      const result = line.status === "won" ? clock(line.time_ms ?? 0) : statusText(line.status);
      const you = line.player === me ? ` (${t("you")})` : "";
      return `<tr data-rank="${line.rank}" data-player="${line.player}"><td>${line.rank}</td><td>${escape(line.name)}${you}</td><td>${result}</td><td>${line.moves ?? ""}</td></tr>`;
    };
    const table = (lines) => `<table class="ranking"><thead><tr><th>${t("rank")}</th><th>${t("player")}</th><th>${t("result")}</th><th>${t("moves")}</th></tr></thead>
      <tbody>${lines.map(row).join("")}</tbody></table>`;
    const lines = board.lines || [];
    const top = lines.length ? table(lines) : `<p>${t("dailyEmpty")}</p>`;
    const shownIds = new Set(lines.map((l) => l.player));
    const mine = around.me && !shownIds.has(around.me.player)
      ? `<h3>${t("dailyAroundMe")}</h3>${table(around.lines || [])}`
      : "";
    return `<h3>${t("dailyBoard")} (${board.total})</h3><div data-daily-board>${top}</div>${mine}`;
  }
}

function statusText(status) {
  return t(`status_${status}`);
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
