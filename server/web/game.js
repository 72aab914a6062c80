// One game on the screen: its board, counters, buttons and keys. Every change goes
// to the game's table, the server (move, undo, hint, auto_finish) or, for practice
// offline, the rules in the page (local.js), and the reply's view is drawn. Used for
// practice and for a race's game alike. With the player's settings (settings.js) it
// finishes by itself once the view says the rest can go home (auto_finish, one
// request, so a race's time is not spent on the flight), plays safe cards home
// (autoplay.js), makes its small sounds (sound.js) and shows the win (celebrate.js).

import { Board } from "./board.js";
import { PersonalRecords } from "./records.js";
import { t } from "./i18n.js";
import { moveWords } from "./moves.js";
import { safeMove } from "./autoplay.js";

// The pause before the page plays by itself: long enough to see the last card land.
const FINISH_AFTER_MS = 250;
const AUTO_PLAY_AFTER_MS = 150;

export class GameController {
  constructor(connection, elements, announce, { settings, sounds, storage }) {
    this.connection = connection;
    this.settings = settings;
    this.sounds = sounds;
    this.finishing = null; // the game whose auto_finish is on its way
    this.autoPaused = false; // after an undo, until the player's next move
    this.el = elements; // {board, counters, message, undo, hint, finish}
    this.announce = announce;
    this.board = new Board(elements.board, (text) => this.move(text), announce);
    this.game = null;
    this.table = connection; // who answers the game's requests
    this.view = null;
    this.policy = { undo: true, hints: true };
    this.pendingKey = null;
    this.active = false;
    this.onView = () => {};
    this.records = new PersonalRecords(storage);
    // Games seen being played here, and those whose win was noted: a win is noted once,
    // when its view names the deal (a race's only once the race is over).
    this.played = new Set();
    this.noted = new Set();
    elements.undo.addEventListener("click", () => this.undo());
    elements.hint.addEventListener("click", () => this.hint());
    elements.finish.addEventListener("click", () => this.finish());
    elements.check.addEventListener("click", () => this.check());
    elements.jumpBack.addEventListener("click", () => this.jumpBack());
    // Told unasked that the game is lost (the server checks after each move).
    connection.on("winnability", (message) => {
      if (message.game === this.game && message.verdict === "lost") this.showLost();
    });
    elements.message.addEventListener("click", () => {
      if (this.view?.can_finish && this.view.status === "playing") this.finish();
    });
    document.addEventListener("keydown", (event) => this.key(event));
    setInterval(() => this.tick(), 1000);
  }

  /** Show ``game`` with its ``view``; ``policy`` says whether undo, hints and the
   * solver's help ("still winnable?", jump back) are on, and whether the game has a
   * Give up button (races and dailies: ``giveUp``); ``table`` answers requests. */
  load(game, view, policy = { undo: true, hints: true }, table = this.connection) {
    this.game = game;
    this.table = table;
    this.policy = policy;
    this.active = true;
    this.el.undo.hidden = !policy.undo;
    this.el.hint.hidden = !policy.hints;
    this.el.check.hidden = !policy.solver;
    this.el.record.textContent = "";
    this.played.delete(game); // a new game may reuse an id (offline games are all "local")
    this.noted.delete(game);
    this.finishing = null;
    this.autoPaused = false;
    this.view = null;
    this.update(view);
  }

  stop() {
    this.active = false;
    this.game = null;
  }

  update(view) {
    const before = this.view;
    this.view = view;
    const playing = view.status === "playing";
    this.board.show(view, playing);
    this.el.finish.hidden = !(view.can_finish && playing);
    this.el.undo.disabled = !playing || view.counters.moves === 0;
    this.el.hint.disabled = !playing;
    this.el.check.disabled = !playing;
    this.el.jumpBack.hidden = true; // until the solver says this position is lost
    this.showCounters();
    this.showMessage();
    if (playing) this.played.add(this.game);
    if (view.status === "won" && this.played.has(this.game) && !this.noted.has(this.game)) {
      this.noteRecord(view);
      this.board.celebrate();
    }
    this.sound(before, view);
    this.onView(view);
    this.playByItself(view);
  }

