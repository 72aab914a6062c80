// The hint in the page, for practice offline: engine/hints.py move for move (its
// docstring says why each tier is where it is). A hint never leads back to a position
// of the line of play, never takes back the last move, never turns the waste over again
// with no card moved since the last time, and moves the game on tier by tier.
// tests/server/test_web_rules.py holds every hint to the engine's, hints alone included.
//
// Positions and rules are rules.js's; the functions take the rules as their first word.

import { DRAW, FOUNDATION, FOUNDATION_BASE, STOCK, WASTE } from "./rules.js";

// The tiers, best first.
const [SAFE_HOME, TURNS_UP, HOME, FROM_WASTE, SETTLES] = [0, 1, 2, 3, 4];
const PROGRESS = [SAFE_HOME, TURNS_UP, HOME, FROM_WASTE, SETTLES];
const IRREVERSIBLE = [TURNS_UP, FROM_WASTE];

const isKing = (card) => card % 13 === 12; // a card is suit × 13 + rank − 1
const sum = (values) => values.reduce((total, v) => total + v, 0);

function compare(a, b) {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Whether cards are left in a stock that deals onto the piles by number (Spider). */
function dealsOntoPiles(rules, pos) {
  return pos.stock.length > 0 && rules.hasStock && !rules.hasWaste;
}

/** What decides a position's future (``position_key``): the columns with their
 * face-down counts, in any order but while Spider's stock deals onto them by number,
 * the stock and the waste. */
export function positionKey(rules, pos) {
  const columns = pos.tableau.map((col, i) => `${pos.down[i]}:${col.join(",")}`);
  if (!dealsOntoPiles(rules, pos)) columns.sort();
  return `${columns.join("/")}|${pos.stock.join(",")}|${pos.waste.join(",")}`;
}

/** Whether a face-up card lies where it belongs: on the card it builds on (Spider: in
 * suit), or as a King at the bottom. */
function settled(rules, pos, column, index) {
  const col = pos.tableau[column];
  const card = col[index];
  if (index === 0) return isKing(card);
  if (index - 1 < pos.down[column]) return false;
  const below = col[index - 1];
  if (rules.hasStock && !rules.hasWaste) return below === card + 1 && !isKing(card);
  return rules.wants[below].includes(rules.key[card]);
}

function hintRank(rules, pos, m) {
  const down = m.source >= 0 ? pos.down[m.source] : -1;
  if (m.target < 0) return [down, 1, 0, 0, 0, 0];
  const [, onto, sameSuit, size, column] = rules.columnMoveRank(pos, m);
  return [down, 0, onto, sameSuit, size, column];
}

/** Whether ``m`` carries back the cards ``last`` just carried from ``before``. */
function undoes(rules, before, last, pos, m) {
  if (last.source === STOCK || last.source === WASTE || m.source === STOCK || m.size !== last.size) return false;
  if (last.target === FOUNDATION ? m.source > FOUNDATION_BASE : m.source !== last.target) return false;
  const back = last.source <= FOUNDATION_BASE ? FOUNDATION : last.source;
  return m.target === back && rules.movingCard(pos, m) === rules.movingCard(before, last);
}

/** Turning the waste over again only once a card moved since the last time. */
function redealAllowed(pos, history) {
  if (pos.stock.length) return true;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const [earlier, m] = history[i];
    if (m.source !== STOCK) return true;
    if (!earlier.stock.length) return false;
  }
  return true;
}

function emptiesBeforeDeal(rules, pos, m) {
  return dealsOntoPiles(rules, pos) && m.source >= 0 && m.size === pos.tableau[m.source].length;
}

function settling(rules, pos, m, after) {
  const index = pos.tableau[m.source].length - m.size;
  const landed = after.tableau[m.target].length - m.size;
  return [settled(rules, pos, m.source, index), settled(rules, after, m.target, landed)];
}

