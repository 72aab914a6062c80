// The service worker: the page's files kept for a start without the server, so
// practice plays offline (the rules run in the page, rules.js). Network first: while
// the server answers, every load gets its current files (and refreshes the kept
// copies), so a new server never leaves an old page running; only when it does not
// answer are the kept copies served. WebSockets do not pass through here.

const CACHE = "solitaire-page-v1";
const NETWORK_WAIT_MS = 4000;
// Every file of server/web/ (tests/server/test_web_offline.py holds this list to it),
// but Discord's SDK, which only the page inside Discord loads (activity.js).
const FILES = [
  "/",
  "/activity.js",
  "/app.js",
  "/archive.js",
  "/autoplay.js",
  "/arena.css",
  "/arena.html",
  "/arena.js",
  "/board.js",
  "/cards.js",
  "/celebrate.js",
  "/confirm.js",
  "/connection.js",
  "/daily.js",
  "/deal.js",
  "/game.js",
  "/ghost-link.js",
  "/ghost.html",
  "/ghost.js",
  "/hints.js",
  "/i18n.js",
  "/icon-maskable.svg",
  "/icon.svg",
  "/index.html",
  "/layout.js",
  "/local.js",
  "/manifest.webmanifest",
  "/moves.js",
  "/race.js",
  "/ratings.js",
  "/records.js",
  "/replay.js",
  "/rules.js",
  "/signin.js",
  "/settings.js",
  "/sound.js",
  "/stats.js",
  "/storage.js",
  "/style.css",
  "/sw.js",
  "/texts-de.js",
  "/texts-en.js",
  "/watch.html",
  "/watch.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (!FILES.includes(path)) return; // /healthz, /metrics, anything else: the network's
  const network = fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(path, copy)));
    }
    return response;
  });
  // A network that neither answers nor fails (no route) must not hold the page: after
  // a while the kept copy is served, and the network's answer still refreshes it.
  const slow = new Promise((done) => setTimeout(done, NETWORK_WAIT_MS)).then(() => caches.match(path));
  const kept = network.catch(() => caches.match(path).then((copy) => copy || Response.error()));
  event.respondWith(
    Promise.race([kept, slow.then((copy) => copy || kept)]).then((answer) => answer || kept),
  );
});
