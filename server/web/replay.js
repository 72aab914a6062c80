// Replays of finished games, two side by side and stepped together:
// - a race's (`#replay=<race>`): the player's game and the winner's (`race_result` names
//   the games, `replay` gives their actions);
// - a daily attempt's (`#replay=game:<id>`): the player's game and the first line of the
//   day's board, once the player's own ranked attempt is over (the server's rule);
// - a practice game's (`#replay=game:<id>`): the player's game and the solver's win from
//   the same deal, when the server's solver found one (alone otherwise).
// Step n shows each game n moves in, on the line it kept: a hint changes nothing and an
// undo takes its move back, so neither is a step (keptLine), and two games stepped
// together stay move for move side by side whatever help either player asked for.
// A record with its seed is rebuilt step by step in the page (rules.js, held move for move
// to the engine), so stepping costs no request. A daily attempt's seed stays sealed until
// its day closes (it would show the face-down cards): then each step's view is the
// server's (`replay` with `step`), asked once and kept.

import { Board } from "./board.js";
import { t, variantName } from "./i18n.js";
import { LocalGame } from "./rules.js";

const PLAY_STEP_MS = 500;

export class ReplayScreen {
  constructor(connection, panel, announce) {
    this.connection = connection;
    this.panel = panel;
    this.announce = announce;
    this.games = []; // [{name, which, length, viewAt(step) -> view or Promise}]
    this.boards = [];
    this.step = 0;
    this.timer = null;
    this.drawing = 0; // the latest draw; an older one whose views arrive late is dropped
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

  /** Load race ``id``'s replays: the player's game beside the winner's, or, when
   * nobody finished, beside the best placed other player's. */
  async open(id) {
    this.loading();
    const result = await this.connection.request("race_result", { race: id });
    const me = this.connection.player?.id;
    const winner = result.ranking.find((line) => line.finished);
    const other = winner ?? result.ranking.find((line) => line.player !== me);
    const players = [];
    if (result.games[me] !== undefined) players.push(me);
    if (other && other.player !== me) players.push(other.player);
    const records = await Promise.all(
      players.map((player) => this.connection.request("replay", { game: result.games[player] })),
    );
    const games = records.map((record) => {
      if (record.player === me) return this.line(record, t("yourGame"), "mine");
      const name = winner
        ? t("winnersGame", { name: record.name })
        : t("placedGame", { name: record.name, rank: other.rank });
      return this.line(record, name, winner ? "winner" : "placed");
    });
    this.show(`${t("replayTitle", { id })} · ${escape(variantName(result.variant))}`, games);
  }

  /** Load game ``id``'s replay beside the day's best (a daily) or the solver's win (practice). */
  async openGame(id) {
    this.loading();
    const record = await this.connection.request("replay", { game: id });
    const mine = record.player === this.connection.player?.id;
    const games = [this.line(record, mine ? t("yourGame") : record.name, "mine")];
    let title = `${t("replay")} · ${escape(variantName(record.variant))}`;
    if (record.date) {
      title = t("dailyTitle", { variant: variantName(record.variant), date: record.date });
      const board = await this.connection.request("daily_board", {
        variant: record.variant,
        date: record.date,
        page_size: 1,
      });
      const best = board.lines?.[0];
      if (best && best.game !== id) {
        const theirs = await this.connection.request("replay", { game: best.game });
        games.push(this.line(theirs, t("dailyBest", { name: theirs.name }), "best"));
      }
    } else if (record.solution) {
      games.push(this.line(record, t("solversWin"), "solver", record.solution));
    }
    this.show(title, games);
  }

  /** One game to show: its views rebuilt here from its seed, or the server's by step;
   * step n is the view after ``kept[n]`` actions. */
  line(record, name, which, actions = record.actions) {
    const kept = keptLine(actions);
    const length = kept.length;
    const help = helpText(actions);
    const caption = help ? `${name} · ${help}` : name;
    if (record.seed !== null) {
      const views = steps(record, actions);
      return { name: caption, which, length, viewAt: (step) => views[kept[Math.min(step, length - 1)]] };
    }
    const asked = new Map();
    const viewAt = (step) => {
      const n = kept[Math.min(step, length - 1)];
      if (!asked.has(n)) {
        const reply = this.connection.request("replay", { game: record.game, step: n });
        const forget = (error) => {
          asked.delete(n); // asked again at the next look
          throw error;
        };
        asked.set(n, reply.then((r) => r.view, forget));
      }
      return asked.get(n);
    };
    return { name: caption, which, length, viewAt };
  }

  loading() {
    this.stop();
    this.games = [];
    this.panel.innerHTML = `<p>${t("connecting")}</p>`;
  }

  show(title, games) {
    this.games = games;
    this.step = 0;
    const columns = games
      .map(
        (game, i) => `<figure class="replay-game"><figcaption>${escape(game.name)}</figcaption>
          <div class="board" data-replay-board="${game.which}" data-index="${i}"></div></figure>`,
      )
      .join("");
    this.panel.innerHTML = `<h2>${title}</h2>
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
    return Math.max(0, ...this.games.map((game) => game.length - 1));
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

  /** Show every game at the current step; the step's number once all are drawn. */
  async draw() {
    const step = this.step;
    const drawing = ++this.drawing;
    let views;
    try {
      views = await Promise.all(this.games.map((game) => game.viewAt(step)));
    } catch (error) {
      this.stop();
      this.announce(error.message);
      return;
    }
    if (drawing !== this.drawing) return;
    views.forEach((view, i) => this.boards[i].show(view, false));
    const cell = this.panel.querySelector("[data-replay-step]");
    if (cell) cell.textContent = t("replayStep", { n: step, total: this.total });
    // The next step is asked ahead, so stepping on through the server's views is quick.
    if (step < this.total) {
      for (const game of this.games) Promise.resolve(game.viewAt(step + 1)).catch(() => {});
    }
  }
}

/** The number of actions after which each step of the line a game kept stands: step 0
 * before any, step n after the n-th move not taken back. A hint changes nothing; an
 * undo gives back the position before its move, so the line is the moves left standing. */
export function keptLine(actions) {
  const line = [];
  actions.forEach((action, i) => {
    if (action === "undo") line.pop();
    else if (action !== "hint") line.push(i + 1);
  });
  return [0, ...line];
}

/** "2 undos, 1 hint": the help a game asked for, shown beside its name ("" for none). */
function helpText(actions) {
  const undos = actions.filter((a) => a === "undo").length;
  const hints = actions.filter((a) => a === "hint").length;
  const parts = [];
  if (undos) parts.push(t("undosCount", { n: undos }));
  if (hints) parts.push(t("hintsCount", { n: hints }));
  return parts.join(", ");
}

/** The view before the first action and after each one. */
function steps(record, actions) {
  const game = new LocalGame(record.variant, BigInt(record.seed), record.options);
  const views = [game.view()];
  for (const action of actions) {
    game.playAction(action);
    views.push(game.view());
  }
  return views;
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
