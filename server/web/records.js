// Personal records per deal number (seed 004: fewer moves on the same deal number is a
// new record), kept in this browser's localStorage: practice is the player's own, and
// a record needs no server, so offline wins count too. A deal is its variant, options
// and seed; the record is the fewest moves of a win.

import { dealCode } from "./deal.js";
import { t, variantName } from "./i18n.js";

const RECORDS_KEY = "solitaire.records";

export class PersonalRecords {
  constructor(storage) {
    this.storage = storage;
  }

  all() {
    return JSON.parse(this.storage.getItem(RECORDS_KEY) || "{}");
  }

  /** Note a won game's view (it names its deal once won); the sentence to show, or
   * null when the view does not name the deal (a race still running). */
  won(view) {
    if (view.seed === undefined || view.seed === null) return null;
    const key = dealKey(view.variant, view.options, view.seed);
    const records = this.all();
    const before = records[key];
    const moves = view.counters.moves;
    const deal = `${variantName(view.variant)} ${dealCode(BigInt(view.seed))}`;
    if (before && before.moves <= moves) return t("recordStands", { deal, best: before.moves });
    records[key] = { variant: view.variant, options: view.options, seed: String(view.seed), moves, at: Date.now() };
    this.storage.setItem(RECORDS_KEY, JSON.stringify(records));
    return before ? t("newRecord", { deal, moves, before: before.moves }) : t("firstRecord", { deal, moves });
  }
}

/** One deal: the same variant, the same options and the same seed. */
export function dealKey(variant, options, seed) {
  const sorted = Object.keys(options || {}).sort().map((name) => [name, options[name]]);
  return `${variant}|${JSON.stringify(sorted)}|${seed}`;
}
