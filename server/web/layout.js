// Where everything lies on the table: a pure function of the view and the room on the
// screen, so the board (board.js) only draws what it says.
//
// Cards are as wide as the columns allow (at most 100 px) and low enough that the top
// row and the longest column fit on the screen; a left-handed table (settings.js)
// puts the stock and the waste on the right and the foundations on the left.

/** The table's geometry for ``view``: the room is ``width`` × ``height`` px from
 * ``boardTop`` (the board's distance from the page's top) to the window's bottom. */
export function tableLayout(view, { width, height, boardTop, leftHanded = false }) {
  const columns = view.tableau.length;
  width = Math.max(width, 300);
  const gap = width < 500 ? 4 : 10;
  // Counted in card heights: at least 3.2 so that cards do not grow as columns shrink,
  // at most 4 so that a long column late in a game lets the page scroll rather than
  // shrink every card.
  const longest = Math.max(...view.tableau.map((c) => c.down * 0.12 + Math.max(c.up.length - 1, 0) * 0.24 + 1));
  const heights = Math.min(Math.max(1 + longest, 3.2), 4);
  const fitHeight = Math.floor((height - boardTop - gap * 4) / heights / 1.4);
  const fitWidth = Math.floor((width - gap * (columns + 1)) / columns);
  const cardWidth = Math.max(28, Math.min(fitWidth, fitHeight, 100));
  const cardHeight = Math.round(cardWidth * 1.4);
  const left = (width - (columns * cardWidth + (columns - 1) * gap)) / 2;
  const x = (slot) => Math.round(left + slot * (cardWidth + gap));
  const top = [];
  const spider = view.waste === null && view.stock !== null;
  const foundations = spider ? 8 : view.foundations.length;
  // Right-handed: stock, waste, then the foundations at the right end; left-handed: the
  // foundations from the left end (in the same order), the waste, then the stock.
  if (view.stock !== null) top.push({ pile: "s", slot: leftHanded ? columns - 1 : 0 });
  if (view.waste) top.push({ pile: "w", slot: leftHanded ? columns - 2 : 1 });
  for (let i = 0; i < foundations; i += 1) {
    top.push({ pile: `f${i + 1}`, slot: leftHanded ? i : columns - foundations + i });
  }
  const tableauTop = gap + cardHeight + gap * 2;
  const room = Math.max(height - boardTop - tableauTop - gap, cardHeight * 3);
  const fans = view.tableau.map((column) => fan(column, cardHeight, room));
  const total = tableauTop + Math.max(cardHeight, ...fans.map((f) => f.height)) + gap;
  return { gap, cardWidth, cardHeight, x, top, tableauTop, fans, height: total, spider, leftHanded };
}

/** How far apart a column's cards lie: closer when the column would not fit. */
function fan(column, cardHeight, room) {
  const down = Math.max(4, Math.round(cardHeight * 0.12));
  let up = Math.round(cardHeight * 0.3);
  const count = column.up.length;
  const height = (u) => column.down * down + Math.max(count - 1, 0) * u + cardHeight;
  if (count > 1 && height(up) > room) {
    up = Math.max(Math.round(cardHeight * 0.24), Math.floor((room - column.down * down - cardHeight) / (count - 1)));
  }
  return { down, up, height: height(up) };
}
