// Replays of a finished race: the player's game and the winner's, side by side, stepped
// together. The server gives each game's record (`race_result` names the games,
// `replay` their actions); the page rebuilds every step with the rules in the page
// (rules.js, held move for move to the engine), so stepping costs no request.

import { Board } from "./board.js";
import { t, variantName } from "./i18n.js";
import { LocalGame } from "./rules.js";

const PLAY_STEP_MS = 500;

export class ReplayScreen {
  constructor(connection, panel, announce) {
    this.connection = connection;
    this.panel = panel;
    this.announce = announce;
    this.games = []; // [{name, mine, views}]
    this.boards = [];
    this.step = 0;
    this.timer = null;
    panel.addEventListener("click", (event) => {
      const button = event.target.closest("[data-step]");
      if (button) this.go(button.dataset.step);
    });
    // The arrow keys step, Home and End jump, while the replays are on the screen.
    const keys = { ArrowLeft: "back", ArrowRight: "next", Home: "first", End: "last" };
    document.addEventListener("keydown", (event) => {
      if (panel.hidden || !this.games.length || !keys[event.key]) return;
      if (event.target.closest?.("input,select,textarea")) return;
      event.preventDefault();
      this.go(keys[event.key]);
    });
  }

  /** Load race ``id``'s replays: the player's game, and the winner's if another's. */
  async open(id) {
    this.stop();
    this.panel.innerHTML = `<p>${t("connecting")}</p>`;
    const result = await this.connection.request("race_result", { race: id });
    const me = this.connection.player?.id;
    const winner = result.ranking.find((line) => line.finished) ?? result.ranking[0];
    const players = [];
    if (result.games[me] !== undefined) players.push(me);
    if (winner && winner.player !== me) players.push(winner.player);
    const records = await Promise.all(
      players.map((player) => this.connection.request("replay", { game: result.games[player] })),
    );
    this.games = records.map((record) => ({
      name: record.player === me ? t("yourGame") : t("winnersGame", { name: record.name }),
      mine: record.player === me,
      views: steps(record),
    }));
    this.step = 0;
    const columns = this.games
      .map(
        (game, i) => `<figure class="replay-game"><figcaption>${escape(game.name)}</figcaption>
          <div class="board" data-replay-board="${game.mine ? "mine" : "winner"}" data-index="${i}"></div></figure>`,
      )
      .join("");
    this.panel.innerHTML = `<h2>${t("replayTitle", { id })} · ${escape(variantName(result.variant))}</h2>
      <p class="actions replay-controls">
        <button data-step="first" aria-label="${t("replayFirst")}">«</button>
        <button data-step="back" aria-label="${t("replayBack")}">◀</button>
        <button data-step="play" data-replay-play>${t("replayPlay")}</button>
        <button data-step="next" aria-label="${t("replayNext")}">▶</button>
        <button data-step="last" aria-label="${t("replayLast")}">»</button>
        <span data-replay-step aria-live="polite"></span></p>
      <div class="replays">${columns}</div>`;
    this.boards = [...this.panel.querySelectorAll("[data-replay-board]")].map(
      (root) => new Board(root, () => {}, this.announce),
    );
    this.draw();
  }

  get total() {
    return Math.max(0, ...this.games.map((game) => game.views.length - 1));
  }

  go(where) {
    if (where === "play") return this.timer ? this.stop() : this.play();
    this.stop();
    if (where === "first") this.step = 0;
    if (where === "back") this.step = Math.max(0, this.step - 1);
    if (where === "next") this.step = Math.min(this.total, this.step + 1);
    if (where === "last") this.step = this.total;
    this.draw();
  }

  play() {
    if (this.step >= this.total) this.step = 0;
    this.panel.querySelector("[data-replay-play]").textContent = t("replayPause");
    this.timer = setInterval(() => {
      this.step = Math.min(this.total, this.step + 1);
      this.draw();
      if (this.step >= this.total) this.stop();
    }, PLAY_STEP_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    const button = this.panel.querySelector("[data-replay-play]");
    if (button) button.textContent = t("replayPlay");
  }

  draw() {
    this.games.forEach((game, i) => {
      this.boards[i].show(game.views[Math.min(this.step, game.views.length - 1)], false);
    });
    const cell = this.panel.querySelector("[data-replay-step]");
    if (cell) cell.textContent = t("replayStep", { n: this.step, total: this.total });
  }
}

/** The view before the first action and after each one (a hint or an undo is a step). */
function steps(record) {
  const game = new LocalGame(record.variant, BigInt(record.seed), record.options);
  const views = [game.view()];
  for (const action of record.actions) {
    game.playAction(action);
    views.push(game.view());
  }
  return views;
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
