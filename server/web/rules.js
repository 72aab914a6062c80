// The engine's rules in the page, so practice plays on without the server (offline).
// A port of engine/ (rules.py, klondike.py, spider.py, yukon.py, notation.py's tap,
// view.py; hints.py is hints.js): the same deals from the same seeds, the same legal
// moves in the same order, the same view. tests/server/test_web_rules.py plays random
// lines in both and compares every view, hint and one-tap move, for every variant; the
// Python engine stays the referee of everything that counts (races, dailies, records
// sent later are replayed by the server).
//
// Cards are numbers 0..51 (suit × 13 + rank − 1, suits c d h s); a position holds
// plain arrays, copied on change, so the undo stack keeps earlier positions as they were.

import { dealCode, shuffled } from "./deal.js";
import { hintMove } from "./hints.js";

export const WASTE = -1;
export const FOUNDATION = -2;
export const STOCK = -3;
export const FOUNDATION_BASE = -10; // foundation k as a source

const RANK = Array.from({ length: 52 }, (_, c) => (c % 13) + 1);
const SUIT = Array.from({ length: 52 }, (_, c) => Math.floor(c / 13));
const RED = SUIT.map((s) => s === 1 || s === 2);
const RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const CODES = RANK.map((r, c) => RANK_NAMES[r - 1] + "cdhs"[SUIT[c]]);
const KING = 13;

const UNIT_ALTERNATING = 0;
const UNIT_SUITED_RUN = 1;
const UNIT_FACE_UP = 2;
const HOME_NONE = 0;
const HOME_BY_SUIT = 1;
const HOME_FIRST_FREE = 2;

// ---- moves ----------------------------------------------------------------------------

function sourceKey(source) {
  if (source >= 0) return String(source + 1);
  if (source === WASTE) return "w";
  if (source === STOCK) return "d";
  return `f${FOUNDATION_BASE - source + 1}`;
}

/** A move: source and target are column indexes or the codes above; size the cards. */
export function move(source, target, size = 1) {
  return { source, target, size };
}

export const DRAW = move(STOCK, STOCK, 1);

/** The canonical text of a move (docs/notation.md). */
export function notation(m) {
  if (m.source === STOCK) return "d";
  const target = m.target === FOUNDATION ? "f" : String(m.target + 1);
  const source = sourceKey(m.source) + (m.size !== 1 ? `:${m.size}` : "");
  return `${source}>${target}`;
}

const CANONICAL = /^(w|f[1-8]|[1-9]|10)(?::([1-9][0-9]?))?>(f|[1-9]|10)$/;

/** A move in canonical form, or null. */
export function fromNotation(text) {
  if (text === "d") return DRAW;
  const match = CANONICAL.exec(text);
  if (!match) return null;
  const [, src, count, dst] = match;
  const source = src === "w" ? WASTE : src[0] === "f" ? FOUNDATION_BASE - (Number(src.slice(1)) - 1) : Number(src) - 1;
  const size = count ? Number(count) : 1;
  if ((count && size === 1) || (size !== 1 && source < 0)) return null;
  return move(source, dst === "f" ? FOUNDATION : Number(dst) - 1, size);
}

const same = (a, b) => a.source === b.source && a.target === b.target && a.size === b.size;

// ---- the variants ---------------------------------------------------------------------

function alternatingTables() {
  const key = RANK.map((r, c) => r * 2 + (RED[c] ? 1 : 0));
  const wants = RANK.map((r, t) => (r > 1 ? [(r - 1) * 2 + (RED[t] ? 0 : 1)] : []));
  return { key, wants };
}

const ALT = alternatingTables();
const KING_ONLY = RANK.map((r) => r === KING);
const SAME_SUIT_KEY = RANK.map((_, c) => c);
const DOWN_IN_SUIT = RANK.map((r, t) => (r > 1 ? [t - 1] : []));
const UP_OR_DOWN_IN_SUIT = RANK.map((r, t) => [...(r > 1 ? [t - 1] : []), ...(r < KING ? [t + 1] : [])]);

