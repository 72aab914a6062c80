// Practice statistics per variant, kept in this browser (localStorage
// "solitaire.stats"): games played, wins, the current and the best streak of wins, and
// the best time. Practice is the player's own and counts on no board, so its figures
// live with the player's other practice records (records.js) and count offline games
// too. (The server's player_stats counts ranked games only.)
//
// A game counts once its first move is made (a deal looked at and left is no game); a
// win adds to the wins and the streak; a game given up, or left for a new one before
// it was won, is a loss and ends the streak.

import { clock } from "./game.js";
import { t, variantName } from "./i18n.js";

const KEY = "solitaire.stats";

export class PracticeStats {
  constructor(storage) {
    this.storage = storage;
  }

  read() {
    try {
      const kept = JSON.parse(this.storage.getItem(KEY) || "null");
      if (kept && typeof kept === "object" && kept.variants) return kept;
    } catch {
      // a broken entry starts the figures afresh
    }
    return { variants: {}, current: null };
  }

  write(stats) {
    this.storage.setItem(KEY, JSON.stringify(stats));
  }

  /** The figures of ``variant``: {games, wins, streak, bestStreak, bestMs}. */
  of(variant, stats = this.read()) {
    return { games: 0, wins: 0, streak: 0, bestStreak: 0, bestMs: null, ...stats.variants[variant] };
  }

  /** A view of practice game ``key`` (its id and start): counted at its first move,
   * ended by a win or by giving up. */
  viewed(key, view) {
    const stats = this.read();
    const current = stats.current;
    if (view.status === "playing" && view.counters.moves > 0 && current?.key !== key) {
      if (current) this.lose(stats, current.variant);
      const line = this.of(view.variant, stats);
      stats.variants[view.variant] = { ...line, games: line.games + 1 };
      stats.current = { key, variant: view.variant };
      this.write(stats);
    } else if (current?.key === key && view.status === "won") {
      const line = this.of(view.variant, stats);
      const ms = view.finished_at && view.started_at ? view.finished_at - view.started_at : null;
      const streak = line.streak + 1;
      stats.variants[view.variant] = {
        ...line,
        wins: line.wins + 1,
        streak,
        bestStreak: Math.max(line.bestStreak, streak),
        bestMs: ms !== null && (line.bestMs === null || ms < line.bestMs) ? ms : line.bestMs,
      };
      stats.current = null;
      this.write(stats);
    } else if (current?.key === key && view.status === "resigned") {
      this.lose(stats, current.variant);
      this.write(stats);
    }
  }

  /** A new practice game replaces the one being played: unwon, that one is lost. */
  replaced() {
    const stats = this.read();
    if (!stats.current) return;
    this.lose(stats, stats.current.variant);
    this.write(stats);
  }

  lose(stats, variant) {
    stats.variants[variant] = { ...this.of(variant, stats), streak: 0 };
    stats.current = null;
  }

  /** One line for under a practice win: "5 wins of 8 · streak 3 · best 3:12". */
  line(variant) {
    const s = this.of(variant);
    return t("statsLine", { wins: s.wins, games: s.games, streak: s.streak, best: s.bestMs === null ? "–" : clock(s.bestMs) });
  }

  /** The table of every variant played. */
  tableHtml(variants) {
    const stats = this.read();
    const rows = variants
      .map((variant) => [variant, this.of(variant, stats)])
      .filter(([, s]) => s.games > 0)
      .map(([variant, s]) => {
        const share = Math.round((100 * s.wins) / s.games);
        const best = s.bestMs === null ? "–" : clock(s.bestMs);
        return `<tr data-variant="${variant}"><td>${variantName(variant)}</td><td>${s.games}</td><td>${s.wins}</td><td>${share}%</td><td>${s.streak}</td><td>${s.bestStreak}</td><td>${best}</td></tr>`;
      });
    if (!rows.length) return `<p>${t("statsEmpty")}</p>`;
    const head = ["variant", "statsGames", "statsWins", "statsShare", "statsStreak", "statsBestStreak", "statsBestTime"]
      .map((key) => `<th>${t(key)}</th>`)
      .join("");
    return `<table class="ranking stats"><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
  }
}