  /** The sound of what changed from ``before`` to ``view`` (nothing on a new game). */
  sound(before, view) {
    if (!before || before.counters.moves === view.counters.moves) return;
    const home = (v) => v.foundations.reduce((n, f) => n + (f.cards ?? (f.suit ? 13 : 0)), 0);
    if (view.status === "won" && before.status !== "won") this.sounds.play("win");
    else if (home(view) > home(before)) this.sounds.play("home");
    else if (view.stock !== before.stock) this.sounds.play("draw");
    else this.sounds.play("move");
  }

  /** The finish by itself, and safe cards home (each a setting), once the view shows
   * nothing more is happening: a short pause first, and nothing if the view changed. */
  playByItself(view) {
    if (view.status !== "playing" || !this.active) return;
    const game = this.game;
    const still = () => this.view === view && this.game === game && this.board.waiting === 0;
    if (view.can_finish && this.settings.get("autoFinish")) {
      setTimeout(() => still() && this.finish(), FINISH_AFTER_MS);
    } else if (!view.can_finish && this.settings.get("autoPlay") && !this.autoPaused) {
      const text = safeMove(view);
      if (text) setTimeout(() => still() && this.act("move", { text, move_id: moveId() }), AUTO_PLAY_AFTER_MS);
    }
  }

  showCounters() {
    const view = this.view;
    const parts = [
      `${t("moves")}: <b data-counter="moves">${view.counters.moves}</b>`,
      `${t("score")}: <b data-counter="score">${view.counters.score}</b>`,
      `${t("time")}: <b data-counter="time">${clock(this.elapsed())}</b>`,
    ];
    if (view.deals_left !== undefined) {
      parts.push(`${t("dealsLeft")}: <b>${view.deals_left}</b>`);
    }
    this.el.counters.innerHTML = parts.map((p) => `<span>${p}</span>`).join("");
  }

  elapsed() {
    const view = this.view;
    if (!view?.started_at) return 0;
    const end = view.finished_at ?? this.table.now();
    return Math.max(0, end - view.started_at);
  }

  tick() {
    if (!this.active || !this.view || this.view.status !== "playing") return;
    const cell = this.el.counters.querySelector('[data-counter="time"]');
    if (cell) cell.textContent = clock(this.elapsed());
  }

  showMessage(text = null) {
    const view = this.view;
    const box = this.el.message;
    box.classList.remove("finish", "won");
    if (text === null) {
      if (view.status === "won") {
        text = t("won", { moves: view.counters.moves, time: clock(this.elapsed()) });
        box.classList.add("won");
      } else if (view.can_finish && view.status === "playing") {
        text = t("tapToFinish");
        box.classList.add("finish");
      } else if (view.outcome === "no_moves") {
        text = t("noMoves");
      } else {
        text = "";
      }
    }
    box.textContent = text;
    if (text) this.announce(text);
  }

  // ---- requests ---------------------------------------------------------------------

  async act(type, fields = {}) {
    if (!this.game) return null;
    // Until the reply, the board on the screen may be stale: taps on its cards wait
    // (board.js), so a double click cannot send the same move twice.
    this.board.waiting += 1;
    try {
      const reply = await this.table.request(type, { game: this.game, ...fields });
      if (reply.view && reply.game === this.game) this.update(reply.view);
      return reply;
    } catch (error) {
      const fresh = error.reply?.view;
      if (fresh) this.update(fresh.tableau ? fresh : fresh.view);
      else if (this.view) this.board.draw();
      if (error.message) this.showMessage(error.message);
      this.sounds.play("error");
      if (type === "auto_finish") this.finishing = null;
      return null;
    } finally {
      this.board.waiting -= 1;
    }
  }

  move(text) {
    this.autoPaused = false;
    return this.act("move", { text, move_id: moveId() });
  }

  undo() {
    if (!this.policy.undo) return;
    // Auto-play would send a card taken back home again at once: it waits for a move.
    this.autoPaused = true;
    return this.act("undo", { move_id: moveId() });
  }

