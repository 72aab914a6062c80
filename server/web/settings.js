// The player's settings, kept in this browser (localStorage "solitaire.settings"): the
// theme, a four-colour deck, a left-handed table, sound, the finish by itself and the
// auto-play of safe cards. They are the page's own (the server never needs them), so
// they cost no request and hold offline too. The look is applied as attributes of the
// document's root element, which style.css and the board read:
//   data-theme="light|dark"   data-deck="four|two"   data-hand="left|right"

const KEY = "solitaire.settings";

/** **Choice:** the green table (the dark theme) until the player picks another, since
 * it is the game's look; sound starts off, since the page also runs inside Discord,
 * often beside a voice call; the finish by itself starts on (what players of other
 * solitaire apps expect); auto-play starts off (some players like to send every card
 * home themselves). */
export const DEFAULTS = Object.freeze({
  theme: "dark", // or "light", or "auto": the system's (prefers-color-scheme)
  fourColour: false,
  leftHanded: false,
  sound: false,
  autoFinish: true,
  autoPlay: false,
});

export class Settings {
  constructor(storage, root = document.documentElement) {
    this.storage = storage;
    this.root = root;
    this.listeners = new Set();
    let kept = {};
    try {
      kept = JSON.parse(storage.getItem(KEY) || "{}") || {};
    } catch {
      kept = {}; // a broken entry is forgotten, not fatal
    }
    this.values = { ...DEFAULTS };
    for (const name of Object.keys(DEFAULTS)) {
      if (typeof kept[name] === typeof DEFAULTS[name]) this.values[name] = kept[name];
    }
    this.system = globalThis.matchMedia?.("(prefers-color-scheme: light)");
    this.system?.addEventListener?.("change", () => this.apply());
    this.apply();
  }

  get(name) {
    return this.values[name];
  }

  /** Change one setting: kept, applied to the page, and told to every listener. */
  set(name, value) {
    if (!(name in DEFAULTS) || typeof value !== typeof DEFAULTS[name]) return;
    this.values[name] = value;
    this.storage.setItem(KEY, JSON.stringify(this.values));
    this.apply();
    for (const listener of this.listeners) listener(name, value);
  }

  onChange(listener) {
    this.listeners.add(listener);
  }

  /** The theme in use: the chosen one, or the system's for "auto". */
  theme() {
    if (this.values.theme !== "auto") return this.values.theme;
    return this.system?.matches ? "light" : "dark";
  }

  apply() {
    const data = this.root.dataset;
    data.theme = this.theme();
    data.deck = this.values.fourColour ? "four" : "two";
    data.hand = this.values.leftHanded ? "left" : "right";
    document.querySelector('meta[name="theme-color"]')?.setAttribute("content", data.theme === "light" ? "#cfe5d6" : "#0b5d3b");
  }
}

/** Wire the settings dialog (index.html, #settings) to ``settings``. */
export function settingsDialog(settings, dialog, opener) {
  const form = dialog.querySelector("form");
  const show = () => {
    form.theme.value = settings.get("theme");
    for (const name of ["fourColour", "leftHanded", "sound", "autoFinish", "autoPlay"]) {
      form[name].checked = settings.get(name);
    }
  };
  opener.addEventListener("click", () => {
    show();
    dialog.showModal();
  });
  form.addEventListener("change", (event) => {
    const field = event.target;
    settings.set(field.name, field.type === "checkbox" ? field.checked : field.value);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    dialog.close();
  });
}