const KLONDIKE = {
  family: "klondike", columns: 7, foundations: 4, total: 52, hasStock: true, hasWaste: true,
  suited: true, key: ALT.key, wants: ALT.wants, opensEmpty: KING_ONLY,
  unit: UNIT_ALTERNATING, home: HOME_BY_SUIT, giveBack: true, defaults: { passes: 0 },
};
const SPIDER = {
  family: "spider", columns: 10, foundations: 8, total: 104, hasStock: true, hasWaste: false,
  suited: false, key: RANK, wants: RANK.map((r) => (r > 1 ? [r - 1] : [])),
  opensEmpty: RANK.map(() => true), unit: UNIT_SUITED_RUN, home: HOME_NONE, giveBack: false,
  defaults: { layout: "seed" },
};
const YUKON = {
  family: "yukon", columns: 7, foundations: 4, total: 52, hasStock: false, hasWaste: false,
  suited: false, key: ALT.key, wants: ALT.wants, opensEmpty: KING_ONLY,
  unit: UNIT_FACE_UP, home: HOME_FIRST_FREE, giveBack: true, defaults: {},
  inOrder: (lower, upper) => RANK[lower] === RANK[upper] + 1 && RED[lower] !== RED[upper],
};
const IN_SUIT = (lower, upper) => lower === upper + 1 && SUIT[lower] === SUIT[upper];

export const VARIANTS = {
  klondike: { ...KLONDIKE, draw: 1 },
  "klondike-3": { ...KLONDIKE, draw: 3 },
  "spider-1": { ...SPIDER, suits: [3] },
  "spider-2": { ...SPIDER, suits: [2, 3] },
  "spider-4": { ...SPIDER, suits: [0, 1, 2, 3] },
  yukon: YUKON,
  russian: { ...YUKON, key: SAME_SUIT_KEY, wants: DOWN_IN_SUIT, inOrder: IN_SUIT },
  alaska: { ...YUKON, key: SAME_SUIT_KEY, wants: UP_OR_DOWN_IN_SUIT, inOrder: IN_SUIT },
};

const LAYOUTS = { seed: [5, 5, 5, 5, 5, 5, 5, 5, 5, 5], digital: [6, 6, 6, 6, 5, 5, 5, 5, 5, 5] };
const YUKON_SIZES = [1, 6, 7, 8, 9, 10, 11];
const SPIDER_START = 500;

/** The rules of ``variant`` with ``options`` (the engine's ``rules_for``). */
export function rulesFor(variant, options = {}) {
  const base = VARIANTS[variant];
  if (!base) throw new Error(`unknown variant ${variant}`);
  const opts = { ...base.defaults };
  for (const [name, value] of Object.entries(options || {})) {
    if (!(name in base.defaults) || typeof value !== typeof base.defaults[name]) {
      throw new Error(`${variant} has no option ${name}=${value}`);
    }
    opts[name] = value;
  }
  if (base.family === "klondike" && (!Number.isInteger(opts.passes) || opts.passes < 0)) {
    throw new Error("option passes must be 0 (no limit) or a positive number");
  }
  if (base.family === "spider" && !LAYOUTS[opts.layout]) throw new Error(`no layout ${opts.layout}`);
  return new Rules(variant, base, opts);
}

class Rules {
  constructor(variant, spec, options) {
    Object.assign(this, spec);
    this.variant = variant;
    this.options = options;
    this.passes = options.passes ?? 0;
  }

  // ---- the deal -----------------------------------------------------------------------

  deal(seed) {
    if (this.family === "spider") {
      const deck = [];
      for (let copy = 0; copy < 8 / this.suits.length; copy += 1) {
        for (const s of this.suits) for (let r = 1; r <= 13; r += 1) deck.push(s * 13 + r - 1);
      }
      return this.layOut(shuffled(deck, seed), LAYOUTS[this.options.layout], (n) => n - 1, SPIDER_START, 0);
    }
    const cards = shuffled([...Array(52).keys()], seed);
    if (this.family === "klondike") return this.layOut(cards, [1, 2, 3, 4, 5, 6, 7], (n) => n - 1, 0, 4);
    return this.layOut(cards, YUKON_SIZES, (_, i) => i, 0, 4);
  }

