// English and German texts of the page. The language follows the browser unless the
// player picked one with the switch (kept in localStorage); the server is told the
// same locale in hello and, at a switch, by set_profile, so its error messages match.
// The texts themselves are in texts-en.js and texts-de.js.

import en from "./texts-en.js";
import de from "./texts-de.js";

const TEXTS = { en, de };

export const LANGUAGES = Object.keys(TEXTS);

/** The language the page starts in: the player's pick, else the browser's. */
export function initialLanguage(storage, navigatorLanguages) {
  const picked = storage.getItem("solitaire.lang");
  if (picked && TEXTS[picked]) return picked;
  for (const tag of navigatorLanguages || []) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (TEXTS[base]) return base;
  }
  return "en";
}

let current = "en";
let plural = new Intl.PluralRules("en");

export function setLanguage(lang) {
  current = TEXTS[lang] ? lang : "en";
  plural = new Intl.PluralRules(current);
  document.documentElement.lang = current;
}

export function language() {
  return current;
}

/** The text for ``key`` in the current language, with {name} filled from params and
 * {name|one|other} the singular or plural form by the number in params.name
 * ("{n} {n|move|moves}": "1 move", "2 moves"; the language's own plural rule). */
export function t(key, params = {}) {
  return fill(TEXTS[current][key] ?? TEXTS.en[key] ?? key, params);
}

/** The ``t`` of a page with texts of its own (the arena, watch and ghost pages): its
 * ``tables`` by language, filled as ``t`` fills, in the language the switch picked. */
export function pageTexts(tables) {
  return (key, params = {}) => fill(tables[current]?.[key] ?? tables.en[key] ?? key, params);
}

function fill(text, params) {
  return String(text)
    .replace(/\{(\w+)\|([^|}]*)\|([^}]*)\}/g, (_, name, one, other) =>
      plural.select(Number(params[name])) === "one" ? one : other,
    )
    .replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** Every variant the server plays, in the order its menus and tables show them. */
export const VARIANTS = ["klondike", "klondike-3", "spider-1", "spider-2", "spider-4", "yukon", "russian", "alaska"];

export function variantName(variant) {
  return TEXTS[current].variants[variant] ?? variant;
}

/** A card code (``10d``, ``Qs``) as words for screen readers: "Queen of spades". */
export function cardName(code) {
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const texts = TEXTS[current];
  return t("cardName", { rank: texts.ranks[rank] ?? rank, suit: texts.suits[suit] ?? suit });
}
