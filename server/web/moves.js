import { t } from "./i18n.js";

// Reading the view's legal moves (canonical notation, docs/notation.md) to light the
// targets of a card. The page never decides what is legal: it only looks up what the
// server's view lists, and sends what the player picked.

const MOVE = /^(\d+|w|f\d+)(?::(\d+))?>(\d+|f)$/;

/** A canonical move as {text, source, size, target}; the stock is source "d". */
export function parseMove(text) {
  if (text === "d") return { text, source: "d", size: 0, target: null };
  const match = MOVE.exec(text);
  if (!match) return null;
  return { text, source: match[1], size: match[2] ? Number(match[2]) : 1, target: match[3] };
}

/** The legal moves of ``view`` from ``source`` taking ``size`` cards (any size if null). */
export function movesFrom(view, source, size = null) {
  const texts = (view.legal_moves || {})[source] || [];
  return texts
    .map(parseMove)
    .filter((move) => move && (size === null || move.size === size));
}

/** The pile id a move's target lights up: "c3" for column 3, "f" for any foundation. */
export function targetPile(move) {
  if (move.target === "f") return "f";
  return `c${move.target}`;
}

/** Whether dropping on ``pile`` ("c3", "f2", "w", "s") is the target of ``move``. */
export function movesOnto(move, pile) {
  if (move.target === "f") return pile.startsWith("f");
  return pile === `c${move.target}`;
}

/** The text that sends a source alone: the server's one-tap rule picks the target. */
export function oneTapText(source, size) {
  if (/^\d+$/.test(source)) return `${source}:${size}`;
  return source;
}

/** The 1-based foundation a card would land on: its suit's, else the first free one. */
export function foundationFor(view, card) {
  const suit = card.slice(-1);
  const piles = view.foundations || [];
  const own = piles.findIndex((pile) => pile.suit === suit);
  if (own >= 0) return own + 1;
  const free = piles.findIndex((pile) => pile.cards === 0);
  return free >= 0 ? free + 1 : null;
}

/** The card a move from ``source`` taking ``size`` cards picks up (the deepest one). */
export function movingCard(view, source, size) {
  if (source === "w") return view.waste?.visible.at(-1) ?? null;
  if (source.startsWith("f")) return view.foundations[Number(source.slice(1)) - 1]?.top ?? null;
  const column = view.tableau[Number(source) - 1];
  return column ? (column.up[column.up.length - size] ?? null) : null;
}

/** A move in words for the player ("column 5 to its foundation"); ``spider`` deals. */
export function moveWords(text, spider = false) {
  const move = parseMove(text);
  if (!move) return text;
  if (move.source === "d") return t(spider ? "hintDeal" : "hintDraw");
  let source;
  if (move.source === "w") source = t("hintWaste");
  else if (move.source.startsWith("f")) source = t("hintFoundationSource", { n: move.source.slice(1) });
  else if (move.size > 1) source = t("hintCards", { n: move.size, column: move.source });
  else source = t("hintColumnSource", { n: move.source });
  const target = move.target === "f" ? t("hintToFoundation") : t("hintToColumn", { n: move.target });
  return `${source} ${target}`;
}