  /** Columns take their cards column by column from the bottom up; the rest is the
   * stock with the next card to deal on top. */
  layOut(deck, sizes, downOf, score, foundations) {
    const tableau = [];
    let start = 0;
    for (const size of sizes) {
      tableau.push(deck.slice(start, start + size));
      start += size;
    }
    return {
      tableau,
      down: sizes.map(downOf),
      stock: deck.slice(start).reverse(),
      waste: [],
      fan: 0,
      foundations: Array.from({ length: foundations }, () => []),
      redeals: 0,
      moves: 0,
      score,
    };
  }

  // ---- building -----------------------------------------------------------------------

  unitLength(col, down) {
    const n = col.length;
    if (this.unit === UNIT_FACE_UP) return n - down;
    let k = n - 1;
    if (this.unit === UNIT_ALTERNATING) {
      while (k > down && RANK[col[k - 1]] === RANK[col[k]] + 1 && RED[col[k - 1]] !== RED[col[k]]) k -= 1;
    } else {
      while (k > down && col[k - 1] === col[k] + 1 && RANK[col[k - 1]] > 1) k -= 1;
    }
    return n - k;
  }

  foundationSlot(foundations, card) {
    if (this.home === HOME_NONE) return null;
    if (this.home === HOME_BY_SUIT) return foundations[SUIT[card]].length === RANK[card] - 1 ? SUIT[card] : null;
    if (RANK[card] === 1) {
      const free = foundations.findIndex((pile) => pile.length === 0);
      return free >= 0 ? free : null;
    }
    const on = foundations.findIndex((pile) => pile.length && pile.at(-1) === card - 1);
    return on >= 0 ? on : null;
  }

  // ---- legal moves (Rules.interpreted_moves, the same list in the same order) ---------

  legalMoves(pos) {
    const moves = [];
    const byKey = new Map();
    const empties = [];
    pos.tableau.forEach((col, j) => {
      if (!col.length) return empties.push(j);
      for (const key of this.wants[col.at(-1)]) {
        if (byKey.has(key)) byKey.get(key).push(j);
        else byKey.set(key, [j]);
      }
    });
    pos.tableau.forEach((col, i) => {
      if (col.length && this.foundationSlot(pos.foundations, col.at(-1)) !== null) moves.push(move(i, FOUNDATION));
    });
    const waste = pos.waste;
    if (waste.length && this.foundationSlot(pos.foundations, waste.at(-1)) !== null) moves.push(move(WASTE, FOUNDATION));
    const onto = (card, add) => {
      for (const j of byKey.get(this.key[card]) || []) add(j);
      if (empties.length && this.opensEmpty[card]) for (const j of empties) add(j);
    };
    if (waste.length) onto(waste.at(-1), (j) => moves.push(move(WASTE, j)));
    pos.tableau.forEach((col, i) => {
      if (!col.length) return;
      const unit = this.unitLength(col, pos.down[i]);
      for (let count = 1; count <= unit; count += 1) {
        onto(col[col.length - count], (j) => j !== i && moves.push(move(i, j, count)));
      }
    });
    if (this.giveBack) {
      pos.foundations.forEach((pile, s) => {
        if (pile.length) onto(pile.at(-1), (j) => moves.push(move(FOUNDATION_BASE - s, j)));
      });
    }
    if (this.canUseStock(pos)) moves.push(DRAW);
    return moves;
  }

  canUseStock(pos) {
    if (this.family === "klondike") return pos.stock.length > 0 || (pos.waste.length > 0 && this.redealLeft(pos.redeals));
    if (this.family === "spider") return pos.stock.length > 0 && pos.tableau.every((col) => col.length);
    return false;
  }

  redealLeft(redeals) {
    return this.passes === 0 || redeals < this.passes - 1;
  }

  // ---- playing ------------------------------------------------------------------------

  apply(pos, m) {
    if (m.source === STOCK) return this.family === "spider" ? this.deal_row(pos) : this.draw_cards(pos);
    if (this.family === "spider") return this.spiderMove(pos, m);
    return this.moveCards(pos, m);
  }