/** The progress tier of ``m`` from ``pos`` to ``after``, or null. */
function tier(rules, pos, m, after) {
  if (m.source === STOCK) return null;
  if (m.target === FOUNDATION) return rules.isSafeHome(pos, rules.movingCard(pos, m)) ? SAFE_HOME : HOME;
  if (after.foundations.length > pos.foundations.length) return SAFE_HOME; // a Spider run lifted
  if (sum(after.down) < sum(pos.down)) return TURNS_UP;
  if (emptiesBeforeDeal(rules, pos, m)) return null;
  if (m.source === WASTE) return FROM_WASTE;
  if (m.source >= 0) {
    const [was, now] = settling(rules, pos, m, after);
    if (!was && now) return SETTLES;
  }
  return null;
}

/** Whether ``m`` opens a move of the ``wanted`` tiers that no move from the same place
 * to the same place could make before it. */
function enables(rules, pos, legal, seen, m, after, wanted) {
  const before = new Set(legal.map((l) => `${l.source}>${l.target}`));
  const here = positionKey(rules, after);
  for (const then of rules.legalMoves(after)) {
    if (before.has(`${then.source}>${then.target}`) || undoes(rules, pos, m, after, then)) continue;
    const later = rules.apply(after, then);
    const key = positionKey(rules, later);
    if (key !== here && !seen.has(key) && wanted.includes(tier(rules, after, then, later))) return true;
  }
  return false;
}

/** The hint in ``pos`` after the line of play ``history`` ([position, move] pairs,
 * oldest first), or null (``hint_move``). */
export function hintMove(rules, pos, history = []) {
  if (rules.isWon(pos)) return null;
  const seen = new Set(history.map(([earlier]) => positionKey(rules, earlier)));
  seen.add(positionKey(rules, pos));
  const legal = rules.legalMoves(pos);
  const last = history.at(-1);
  const tiers = [];
  for (const m of legal) {
    if (last && undoes(rules, last[0], last[1], pos, m)) continue;
    const after = rules.apply(pos, m);
    if (!seen.has(positionKey(rules, after))) tiers.push([m, after, tier(rules, pos, m, after)]);
  }
  const best = (moves) => {
    let found = null;
    let foundRank = null;
    for (const m of moves) {
      const rank = hintRank(rules, pos, m);
      if (found === null || compare(rank, foundRank) > 0) [found, foundRank] = [m, rank];
    }
    return found;
  };
  const enabling = (m, after, wanted) => enables(rules, pos, legal, seen, m, after, wanted);

  for (const wanted of PROGRESS) {
    const found = best(tiers.filter(([, , t]) => t === wanted).map(([m]) => m));
    if (found) return found;
  }
  const rest = tiers.filter(([m, , t]) => t === null && m.source !== STOCK);
  // A move between columns that unsettles its card is never hinted.
  const opening = rest.filter(([m, after]) => {
    if (m.source < 0 || emptiesBeforeDeal(rules, pos, m)) return false;
    const [was, now] = settling(rules, pos, m, after);
    return !(was && !now) && enabling(m, after, PROGRESS);
  });
  let found = best(opening.map(([m]) => m));
  if (found) return found;
  if (tiers.some(([m]) => m.source === STOCK) && redealAllowed(pos, history)) return DRAW;
  // A card back from a foundation only for a card turned up or out of the waste.
  const back = rest.filter(([m, after]) => m.source <= FOUNDATION_BASE && enabling(m, after, IRREVERSIBLE));
  found = best(back.map(([m]) => m));
  if (found) return found;
  if (dealsOntoPiles(rules, pos) && !pos.tableau.every((col) => col.length)) {
    // A deal waits for the empty piles: one filled, from a pile that keeps cards.
    const fills = rest.filter(([m]) => m.source >= 0 && m.target >= 0 && !pos.tableau[m.target].length);
    return best(fills.filter(([m]) => !emptiesBeforeDeal(rules, pos, m)).map(([m]) => m));
  }
  return null;
}
