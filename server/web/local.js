// Practice without the server: the rules in the page (rules.js) answer the game's
// requests as the server would (move, undo, hint, auto_finish, resign, get_view), so
// the game controller plays it the same way. The game is kept in localStorage and goes
// on after a reload. Once it is over (won or given up) its record waits in an outbox
// and is sent as `practice_record` when the server is reachable; the server replays it
// with the Python engine and keeps it as practice, which reaches no board.

import { LocalGame, MoveError } from "./rules.js";
import { t } from "./i18n.js";

const GAME_KEY = "solitaire.offline";
const OUTBOX_KEY = "solitaire.outbox";
const SENT_KEY = "solitaire.sent";
export const LOCAL_GAME = "local";

export class OfflinePractice {
  constructor(storage, outbox) {
    this.storage = storage;
    this.outbox = outbox;
    this.game = null;
    this.meta = null; // {variant, options, seed, started_at, finished_at, status}
  }

  /** A new game of ``variant`` dealt from ``seed`` (BigInt); its reply, as the server's. */
  start(variant, options, seed) {
    this.game = new LocalGame(variant, seed, options);
    this.meta = { variant, options, seed: String(seed), started_at: Date.now(), finished_at: null, status: "playing" };
    this.save();
    return { game: LOCAL_GAME, view: this.view() };
  }

  /** The game left on this device, if one is still being played. */
  resume() {
    const kept = JSON.parse(this.storage.getItem(GAME_KEY) || "null");
    if (!kept || kept.status !== "playing") return null;
    try {
      const game = new LocalGame(kept.variant, BigInt(kept.seed), kept.options);
      for (const action of kept.actions) game.playAction(action);
      this.game = game;
      this.meta = kept;
    } catch {
      return null;
    }
    return { game: LOCAL_GAME, view: this.view() };
  }

  now() {
    return Date.now();
  }

  save() {
    this.storage.setItem(GAME_KEY, JSON.stringify({ ...this.meta, actions: this.game.actions }));
  }

  view() {
    const view = this.game.view();
    view.status = this.meta.status;
    view.started_at = this.meta.started_at;
    if (this.meta.finished_at !== null) view.finished_at = this.meta.finished_at;
    return view;
  }

  /** A game request answered here, or an Error with the player's reason. */
  async request(type, fields = {}) {
    const game = this.game;
    if (!game || fields.game !== LOCAL_GAME) throw new Error(t("needsServer"));
    if (type === "get_view") return this.reply();
    if (this.meta.status !== "playing") throw new Error(t("gameOver"));
    try {
      if (type === "move") game.play(fields.text);
      else if (type === "undo") game.undo();
      else if (type === "hint") return this.reply({ hint: game.hint() }, true);
      else if (type === "auto_finish") {
        const moves = game.finishingMoves();
        if (!moves.length) throw new MoveError("cannot_finish");
        for (const text of moves) game.play(text);
      } else if (type === "resign") this.end("resigned");
      else throw new Error(t("needsServer"));
    } catch (error) {
      if (error instanceof MoveError) throw new Error(t(error.message === "nothing_to_undo" ? "nothingToUndo" : "illegalOffline"));
      throw error;
    }
    if (game.won) this.end("won");
    return this.reply({}, true);
  }

  reply(extra = {}, changed = false) {
    if (changed) this.save();
    return { type: "view", game: LOCAL_GAME, view: this.view(), ...extra };
  }

  /** The game is over: its record goes to the outbox. */
  end(status) {
    this.meta.status = status;
    if (status === "won") this.meta.finished_at = Date.now();
    this.outbox.add({
      variant: this.meta.variant,
      options: this.meta.options,
      seed: this.meta.seed,
      actions: [...this.game.actions],
      resigned: status === "resigned",
      // How long it took, so that the server's copy shows the time played.
      time_ms: Math.max(0, (this.meta.finished_at ?? Date.now()) - this.meta.started_at),
    });
  }
}

/** Records of games played offline, kept until the server has them. */
export class Outbox {
  constructor(storage, announce) {
    this.storage = storage;
    this.announce = announce;
    this.sending = null;
    this.connection = null;
  }

  records() {
    return JSON.parse(this.storage.getItem(OUTBOX_KEY) || "[]");
  }

  add(record) {
    this.storage.setItem(OUTBOX_KEY, JSON.stringify([...this.records(), record]));
    if (this.connection?.online) this.flush(this.connection);
  }

  /** The games the server has kept, newest last: {game, variant, seed, status}. */
  sent() {
    return JSON.parse(this.storage.getItem(SENT_KEY) || "[]");
  }

  /** Send every waiting record, one at a time; one the server refuses is dropped (it
   * never will take it), one that meets a lost connection waits for the next. */
  flush(connection) {
    this.connection = connection;
    if (!this.sending) this.sending = this.sendAll(connection).finally(() => (this.sending = null));
    return this.sending;
  }

  async sendAll(connection) {
    let saved = 0;
    for (;;) {
      const [record] = this.records();
      if (!record) break;
      try {
        const reply = await connection.request("practice_record", { ...record, seed: BigInt(record.seed) });
        const sent = [...this.sent(), { game: reply.game, variant: record.variant, seed: record.seed, status: reply.view.status }];
        this.storage.setItem(SENT_KEY, JSON.stringify(sent.slice(-20)));
        saved += 1;
      } catch (error) {
        if (!error.code) break; // the connection, not the record: try again later
      }
      this.storage.setItem(OUTBOX_KEY, JSON.stringify(this.records().slice(1)));
    }
    if (saved) this.announce(t("recordsSent", { n: saved }));
  }
}