  /** Turn up to ``draw`` cards onto the waste, or the waste over as the stock, its
   * order kept (rules.md "Redeal"). */
  draw_cards(pos) {
    if (pos.stock.length) {
      const n = Math.min(this.draw, pos.stock.length);
      const drawn = pos.stock.slice(-n).reverse();
      return { ...pos, stock: pos.stock.slice(0, -n), waste: [...pos.waste, ...drawn], fan: n, moves: pos.moves + 1 };
    }
    return { ...pos, stock: [...pos.waste].reverse(), waste: [], fan: 0, redeals: pos.redeals + 1, moves: pos.moves + 1 };
  }

  /** A move between columns, waste and foundations; a column's new top card turns up
   * as part of the move; the Klondike seed's score. */
  moveCards(pos, m) {
    const tableau = [...pos.tableau];
    let { down, foundations, waste, fan, score } = pos;
    let cards;
    if (m.source >= 0) {
      const col = tableau[m.source];
      cards = col.slice(col.length - m.size);
      const rest = col.slice(0, col.length - m.size);
      tableau[m.source] = rest;
      if (rest.length && rest.length === down[m.source]) {
        down = down.map((d, i) => (i === m.source ? d - 1 : d));
        score += 5;
      }
    } else if (m.source === WASTE) {
      cards = waste.slice(-1);
      waste = waste.slice(0, -1);
      fan = Math.max(fan - 1, 0);
    } else {
      const s = FOUNDATION_BASE - m.source;
      cards = foundations[s].slice(-1);
      foundations = foundations.map((pile, i) => (i === s ? pile.slice(0, -1) : pile));
      score -= 15;
    }
    if (m.target >= 0) {
      tableau[m.target] = [...tableau[m.target], ...cards];
      if (m.source === WASTE) score += 5;
    } else {
      const slot = this.foundationSlot(foundations, cards[0]);
      foundations = foundations.map((pile, i) => (i === slot ? [...pile, ...cards] : pile));
      score += 10;
    }
    return { ...pos, tableau, down, waste, fan, foundations, moves: pos.moves + 1, score: Math.max(score, 0) };
  }

  /** Deal one card onto each pile from the first, then lift the runs it completes. */
  deal_row(pos) {
    const n = Math.min(this.columns, pos.stock.length);
    const tableau = pos.tableau.map((col, i) => (i < n ? [...col, pos.stock[pos.stock.length - 1 - i]] : col));
    let dealt = { ...pos, tableau, stock: pos.stock.slice(0, pos.stock.length - n) };
    for (let i = 0; i < n; i += 1) dealt = this.liftRun(dealt, i);
    return this.scored(dealt, pos.moves + 1);
  }

  spiderMove(pos, m) {
    const col = pos.tableau[m.source];
    const rest = col.slice(0, col.length - m.size);
    const tableau = [...pos.tableau];
    tableau[m.source] = rest;
    tableau[m.target] = [...tableau[m.target], ...col.slice(col.length - m.size)];
    let down = pos.down;
    if (rest.length && rest.length === down[m.source]) down = down.map((d, i) => (i === m.source ? d - 1 : d));
    return this.scored(this.liftRun({ ...pos, tableau, down }, m.target), pos.moves + 1);
  }

  /** Lift a complete King-to-Ace run of one suit off the top of pile ``i``. */
  liftRun(pos, i) {
    const col = pos.tableau[i];
    if (col.length - pos.down[i] < 13 || RANK[col.at(-1)] !== 1) return pos;
    if (this.unitLength(col, pos.down[i]) < 13) return pos;
    const rest = col.slice(0, -13);
    let down = pos.down;
    if (rest.length && rest.length === down[i]) down = down.map((d, k) => (k === i ? d - 1 : d));
    const tableau = pos.tableau.map((c, k) => (k === i ? rest : c));
    return { ...pos, tableau, down, foundations: [...pos.foundations, col.slice(-13).reverse()] };
  }

  scored(pos, moves) {
    return { ...pos, moves, score: Math.max(0, SPIDER_START - moves + 100 * pos.foundations.length) };
  }

  // ---- the end ------------------------------------------------------------------------

