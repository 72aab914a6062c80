// The finish and the win, shown. Cards that go home in one reply (the finish) fly there
// one after another in rank order; a won game ends with its foundations' cards leaping
// off the table. Both are short (under two seconds), never in the way (the board
// underneath is already the final one and takes taps), and left out with
// prefers-reduced-motion.

const RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const LEAPING_PER_PILE = 6;

export function motionAllowed(root) {
  return Boolean(root.animate) && !matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The cards that went home between ``before`` and ``after`` (two views), with where
 * each lay (``places``: card code to [left, top] on the board) and the foundation
 * slot's place (``slotAt(i)``); only when three or more went home at once. */
export function cardsHome(before, after, places, slotAt) {
  if (!before || after.variant.startsWith("spider")) return [];
  const moved = [];
  after.foundations.forEach((pile, i) => {
    const was = before.foundations[i]?.cards ?? 0;
    for (let r = was + 1; r <= pile.cards; r += 1) {
      const card = RANK_NAMES[r - 1] + pile.suit;
      const from = places.get(card);
      if (from) moved.push({ card, rank: r, pile: i, from, to: slotAt(i) });
    }
  });
  return moved.length >= 3 ? moved : [];
}

/** Fly ``moved`` (from cardsHome) home one after another, low ranks first; the
 * foundations' own top cards show once the last one has landed, in the ms returned. */
export function flyHome(root, moved, cardHtml) {
  if (!moved.length || !motionAllowed(root)) return 0;
  moved.sort((a, b) => a.rank - b.rank || a.pile - b.pile);
  const step = Math.min(45, 900 / moved.length);
  const flight = 160;
  const end = step * (moved.length - 1) + flight;
  const clones = moved.map((m, k) => {
    const el = element(cardHtml(m.card, `left:${m.from[0]}px;top:${m.from[1]}px;z-index:${600 + k}`));
    el.classList.add("flying");
    root.append(el);
    const dx = m.to[0] - m.from[0];
    const dy = m.to[1] - m.from[1];
    el.animate([{ transform: "none" }, { transform: `translate(${dx}px, ${dy}px)` }], {
      duration: flight,
      delay: k * step,
      easing: "ease-in-out",
      fill: "forwards",
    });
    return el;
  });
  for (const top of root.querySelectorAll('.card.face[data-pile^="f"]')) {
    top.animate([{ opacity: 0 }, { opacity: 0 }], { duration: end });
  }
  setTimeout(() => clones.forEach((el) => el.remove()), end);
  return end;
}

/** The win: the foundations' top cards, and a few below each, leap off the table one
 * after another. ``root.dataset.celebrating`` is "yes" while they fly. */
export function celebrate(root, cardHtml, delay = 0) {
  if (!motionAllowed(root)) return;
  const tops = [...root.querySelectorAll('.card.face[data-pile^="f"]')];
  const leaping = [];
  for (const top of tops) {
    const box = top.getBoundingClientRect();
    const code = top.dataset.card;
    const r = RANK_NAMES.indexOf(code.slice(0, -1)) + 1;
    for (let k = 0; k < LEAPING_PER_PILE && r - k >= 1; k += 1) {
      leaping.push({ card: RANK_NAMES[r - k - 1] + code.slice(-1), box, k });
    }
  }
  if (!leaping.length) return;
  leaping.sort((a, b) => a.k - b.k);
  root.dataset.celebrating = "yes";
  const size = `--cw:${root.style.getPropertyValue("--cw")};--ch:${root.style.getPropertyValue("--ch")}`;
  const fall = window.innerHeight;
  let last = 0;
  leaping.forEach(({ card, box }, i) => {
    // The first to leap lies on top while the others wait their turn beneath it.
    const z = 700 + leaping.length - i;
    const el = element(cardHtml(card, `position:fixed;left:${box.left}px;top:${box.top}px;z-index:${z};${size}`));
    el.classList.add("flying");
    document.body.append(el);
    const side = i % 2 ? 1 : -1;
    const dx = side * (60 + ((i * 37) % 160));
    const start = delay + i * 70;
    const flight = 1100;
    last = Math.max(last, start + flight);
    el.animate(
      [
        { transform: "translate(0, 0) rotate(0)" },
        { transform: `translate(${dx * 0.5}px, -${60 + (i % 3) * 25}px) rotate(${side * 90}deg)`, offset: 0.3 },
        { transform: `translate(${dx}px, ${fall - box.top + 40}px) rotate(${side * 200}deg)` },
      ],
      { duration: flight, delay: start, easing: "ease-in", fill: "both" },
    );
  });
  setTimeout(() => {
    for (const el of document.querySelectorAll("body > .card.flying")) el.remove();
    delete root.dataset.celebrating;
  }, last);
}

function element(html) {
  const holder = document.createElement("div");
  holder.innerHTML = html;
  return holder.firstElementChild;
}