  async hint() {
    if (!this.policy.hints) return;
    const reply = await this.act("hint");
    if (!reply) return;
    if (reply.hint) {
      this.board.showHint(reply.hint);
      const spider = this.view.variant.startsWith("spider");
      this.showMessage(t("hintIs", { words: moveWords(reply.hint, spider), move: reply.hint }));
    } else {
      this.showMessage(t("noHint"));
    }
  }

  finish() {
    if (!this.view?.can_finish || this.finishing === this.game) return;
    this.finishing = this.game;
    return this.act("auto_finish");
  }

  /** A win just seen: the personal record on its deal number (records.js). */
  noteRecord(view) {
    const text = this.records.won(view);
    if (!text) return;
    this.noted.add(this.game);
    this.el.record.textContent = text;
    this.announce(`${this.el.message.textContent} ${text}`);
  }

  /** "Still winnable?": the solver's verdict on the position (not counted as a hint). */
  async check() {
    if (!this.policy.solver || !this.game) return;
    const game = this.game;
    const moves = this.view.counters.moves;
    this.el.check.disabled = true;
    try {
      const reply = await this.table.request("check", { game });
      if (this.game !== game || this.view.counters.moves !== moves) return; // moved on meanwhile
      if (reply.verdict === "lost") this.showLost();
      else this.showMessage(t(`verdict_${reply.verdict}`));
    } catch (error) {
      this.showMessage(error.message);
    } finally {
      this.el.check.disabled = this.view?.status !== "playing";
    }
  }

  showLost() {
    // Practice has no Give up button: a new game is the way out there.
    this.showMessage(t(this.policy.giveUp ? "verdict_lost" : "verdict_lost_practice"));
    this.el.jumpBack.hidden = !this.policy.undo;
  }

  /** Undo back to the last position the solver proves winnable. */
  async jumpBack() {
    this.el.jumpBack.hidden = true;
    this.autoPaused = true;
    const reply = await this.act("jump_back", { move_id: moveId() });
    if (reply) this.showMessage(t("jumpedBack", { n: reply.played.length }));
  }

  // ---- keyboard ---------------------------------------------------------------------

  /** H hint, U or Ctrl+Z undo, Enter finish, D or space draw; digits (0 = 10), W and
   * F name a source then a target ("7" then "3" sends "7 3"; the same key twice
   * sends the card by the one-tap rule); Escape clears. */
  key(event) {
    if (!this.active || !this.view || this.view.status !== "playing") return;
    // Keys typed into a field are the field's; a focused button keeps Enter and space.
    if (event.target.closest?.("input,select,textarea")) return;
    const key = event.key.toLowerCase();
    if (event.target.closest?.("button,a") && (key === "enter" || key === " ")) return;
    if ((event.ctrlKey || event.metaKey) && key === "z") {
      event.preventDefault();
      this.undo();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    let name = null;
    if (/^[0-9]$/.test(key)) name = key === "0" ? "10" : key;
    else if (key === "w" || key === "f") name = key;
    if (name === null) this.pendingKey = null;
    if (key === "h") this.hint();
    else if (key === "u") this.undo();
    else if (key === "enter" && !event.target.closest?.("[data-pile]")) this.finish();
    else if (key === "d" || key === " ") {
      event.preventDefault();
      if (this.view.legal_moves?.d) this.move("d");
    } else if (key === "escape") this.board.clearSelection();
    if (name === null) return;
    const source = this.pendingKey;
    if (source === null) {
      if (name === "f") return;
      this.pendingKey = name;
      this.board.selectSource(name);
      return;
    }
    this.pendingKey = null;
    this.board.clearSelection();
    this.move(source === name ? source : `${source} ${name}`);
  }
}

function moveId() {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Milliseconds as m:ss (h:mm:ss past an hour). */
export function clock(ms) {
  const total = Math.floor(ms / 1000);
  const s = String(total % 60).padStart(2, "0");
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600);
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