  foundationCards(pos) {
    return pos.foundations.reduce((sum, pile) => sum + pile.length, 0);
  }

  isWon(pos) {
    return this.foundationCards(pos) === this.total;
  }

  isStuck(pos, legal) {
    if (this.isWon(pos)) return false;
    if (this.family === "spider") return legal.length === 0;
    if (this.family === "yukon") return legal.every((m) => m.source <= FOUNDATION_BASE);
    if (this.helpful(pos, legal)) return false;
    return !legal.some((m) => m.source <= FOUNDATION_BASE && this.opensPlay(pos, m));
  }

  /** Klondike's "no more moves" (seed 000, engine/klondike.py ``is_stuck``). */
  helpful(pos, legal) {
    for (const m of legal) {
      if (m.target === FOUNDATION || m.source === WASTE) return true;
      if (m.source >= 0 && this.helpfulColumnMove(pos, m)) return true;
    }
    return this.stockPlayable(pos);
  }

  opensPlay(pos, back) {
    const after = this.apply(pos, back);
    const onward = this.legalMoves(after).filter((m) => m.target !== FOUNDATION && m.source > FOUNDATION_BASE);
    return this.helpful(after, onward);
  }

  helpfulColumnMove(pos, m) {
    const col = pos.tableau[m.source];
    const rest = col.length - m.size;
    if (rest === pos.down[m.source]) return rest > 0 || RANK[col[0]] !== KING;
    return this.foundationSlot(pos.foundations, col[rest - 1]) !== null;
  }

  /** Whether a card the stock brings to the waste top, cycled untouched as far as the
   * pass limit allows, fits somewhere now. */
  stockPlayable(pos) {
    const stock = [...pos.stock];
    let waste = [...pos.waste];
    let redeals = pos.redeals;
    for (let step = 0; step < 2 * (stock.length + waste.length) + 2; step += 1) {
      if (stock.length) {
        for (let k = Math.min(this.draw, stock.length); k > 0; k -= 1) waste.push(stock.pop());
        if (this.playableAnywhere(pos, waste.at(-1))) return true;
      } else if (waste.length && this.redealLeft(redeals)) {
        stock.push(...waste.reverse());
        waste = [];
        redeals += 1;
      } else {
        return false;
      }
    }
    return false;
  }

  playableAnywhere(pos, card) {
    if (this.foundationSlot(pos.foundations, card) !== null) return true;
    return pos.tableau.some((col) =>
      col.length ? this.wants[col.at(-1)].includes(this.key[card]) : this.opensEmpty[card],
    );
  }

  canFinish(pos) {
    if (this.family === "spider" || this.isWon(pos) || pos.down.some((d) => d > 0)) return false;
    if (this.family === "klondike") {
      return !pos.stock.length && !pos.waste.length && pos.tableau.every((col) => !col.length || this.unitLength(col, 0) === col.length);
    }
    return pos.tableau.every((col) => col.every((card, k) => k === 0 || this.inOrder(col[k - 1], card)));
  }

  /** Every card home one at a time, lowest rank first (valid when canFinish). */
  finishingMoves(pos) {
    const moves = [];
    while (!this.isWon(pos)) {
      let best = null;
      let bestRank = KING + 1;
      pos.tableau.forEach((col, i) => {
        if (col.length && this.foundationSlot(pos.foundations, col.at(-1)) !== null && RANK[col.at(-1)] < bestRank) {
          best = move(i, FOUNDATION);
          bestRank = RANK[col.at(-1)];
        }
      });
      if (!best) break;
      moves.push(best);
      pos = this.apply(pos, best);
    }
    return moves;
  }

  // ---- taps, and what hints rank by (engine/notation.py) --------------------------

  movingCard(pos, m) {
    if (m.source >= 0) return pos.tableau[m.source][pos.tableau[m.source].length - m.size];
    if (m.source === WASTE) return pos.waste.at(-1);
    return pos.foundations[FOUNDATION_BASE - m.source].at(-1);
  }

