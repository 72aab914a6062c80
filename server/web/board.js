// The table drawn from the server's view: cards in CSS (no downloaded art), the
// face-down ones as backs only (the view never names them). The player taps a card
// (or drags it) and the board turns that into a move text for the controller to send.
//
// Tapping: a card with one legal move goes at once; with several, it is selected and
// its targets light up; tapping a lit pile moves it there, tapping the card again
// sends it by the server's one-tap rule ("wherever it fits", docs/notation.md).

import { cardHtml, SUITS, slotHtml } from "./cards.js";
import { cardsHome, celebrate, flyHome } from "./celebrate.js";
import { cardName, t } from "./i18n.js";
import { tableLayout } from "./layout.js";
import { foundationFor, movesFrom, movesOnto, movingCard, oneTapText, parseMove } from "./moves.js";

const DRAG_START_PX = 6;

export class Board {
  constructor(root, send, announce) {
    this.root = root;
    this.send = send;
    this.announce = announce;
    this.view = null;
    this.interactive = true;
    this.selection = null;
    this.drag = null;
    this.hint = null;
    this.dropped = null;
    this.waiting = 0; // requests of the game under way: its cards wait for the reply
    this.tapped = null; // {pile, index} of a press let go without a drag: a tap, at its click
    this.sent = false; // whether the last tap sent a card away
    root.addEventListener("pointerdown", (event) => this.pointerDown(event));
    root.addEventListener("pointermove", (event) => this.pointerMove(event));
    root.addEventListener("pointerup", (event) => this.pointerUp(event));
    root.addEventListener("pointercancel", () => this.cancelDrag());
    root.addEventListener("click", (event) => this.clicked(event));
    root.addEventListener("keydown", (event) => this.keyDown(event));
    window.addEventListener("resize", () => this.draw());
  }

  show(view, interactive = true) {
    this.view = view;
    this.interactive = interactive;
    this.selection = null;
    this.drag = null;
    this.render(true);
  }

  // ---- moving cards glide (never delaying input: the board is final at once) --------

  /** Where each face-up card of ``groups`` lies, by its code, read from its style (no
   * layout forced); cards found twice, as in Spider's two decks, are left out: which
   * one moved cannot be told. Only changed piles are read: a card that moved left one
   * and entered another. */
  cardPlaces(groups) {
    const places = new Map();
    for (const group of groups) {
      for (const el of group.querySelectorAll(".card.face[data-card]")) {
        const card = el.dataset.card;
        places.set(card, places.has(card) ? null : [parseFloat(el.style.left), parseFloat(el.style.top)]);
      }
    }
    return places;
  }

