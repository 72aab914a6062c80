// Auto-play of safe cards (a setting, off unless chosen): after each move, a card that
// can go home and that no card still in play could ever need as a base is sent there,
// one at a time. The page only picks among the view's legal moves; the server checks
// each as it checks any move.
//
// "Safe" by how the variant builds its columns (rules.md):
// - alternating colours (Klondike, Yukon): a card is safe when it is an Ace or a Two,
//   or when both suits of the other colour are home up to one rank below it: every
//   card that could be laid on it is then home already;
// - the same suit downwards (Russian Solitaire): any card that may go home is safe,
//   since the only card that fits on it is the one below it in its suit, home already;
// - the same suit up or down (Alaska): only Aces and Twos, since the card above it in
//   its suit might still want it as a base;
// - Spider lifts its runs off by itself: nothing to play.

import { movingCard, parseMove } from "./moves.js";

const RANKS = { A: 1, J: 11, Q: 12, K: 13 };
const OTHER_COLOUR = { c: ["d", "h"], s: ["d", "h"], d: ["c", "s"], h: ["c", "s"] };

function rank(card) {
  const text = card.slice(0, -1);
  return RANKS[text] ?? Number(text);
}

/** How many cards of ``suit`` are home in ``view``. */
function homeCount(view, suit) {
  return Math.max(0, ...(view.foundations || []).filter((f) => f.suit === suit).map((f) => f.cards));
}

/** Whether ``card`` may go home without a later move ever missing it, in ``view``'s variant. */
export function isSafe(view, card) {
  const r = rank(card);
  if (r <= 2) return true;
  const variant = view.variant;
  if (variant === "russian") return true;
  if (variant.startsWith("klondike") || variant === "yukon") {
    return OTHER_COLOUR[card.slice(-1)].every((suit) => homeCount(view, suit) >= r - 1);
  }
  return false;
}

/** The first legal move of ``view`` that sends one safe card home, or null. */
export function safeMove(view) {
  if (view.status !== "playing" || view.variant.startsWith("spider")) return null;
  for (const texts of Object.values(view.legal_moves || {})) {
    for (const text of texts) {
      const move = parseMove(text);
      if (!move || move.target !== "f" || move.size !== 1 || move.source.startsWith("f")) continue;
      const card = movingCard(view, move.source, 1);
      if (card && isSafe(view, card)) return text;
    }
  }
  return null;
}