  isSafeHome(pos, card) {
    if (RANK[card] <= 2) return true;
    const home = new Set(pos.foundations.flat());
    const wanted = this.wants[card];
    for (let c = 0; c < 52; c += 1) if (wanted.includes(this.key[c]) && !home.has(c)) return false;
    return true;
  }

  columnMoveRank(pos, m) {
    let turnsUp = 0;
    if (m.source >= 0) {
      const left = pos.tableau[m.source].length - m.size;
      turnsUp = left > 0 && left === pos.down[m.source] ? 1 : 0;
    }
    const target = pos.tableau[m.target];
    const card = this.movingCard(pos, m);
    const sameSuit = target.length && SUIT[target.at(-1)] === SUIT[card] ? 1 : 0;
    return [turnsUp, target.length ? 1 : 0, sameSuit, m.size, -m.target];
  }

  /** The first of ``moves`` with the largest rank, as Python's max() picks. */
  bestRanked(pos, moves) {
    let best = null;
    let bestRank = null;
    for (const m of moves) {
      const rank = this.columnMoveRank(pos, m);
      if (best === null || compare(rank, bestRank) > 0) [best, bestRank] = [m, rank];
    }
    return best;
  }

  /** Where a tapped source goes ("wherever it fits", notation.py ``best_move``). */
  bestMove(pos, legal, fromSource) {
    const candidates = legal.filter((m) => m.source !== STOCK && fromSource(m));
    const home = candidates.filter((m) => m.target === FOUNDATION);
    if (home.length && this.isSafeHome(pos, this.movingCard(pos, home[0]))) return home[0];
    const columns = candidates.filter((m) => m.target >= 0);
    if (columns.length) return this.bestRanked(pos, columns);
    return home[0] ?? null;
  }
}