  /** Let the cards that changed place slide there from where they were. */
  glide(before, groups, flying = new Set()) {
    const dropped = this.dropped;
    this.dropped = null;
    if (!before.size || !this.root.animate || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const after = this.cardPlaces(groups);
    for (const el of groups.flatMap((group) => [...group.querySelectorAll(".card.face[data-card]")])) {
      const from = before.get(el.dataset.card);
      const to = after.get(el.dataset.card);
      if (!from || !to || dropped?.has(el.dataset.card) || flying.has(el.dataset.card)) continue;
      const dx = from[0] - to[0];
      const dy = from[1] - to[1];
      if (dx || dy) {
        el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], {
          duration: 140,
          easing: "ease-out",
        });
      }
    }
  }

  // ---- layout -----------------------------------------------------------------------

  /** Where every slot of the table goes, for this view and the room on screen. */
  layout() {
    return tableLayout(this.view, {
      width: this.root.clientWidth,
      height: window.innerHeight,
      boardTop: this.root.getBoundingClientRect().top + window.scrollY,
      leftHanded: this.root.closest("[data-hand]")?.dataset.hand === "left",
    });
  }

  // ---- drawing ----------------------------------------------------------------------

  /** Draw the whole board anew (a resize, a drag put back, a refused move). */
  draw() {
    this.groupHtml = null;
    this.render(false);
  }

  /** Draw the view, each pile in its own group of elements: a pile whose markup is
   * unchanged keeps its elements, so a move rebuilds only the piles it touched (a
   * draw: the stock and the waste) and the browser restyles only those
   * (bench/web_load.py, "the page from the reply to the redrawn board"). */
  render(glide) {
    if (!this.view) return;
    const view = this.view;
    const previous = this.shown;
    this.shown = view;
    const L = this.layout();
    this.geometry = L;
    const piles = [];
    for (const { pile, slot } of L.top) piles.push([pile, this.topPile(pile, L.x(slot), L)]);
    view.tableau.forEach((column, i) => piles.push([`c${i + 1}`, this.column(column, i, L)]));
    const keys = piles.map(([key]) => key).join(" ");
    if (!this.groupHtml || this.groupKeys !== keys) {
      this.root.innerHTML = piles.map(([key]) => `<div class="pile-group" data-group="${key}"></div>`).join("");
      this.groups = new Map([...this.root.children].map((el) => [el.dataset.group, el]));
      this.groupHtml = new Map();
      this.groupKeys = keys;
    }
    const style = this.root.style;
    const size = [`${L.cardWidth}px`, `${L.cardHeight}px`, `${L.height}px`];
    if (style.getPropertyValue("--cw") !== size[0]) style.setProperty("--cw", size[0]);
    if (style.getPropertyValue("--ch") !== size[1]) style.setProperty("--ch", size[1]);
    if (style.height !== size[2]) style.height = size[2];
    const changed = piles.filter(([key, html]) => this.groupHtml.get(key) !== html);
    const groups = changed.map(([key]) => this.groups.get(key));
    const before = glide && this.groupHtml.size ? this.cardPlaces(groups) : null;
    for (const [key, html] of changed) {
      this.groups.get(key).innerHTML = html;
      this.groupHtml.set(key, html);
    }
    this.mark();
    if (before) {
      // Several cards home in one reply (the finish) fly there one by one instead.
      const slot = (i) => [L.x(L.top.find((p) => p.pile === `f${i + 1}`).slot), L.gap];
      const home = cardsHome(previous, view, before, slot);
      this.glide(before, groups, new Set(home.map((m) => m.card)));
      const landing = flyHome(this.root, home, cardHtml);
      this.landsAt = performance.now() + landing;
    } else this.dropped = null;
  }

  /** The win, shown: the foundations' cards leap off the table once the last card
   * flying home has landed (celebrate.js). */
  celebrate() {
    celebrate(this.root, cardHtml, Math.max(0, (this.landsAt ?? 0) - performance.now()));
  }

  topPile(pile, left, L) {
    const view = this.view;
    const at = (top, extra = "") => `left:${left}px;top:${top}px;${extra}`;
    if (pile === "s") {
      const n = view.stock;
      const label = n ? t("stockCards", { n }) : t("stockEmpty");
      const deals = L.spider && n ? `<span class="badge">${view.deals_left}</span>` : "";
      const body = n ? `<div class="card back" style="${at(L.gap)}" data-pile="s">${deals}</div>` : "";
      return `${slotHtml("s", at(L.gap), label, "stock")}${body}`;
    }
    if (pile === "w") {
      const { count, visible } = view.waste;
      const label = count
        ? t("wasteCards", { n: count, card: cardName(visible.at(-1)) })
        : t("wasteEmpty");
      const spread = Math.round(L.cardWidth * 0.3);
      const cards = visible.map((card, i) => {
        const topCard = i === visible.length - 1;
        // Left-handed, the waste fans the other way: its top card stays nearest the stock.
        const at = L.leftHanded ? left + (visible.length - 1 - i) * spread : left + i * spread;
        const style = `left:${at}px;top:${L.gap}px;z-index:${i + 1}`;
        return cardHtml(card, style, topCard ? "w" : null, 0, topCard);
      });
      return slotHtml("w", at(L.gap), label, "") + cards.join("");
    }
    const index = Number(pile.slice(1));
    if (L.spider) {
      const run = view.foundations[index - 1];
      const label = t("foundationEmpty", { n: index });
      if (!run) return slotHtml(pile, at(L.gap), label, "foundation");
      const card = run.top ?? `K${run.suit}`;
      return slotHtml(pile, at(L.gap), label, "foundation") + cardHtml(card, at(L.gap), null);
    }
    const found = view.foundations[index - 1];
    const label = found.cards
      ? t("foundationCards", { n: index, count: found.cards, card: cardName(found.top) })
      : t("foundationEmpty", { n: index });
    const mark = found.suit ? SUITS[found.suit] : "";
    const slot = slotHtml(pile, at(L.gap), label, "foundation", mark);
    return found.top ? slot + cardHtml(found.top, at(L.gap), pile, 0, true) : slot;
  }

  column(column, i, L) {
    const pile = `c${i + 1}`;
    const left = L.x(i);
    const { down, up } = column;
    const f = L.fans[i];
    const upText = up.length ? up.map(cardName).join(", ") : t("noUp");
    const label = down || up.length
      ? t("columnLabel", { n: i + 1, down, up: upText })
      : t("columnEmpty", { n: i + 1 });
    const style = `left:${left}px;top:${L.tableauTop}px;height:${Math.max(f.height, L.cardHeight)}px`;
    const parts = [slotHtml(pile, style, label, "column")];
    for (let k = 0; k < down; k += 1) {
      const top = L.tableauTop + k * f.down;
      parts.push(
        `<div class="card back" style="left:${left}px;top:${top}px;z-index:${k + 1}" data-pile="${pile}" data-index="${k}" aria-hidden="true"></div>`,
      );
    }
    up.forEach((card, k) => {
      const top = L.tableauTop + down * f.down + k * f.up;
      const style = `left:${left}px;top:${top}px;z-index:${down + k + 1}`;
      parts.push(cardHtml(card, style, pile, down + k, true));
    });
    return parts.join("");
  }

  /** Mark the selection, its lit targets and a hint on the drawn cards. */
  mark() {
    for (const el of this.root.querySelectorAll(".selected,.target,.hinted")) {
      el.classList.remove("selected", "target", "hinted");
    }
    const marks = [];
    if (this.selection) marks.push([this.selection, "selected", "target"]);
    if (this.hint) marks.push([this.hint, "hinted", "hinted"]);
    for (const [{ pile, index, moves }, cardClass, targetClass] of marks) {
      for (const el of this.cardsFrom(pile, index)) el.classList.add(cardClass);
      for (const move of moves) {
        for (const el of this.targetElements(move)) el.classList.add(targetClass);
      }
    }
  }

  cardsFrom(pile, index) {
    return [...this.root.querySelectorAll(`.card[data-pile="${pile}"]`)].filter(
      (el) => Number(el.dataset.index ?? 0) >= index,
    );
  }

  /** The slot (and top card) a move lands on. */
  targetElements(move) {
    if (!move.target) return [];
    let pile = `c${move.target}`;
    if (move.target === "f") {
      const card = movingCard(this.view, move.source, move.size);
      pile = `f${card ? foundationFor(this.view, card) : 1}`;
    }
    const els = [...this.root.querySelectorAll(`[data-pile="${pile}"]`)];
    const slot = els.filter((el) => el.classList.contains("slot"));
    const cards = els.filter((el) => el.classList.contains("card"));
    return cards.length ? [...slot, cards.at(-1)] : slot;
  }

  // ---- what a tap means -------------------------------------------------------------

  /** The move source at a pile and card index: {pile, index, source, size, moves}. */
  sourceAt(pile, index) {
    const view = this.view;
    let source;
    let size = 1;
    let start = index;
    if (pile === "w") {
      if (!view.waste?.count) return null;
      source = "w";
    } else if (pile.startsWith("f")) {
      if (this.geometry.spider) return null;
      source = pile;
      start = 0;
    } else if (pile.startsWith("c")) {
      const column = view.tableau[Number(pile.slice(1)) - 1];
      const total = column.down + column.up.length;
      if (index === null || index < column.down || index >= total) return null;
      source = pile.slice(1);
      size = total - index;
    } else {
      return null;
    }
    return { pile, index: start, source, size, moves: movesFrom(view, source, size) };
  }

  /** A tap on ``pile`` at card ``index``, the ``clicks``-th of a quick series (the
   * browser counts a double click or a double tap as 2). Taps on cards wait while a
   * request is under way (the cards drawn may already have moved), and the second
   * click of a double click on a card that went away at the first is not a tap: what
   * lies there now was not aimed at. Taps on the stock always draw. */
  tap(pile, index, clicks = 1) {
    if (!this.interactive || !this.view) return;
    if (pile !== "s" && (this.waiting > 0 || (clicks > 1 && this.sent))) return;
    const chosen = this.selection;
    this.hint = null;
    this.sent = false;
    const send = (text) => {
      this.sent = true;
      return this.send(text);
    };
    if (chosen) {
      const move = chosen.moves.find((m) => movesOnto(m, pile));
      const again = chosen.pile === pile && (chosen.index === index || !pile.startsWith("c"));
      this.clearSelection();
      if (move) return send(move.text);
      if (again) return send(oneTapText(chosen.source, chosen.size));
    }
    if (pile === "s") {
      if ((this.view.legal_moves || {}).d) this.send("d");
      return;
    }
    const source = this.sourceAt(pile, index);
    if (!source) return;
    if (source.moves.length === 0) {
      this.shake(source);
      return;
    }
    if (source.moves.length === 1) return send(source.moves[0].text);
    this.select(source);
  }

  select(source) {
    this.selection = source;
    this.mark();
    const card = movingCard(this.view, source.source, source.size);
    if (card) this.announce(t("selected", { card: cardName(card) }));
  }

  /** Select a source by keyboard: a column number, "w", or a foundation. */
  selectSource(source) {
    let pile = `c${source}`;
    let index = null;
    if (source === "w") pile = "w";
    if (/^\d+$/.test(source)) {
      const column = this.view.tableau[Number(source) - 1];
      if (!column) return;
      const moves = movesFrom(this.view, source);
      // The longest run that can move lights every target of the column.
      const size = Math.max(1, ...moves.map((m) => m.size));
      index = column.down + column.up.length - size;
      this.selection = { pile, index, source, size, moves };
    } else {
      this.selection = { pile, index: 0, source, size: 1, moves: movesFrom(this.view, source) };
    }
    this.mark();
  }

  clearSelection() {
    this.selection = null;
    this.mark();
  }

  showHint(text) {
    const move = parseMove(text);
    if (!move) return;
    if (move.source === "d") {
      this.hint = { pile: "s", index: 0, moves: [] };
    } else {
      const pile = /^\d+$/.test(move.source) ? `c${move.source}` : move.source;
      let index = 0;
      if (pile.startsWith("c")) {
        const column = this.view.tableau[Number(move.source) - 1];
        index = column.down + column.up.length - move.size;
      }
      this.hint = { pile, index, moves: [move] };
    }
    this.mark();
  }

  shake(source) {
    for (const el of this.cardsFrom(source.pile, source.index)) {
      el.classList.remove("shake");
      void el.offsetWidth; // restart the animation
      el.classList.add("shake");
    }
  }

  // ---- pointer: tap or drag ---------------------------------------------------------

  pointerDown(event) {
    this.tapped = null;
    if (!this.interactive || event.button > 0) return;
    const el = event.target.closest("[data-pile]");
    if (!el) {
      this.clearSelection();
      return;
    }
    const pile = el.dataset.pile;
    const index = el.dataset.index === undefined ? null : Number(el.dataset.index);
    // While a request is under way the cards drawn may be gone: no drag starts then.
    const source = el.classList.contains("card") && !this.waiting ? this.sourceAt(pile, index) : null;
    this.drag = { pile, index, source, x: event.clientX, y: event.clientY, moving: null };
    if (source?.moves.length) this.root.setPointerCapture?.(event.pointerId);
  }

  pointerMove(event) {
    const drag = this.drag;
    if (!drag?.source?.moves.length) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moving) {
      if (Math.hypot(dx, dy) < DRAG_START_PX) return;
      drag.moving = this.cardsFrom(drag.source.pile, drag.source.index);
      for (const el of drag.moving) el.classList.add("dragging");
      this.selection = drag.source;
      this.mark();
    }
    for (const el of drag.moving) el.style.transform = `translate(${dx}px, ${dy}px)`;
  }

  pointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    if (!drag.moving) {
      this.tapped = { pile: drag.pile, index: drag.index }; // played at its click
      return;
    }
    const move = this.dropTarget(drag, event);
    this.selection = null;
    if (move) {
      // Already where the player let go of them: no glide from their old place.
      this.dropped = new Set(drag.moving.map((el) => el.dataset.card));
      this.send(move.text);
    } else {
      this.draw();
    }
  }

  /** Where dragged cards are let go: the lit target they cover most (a drop need not
   * hit the target with the pointer itself, only with the cards), else the one under
   * the pointer; null where they fit nowhere. */
  dropTarget(drag, event) {
    const held = drag.moving[0].getBoundingClientRect();
    let best = null;
    let most = 0;
    for (const move of drag.source.moves) {
      for (const el of this.targetElements(move)) {
        const box = el.getBoundingClientRect();
        const area =
          Math.max(0, Math.min(held.right, box.right) - Math.max(held.left, box.left)) *
          Math.max(0, Math.min(held.bottom, box.bottom) - Math.max(held.top, box.top));
        if (area > most) [best, most] = [move, area];
      }
    }
    if (best) return best;
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const pile = under?.closest("[data-pile]")?.dataset.pile;
    return (pile && drag.source.moves.find((m) => movesOnto(m, pile))) ?? null;
  }

  /** The click that follows a tap's press and release: its ``detail`` counts the
   * clicks of a double click (the same for a double tap on a touch screen). */
  clicked(event) {
    const tapped = this.tapped;
    this.tapped = null;
    if (tapped) this.tap(tapped.pile, tapped.index, event.detail || 1);
  }

  cancelDrag() {
    if (this.drag?.moving) this.draw();
    this.drag = null;
  }

  keyDown(event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    const el = event.target.closest?.("[data-pile]");
    if (!el) return;
    event.preventDefault();
    event.stopPropagation();
    this.tap(el.dataset.pile, el.dataset.index === undefined ? null : Number(el.dataset.index));
  }
}
