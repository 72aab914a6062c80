// Where the page keeps what it remembers (the guest token, settings, records, the
// practice game): the browser's localStorage, or, where the browser refuses it (a page
// inside a frame of another site with third-party storage blocked, as Discord in a
// browser may be), a store in memory that lasts as long as the page. The page works
// the same either way; it only forgets more at a reload.

/** localStorage when the browser allows it, else a store in memory with its methods. */
export function browserStorage() {
  try {
    const storage = globalThis.localStorage;
    storage.getItem("solitaire.token");
    return storage;
  } catch {
    const kept = new Map();
    return {
      getItem: (key) => (kept.has(key) ? kept.get(key) : null),
      setItem: (key, value) => kept.set(key, String(value)),
      removeItem: (key) => kept.delete(key),
    };
  }
}
