/* The games played in this browser without the server (offline), kept in
   IndexedDB (database "kamisado", store "games"): each action is written
   before the page shows it made, so a closed tab or a dead battery loses
   nothing.  Once sent to the server (with a button, never by itself) a game
   keeps the server's id in `sent` and links to it. */

/**
 * @typedef {import("./offline_match.js").MatchData} MatchData
 * @typedef {{id: string, created: number, updated: number, black: string, gold: string,
 *   target: number, series: boolean, seed: number, match: MatchData, sent: string|null}} LocalGame
 */

const DB = "kamisado";
const STORE = "games";

/** @type {Promise<IDBDatabase>|null} */
let opened = null;

/** The database, opened (and made) once. @returns {Promise<IDBDatabase>} */
function db() {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore(STORE, { keyPath: "id" }); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  opened.catch(() => { opened = null; });
  return opened;
}

/**
 * Run `fn` on the store in a transaction; resolves once the transaction is
 * complete (written to disk, as far as the browser tells), with what `fn`'s request found.
 * @template T
 * @param {IDBTransactionMode} mode @param {(s: IDBObjectStore) => IDBRequest<T>} fn
 * @returns {Promise<T>}
 */
async function tx(mode, fn) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const t = d.transaction(STORE, mode, { durability: "strict" });
    const req = fn(t.objectStore(STORE));
    t.oncomplete = () => resolve(req.result);
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error("the transaction was aborted"));
  });
}

/** Keep a game (a new one, or its new action). @param {LocalGame} game */
export async function putGame(game) {
  game.updated = Date.now();
  await tx("readwrite", (s) => s.put(game));
}

/** A kept game, or undefined. @param {string} id @returns {Promise<LocalGame|undefined>} */
export function getGame(id) {
  return tx("readonly", (s) => s.get(id));
}

/** Every kept game, the most recently played first. @returns {Promise<LocalGame[]>} */
export async function listGames() {
  const all = /** @type {LocalGame[]} */ (await tx("readonly", (s) => s.getAll()));
  return all.sort((a, b) => b.updated - a.updated);
}

/** A new game's id: "local-" and 12 random letters and digits. */
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return "local-" + btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, "x");
}
