// Links that start a ghost race on the ghost page (ghost.js), for the pages that show a
// closed day's deal (the daily archive, archive.js): race the day's best game, or your
// own best game on that deal. Their texts live here, with the ghost page's.

import { language } from "./i18n.js";

const TEXTS = {
  en: { best: "Race the best", yours: "Race your best" },
  de: { best: "Gegen das Beste", yours: "Gegen dein Bestes" },
};

function text(key) {
  return (TEXTS[language()] ?? TEXTS.en)[key];
}

/** A link to race the best game of ``variant``'s daily deal of ``date`` (a closed day). */
export function ghostBestLink(variant, date) {
  return `<a class="button" data-ghost="best" href="/ghost.html#daily=${variant}/${date}">${text("best")}</a>`;
}

/** A link to race your own best game on the deal of your game ``game``. */
export function ghostYoursLink(game) {
  return `<a class="button" data-ghost="yours" href="/ghost.html#game=${Number(game)}">${text("yours")}</a>`;
}
