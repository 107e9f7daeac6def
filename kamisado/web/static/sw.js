/* The service worker: the page works offline.  Served as /sw.js (its scope
   is every route) by kamisado/web/site/offline.py, which writes in the cache's
   version (a hash of the contents of everything precached: a deploy that
   changes a file changes it) and the URLs to precache.
   - the app shell (the page, /static/...): cache first;
   - the API (/api/...): network first, the cache when the network fails
     (the lessons and the positions they show are precached, the
     positions from one answer, /api/offline/positions; other answers
     are kept as they come: the levels, the player);
   - a page other than / (a share link /game/<id>): network first, else the
     cached page, which opens the game from its path.
   On activation the caches of other versions are deleted. */
/// <reference lib="webworker" />

const VERSION = "__VERSION__";
const SHELL = `kamisado-shell-${VERSION}`;
const API = `kamisado-api-${VERSION}`;
/** The API answers kept for offline use as they come (the others: the network only). */
const KEPT = ["/api/lessons", "/api/position", "/api/levels", "/api/board", "/api/me", "/api/offline/"];
/** The positions the lessons show, by their /api/position URLs (kamisado/web/site/offline.py). */
const POSITIONS = "/api/offline/positions";
/** @type {string[]} */
const PRECACHE = [/*__PRECACHE__*/];
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

sw.addEventListener("install", (ev) => {
  ev.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    // one by one: a request that fails does not leave the others out
    await Promise.all(PRECACHE.map(async (url) => {
      const res = await fetch(url, { cache: "no-store", credentials: "same-origin" });
      if (res.ok) await cache.put(url, res);
    }));
    // the positions the lessons show, in one answer: each kept under its own /api/position URL
    const res = await fetch(POSITIONS, { cache: "no-store" });
    if (res.ok) {
      const all = /** @type {Record<string, unknown>} */ (await res.json());
      await Promise.all(Object.entries(all).map(([url, body]) => cache.put(url,
        new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } }))));
    }
    await sw.skipWaiting();
  })());
});

sw.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("kamisado-") && name !== SHELL && name !== API) await caches.delete(name);
    }
    await sw.clients.claim();
  })());
});

/** The API: network first; a good answer is kept, the cache answers when the network fails.
 * @param {Request} req */
async function networkFirst(req) {
  const url = new URL(req.url);
  try {
    const res = await fetch(req);
    if (res.ok && KEPT.some((p) => url.pathname.startsWith(p))) {
      const copy = res.clone();
      caches.open(API).then((c) => c.put(req, copy)).catch(() => {});
    }
    return res;
  } catch (e) {
    const hit = (await caches.match(req, { cacheName: API })) || (await caches.match(req, { cacheName: SHELL }));
    if (hit) return hit;
    return new Response(JSON.stringify({ error: "offline", code: "no_network", offline: true }),
      { status: 503, headers: { "Content-Type": "application/json" } });
  }
}

/** The shell: cache first, else the network (and keep it).
 * @param {Request} req */
async function cacheFirst(req) {
  const hit = await caches.match(req, { cacheName: SHELL });
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok) {
    const copy = res.clone();
    caches.open(SHELL).then((c) => c.put(req, copy)).catch(() => {});
  }
  return res;
}

/** A page other than /: the network, else the cached page.
 * @param {Request} req */
async function page(req) {
  try {
    return await fetch(req);
  } catch (e) {
    const hit = await caches.match("/", { cacheName: SHELL });
    if (hit) return hit;
    throw e;
  }
}

sw.addEventListener("fetch", (ev) => {
  const req = ev.request;
  const url = new URL(req.url);
  if (url.origin !== location.origin || req.method !== "GET") return;  // posts, other sites: the network
  if (url.pathname === "/sw.js") return;
  if (url.pathname.startsWith("/api/")) ev.respondWith(networkFirst(req));
  else if (url.pathname === "/" || url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest") {
    ev.respondWith(cacheFirst(url.pathname === "/" ? new Request("/") : req));
  } else if (req.mode === "navigate") ev.respondWith(page(req));
});
