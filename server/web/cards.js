// The markup of cards and empty places, drawn in CSS (no images). A face-up card
// carries its code (``data-card``), its colour (``red``/``black``) and its suit
// (``s-c``, ``s-d``, ``s-h``, ``s-s``: the four-colour deck of settings.js); a
// face-down card carries nothing of its identity, since the view never names it.

import { cardName } from "./i18n.js";

export const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RED = new Set(["d", "h"]);

/** An empty place (or the frame under a pile), a button for taps and the keyboard. */
export function slotHtml(pile, style, label, kind, mark = "") {
  return `<div class="slot ${kind}" style="${style}" data-pile="${pile}" role="button" tabindex="0" aria-label="${escape(label)}">${mark}</div>`;
}

/** A face-up card; ``pile`` and ``index`` make it a source of moves, ``playable`` a button. */
export function cardHtml(card, style, pile = null, index = 0, playable = false) {
  const rank = card.slice(0, -1);
  const suit = card.slice(-1);
  const colour = RED.has(suit) ? "red" : "black";
  const where = pile ? ` data-pile="${pile}" data-index="${index}"` : "";
  const focus = playable ? ` role="button" tabindex="0"` : "";
  return `<div class="card face ${colour} s-${suit}" style="${style}"${where}${focus} data-card="${card}" aria-label="${escape(cardName(card))}"><span class="rank">${rank}</span><span class="suit">${SUITS[suit]}</span><span class="pip">${SUITS[suit]}</span></div>`;
}

export function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