function compare(a, b) {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

// ---- a game -----------------------------------------------------------------------------

const STOCK_WORDS = new Set(["d", "draw", "deal", "stock", "ziehen", "geben", "austeilen", "talon", "karte"]);

export class MoveError extends Error {}

/** One game: a deal, its rules and what the player did (engine/game.py). */
export class LocalGame {
  constructor(variant, seed, options = {}) {
    this.rules = rulesFor(variant, options);
    this.variant = variant;
    this.seed = BigInt(seed);
    this.position = this.rules.deal(this.seed);
    this.before = [];
    this.actions = [];
    this.undos = 0;
    this.hints = 0;
    this.cached = null;
  }

  legal() {
    if (this.cached?.pos !== this.position) this.cached = { pos: this.position, moves: this.rules.legalMoves(this.position) };
    return this.cached.moves;
  }

  /** The legal move ``text`` names: canonical form, the stock, a source alone (the
   * one-tap rule: ``7``, ``7:3``, ``w``, ``f2``) or a source and a target (``7 3``). */
  parse(text) {
    const legal = this.legal();
    const raw = text.trim();
    const canonical = fromNotation(raw);
    if (canonical && legal.some((m) => same(m, canonical))) return legal.find((m) => same(m, canonical));
    const words = raw.toLowerCase().split(/[\s>,→-]+/).filter(Boolean);
    if (words.length === 1 && STOCK_WORDS.has(words[0])) {
      if (legal.includes(DRAW)) return DRAW;
      throw new MoveError("stock");
    }
    const source = words.length && words.length <= 2 ? this.readSource(words[0]) : null;
    if (!source) throw new MoveError("invalid");
    if (words.length === 1) {
      const found = this.rules.bestMove(this.position, legal, source);
      if (!found) throw new MoveError("nothing");
      return found;
    }
    const word = words[1];
    const target = word === "f" ? FOUNDATION : /^\d+$/.test(word) && Number(word) >= 1 && Number(word) <= this.rules.columns ? Number(word) - 1 : null;
    if (target === null) throw new MoveError("invalid");
    const matches = legal.filter((m) => m.target === target && source(m));
    if (matches.length !== 1) throw new MoveError(matches.length ? "ambiguous" : "illegal");
    return matches[0];
  }

  /** A predicate on moves for a source word (``_from_source``), or null. */
  readSource(word) {
    if (word === "w" || word === "waste") return (m) => m.source === WASTE;
    if (word === "f") return (m) => m.source <= FOUNDATION_BASE;
    let match = /^f(\d)$/.exec(word);
    if (match) return (m) => m.source === FOUNDATION_BASE - (Number(match[1]) - 1);
    match = /^(\d{1,2})(?::(\d{1,2}))?$/.exec(word);
    if (!match) return null;
    const index = Number(match[1]) - 1;
    const count = match[2] ? Number(match[2]) : null;
    if (index < 0 || index >= this.rules.columns || count === 0) return null;
    return (m) => m.source === index && (count === null || m.size === count);
  }

  play(text) {
    const m = typeof text === "string" ? this.parse(text) : text;
    if (typeof text !== "string" && !this.legal().some((l) => same(l, m))) throw new MoveError("illegal");
    this.before.push(this.position);
    this.position = this.rules.apply(this.position, m);
    this.actions.push(notation(m));
    return m;
  }

  undo() {
    if (!this.before.length) throw new MoveError("nothing_to_undo");
    this.position = this.before.pop();
    this.undos += 1;
    this.actions.push("undo");
  }

  /** A hint, counted (``Game.hint``). */
  hint() {
    this.hints += 1;
    this.actions.push("hint");
    return this.suggestion();
  }

  /** The hint where the game stands, not counted (engine/hints.py). */
  suggestion() {
    const m = hintMove(this.rules, this.position, this.line());
    return m ? notation(m) : null;
  }

  /** The line of play: each position on the way here with the move played from it. */
  line() {
    const played = [];
    for (const action of this.actions) {
      if (action === "undo") played.pop();
      else if (action !== "hint") played.push(fromNotation(action));
    }
    return this.before.map((pos, i) => [pos, played[i]]);
  }

  /** Apply a stored action: a canonical move, "undo" or "hint" (only counted). */
  playAction(action) {
    if (action === "undo") return this.undo();
    if (action === "hint") {
      this.hints += 1;
      this.actions.push("hint");
      return null;
    }
    const m = fromNotation(action);
    if (!m) throw new MoveError(`not canonical: ${action}`);
    return this.play(m);
  }

  get won() {
    return this.rules.isWon(this.position);
  }

  get outcome() {
    if (this.won) return "won";
    return this.rules.isStuck(this.position, this.legal()) ? "no_moves" : null;
  }

  get canFinish() {
    return this.rules.canFinish(this.position);
  }

  finishingMoves() {
    return this.canFinish ? this.rules.finishingMoves(this.position).map(notation) : [];
  }

  /** The player's view, as engine/view.py builds it: no face-down or stock card. */
  view() {
    const rules = this.rules;
    const pos = this.position;
    const legal = {};
    for (const m of this.legal()) (legal[sourceKey(m.source)] ||= []).push(notation(m));
    const view = {
      variant: this.variant,
      seed: this.seed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(this.seed) : String(this.seed),
      deal_code: dealCode(this.seed),
      options: { ...rules.options },
      tableau: pos.tableau.map((col, i) => ({ down: pos.down[i], up: col.slice(pos.down[i]).map((c) => CODES[c]) })),
      stock: rules.hasStock ? pos.stock.length : null,
      waste: null,
      foundations: pos.foundations.map((pile, i) => ({
        suit: pile.length ? "cdhs"[SUIT[pile[0]]] : rules.suited ? "cdhs"[i] : null,
        cards: pile.length,
        top: pile.length ? CODES[pile.at(-1)] : null,
      })),
      counters: { moves: pos.moves, undos: this.undos, hints: this.hints, score: pos.score },
      outcome: this.outcome,
      can_finish: this.canFinish,
      legal_moves: legal,
    };
    if (rules.hasWaste) {
      const shown = pos.waste.length ? Math.max(pos.fan, 1) : 0;
      view.waste = { count: pos.waste.length, visible: shown ? pos.waste.slice(-shown).map((c) => CODES[c]) : [] };
      view.passes = pos.redeals;
    }
    if (rules.foundations === 8) {
      view.runs_removed = pos.foundations.length;
      view.deals_left = Math.ceil(pos.stock.length / rules.columns);
    }
    return view;
  }
}
