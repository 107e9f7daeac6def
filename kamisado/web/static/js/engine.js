/* The engine in the page: the C core (kamisado/engine/core, the very files of
   the Python extension) built as WebAssembly (static/engine/kamisado.wasm,
   tools/build_wasm.py), run in a Web Worker so that the board never
   freezes.  Every function is async and answers as kamisado.engine does
   (moves as text, "c1-c4"); calls queue in the worker, one at a time.

   stop() ends the worker (it is busy inside the wasm and reads no message
   until the call returns; a shared flag would need cross-origin isolation):
   a running search then answers its last finished depth (as the native
   engine's stop does), a solve answers "not proven", other calls fail
   with an Error whose `stopped` is true.  The next call starts a fresh
   worker from the module compiled once (a few milliseconds); the tables
   start empty again. */

/**
 * A search's answer (kamisado.engine.SearchResult): `score` the raw score for
 * the side to move, `value` it read (`kind` "cp", "win" or "loss"; `value` the
 * evaluation or the moves to the round's end; `tier` 15 when the round wins the
 * match, else the points it carries), `pv` the line, `lines` the best lines of
 * a MultiPV search, `stopped` when stop() cut it short.
 * @typedef {{depth: number, score: number, value: {kind: string, value: number, tier: number|null},
 *   pv: string[], best: string|null, nodes: number, seconds: number, seldepth: number,
 *   lines: {score: number, pv: string[]}[], iterations: number[][], stopped?: boolean}} SearchAnswer
 * A solve's answer (kamisado.engine.solve / solve_points): `winner` "b", "g" or null
 * (not proven), `distance` the moves to the round's end (exact solves only),
 * `points` the round's value in points for the side to move (the points form).
 * @typedef {{winner: string|null, distance: number|null, best: string|null, pv: string[],
 *   nodes: number, seconds: number, depth: number, stopped: boolean, points: number|null,
 *   low: number, high: number}} SolveAnswer
 * @typedef {{winner: string, colour: string, reason: string, rings: number, points: number}} PlayOutcome
 * @typedef {{kpn: string, outcome: PlayOutcome|null, turn: string, must: string|null}} PlayAnswer
 * @typedef {{moves: string[], legal: Record<string, string[]>}} LegalAnswer
 * @typedef {{depth?: number, time?: number, nodes?: number, multipv?: number, seed?: number,
 *   weights?: number[], onDepth?: (depth: SearchAnswer) => void}} SearchOptions
 * @typedef {{exact?: boolean, points?: boolean, pv?: boolean, time?: number, nodes?: number,
 *   maxDepth?: number}} SolveOptions
 */

/** A search score read (kamisado.engine.limits.Score.from_raw): `kind` "cp", "win" or
    "loss", `value` the evaluation or the moves to the round's end, `tier` 15 when the
    round wins the match, else the points it carries (null for "cp").
    @param {number} raw @returns {{kind: string, value: number, tier: number|null}} */
export function readScore(raw) {
  const WIN_BASE = 20000;
  const a = Math.abs(raw);
  if (a <= WIN_BASE) return { kind: "cp", value: raw, tier: null };
  const over = a - WIN_BASE;
  const tier = Math.floor((over + 255) / 256);
  return { kind: raw > 0 ? "win" : "loss", value: 256 * tier - over, tier };
}

/** The levels of the computer, weakest first (kamisado.engine.levels.LEVELS). */
export const LEVELS = ["beginner", "novice", "casual", "club", "strong", "expert", "perfect"];

const WASM_URL = new URL("../engine/kamisado.wasm", import.meta.url);
const WORKER_URL = new URL("./engine-worker.js", import.meta.url);

/** @type {Promise<WebAssembly.Module>|null} */
let compiled = null;
/** @type {Worker|null} */
let worker = null;
/** Settles once the worker has been sent its module (calls are posted after it).
    @type {Promise<unknown>} */
let sent = Promise.resolve();
let nextId = 1;

/**
 * @typedef {{op: string, resolve: (v: any) => void, reject: (e: Error) => void,
 *   last: SearchAnswer|null, onDepth?: (depth: SearchAnswer) => void}} Pending
 */
/** @type {Map<number, Pending>} */
const pending = new Map();

/** Whether this browser can run the engine (WebAssembly and module workers). */
export function supported() {
  return typeof WebAssembly === "object" && typeof Worker === "function";
}

/** The module, fetched and compiled once for every worker. */
function module() {
  compiled ??= fetch(WASM_URL)
    .then((r) => {
      if (!r.ok) throw new Error(`engine: ${WASM_URL} answered ${r.status}`);
      return r.arrayBuffer();
    })
    .then((bytes) => WebAssembly.compile(bytes));
  compiled.catch(() => { compiled = null; });
  return compiled;
}

/** @param {string} message */
function stoppedError(message) {
  return Object.assign(new Error(message), { stopped: true });
}

/** The worker, started (and its module loaded) on first use. */
function start() {
  if (worker) return worker;
  const w = new Worker(WORKER_URL, { type: "module", name: "kamisado-engine" });
  w.onmessage = (ev) => {
    const { id, result, error, progress } = ev.data;
    const p = pending.get(id);
    if (!p) return;
    if (progress !== undefined) {
      p.last = progress;
      p.onDepth?.(progress);
      return;
    }
    pending.delete(id);
    if (error !== undefined) p.reject(new Error(error));
    else p.resolve(result);
  };
  w.onerror = (ev) => {
    ev.preventDefault();
    for (const p of pending.values()) p.reject(new Error(`engine: ${ev.message || "the worker failed"}`));
    pending.clear();
    w.terminate();
    if (worker === w) worker = null;
  };
  worker = w;
  const id = nextId++;
  pending.set(id, { op: "load", resolve: () => {}, reject: () => {}, last: null });
  sent = module().then(
    (mod) => w.postMessage({ id, op: "load", args: [mod] }),
    (e) => {
      for (const p of pending.values()) p.reject(e instanceof Error ? e : new Error(String(e)));
      pending.clear();
      w.terminate();
      if (worker === w) worker = null;
    },
  );
  return w;
}

/** Run a call in the worker. @param {string} op @param {unknown[]} args
    @param {(depth: SearchAnswer) => void} [onDepth] @returns {Promise<any>} */
function call(op, args, onDepth) {
  return new Promise((resolve, reject) => {
    const w = start();
    const id = nextId++;
    pending.set(id, { op, resolve, reject, last: null, onDepth });
    sent.then(() => { if (pending.has(id)) w.postMessage({ id, op, args }); });
  });
}

/** Stop the running call and every queued one: the worker is ended (see
    above); a search answers its last finished depth. */
export async function stop() {
  if (!worker || pending.size === 0) return;  // idle: its tables are kept
  worker.terminate();
  worker = null;
  for (const p of pending.values()) {
    if (p.op === "search" && p.last) p.resolve({ ...p.last, stopped: true });
    else if (p.op === "solve") {
      p.resolve({ winner: null, distance: null, best: null, pv: [], nodes: 0, seconds: 0, depth: 0,
        stopped: true, points: null, low: -8, high: 8 });
    } else p.reject(stoppedError(`engine: ${p.op} stopped`));
  }
  pending.clear();
}

/** Perft: the move sequences of `depth` moves from `kpn`.
    @param {string} kpn @param {number} depth @returns {Promise<number>} */
export function perft(kpn, depth) {
  return call("perft", [kpn, depth]);
}

/** The legal moves of `kpn`: texts in the order of the server's state frame,
    and destinations by square (the frame's `legal`).
    @param {string} kpn @returns {Promise<LegalAnswer>} */
export function legalMoves(kpn) {
  return call("legalMoves", [kpn]);
}

/** Play `move` ("c1-c4") in `kpn`: the new KPN (with the match fields), the
    outcome when it ends the round, who is to move and the colour that must.
    An illegal move or a wrong KPN rejects with the reason.
    @param {string} kpn @param {string} move @returns {Promise<PlayAnswer>} */
export function play(kpn, move) {
  return call("play", [kpn, move]);
}

/** Search `kpn` (kamisado.engine.search): limits `depth` (1..120), `time`
    (ms), `nodes`; `multipv` (the best lines, in one search), `seed`,
    `weights` (7 integers, the evaluation's); `onDepth` sees each finished
    depth.  A table of 2**20 entries, new for each search, as the server's.
    @param {string} kpn @param {SearchOptions} [opts] @returns {Promise<SearchAnswer>} */
export function search(kpn, opts = {}) {
  const { onDepth, ...rest } = opts;
  return call("search", [kpn, { ...rest, progress: true }], onDepth);
}

/** Solve `kpn` (kamisado.engine.solve): who wins the round, and with
    `exact` (the default) in how many moves, the line; `points` the round's
    value in points (solve_points).  Limits `time` (ms), `nodes`, `maxDepth`.
    The solver's table is kept between calls (until stop()).
    @param {string} kpn @param {SolveOptions} [opts] @returns {Promise<SolveAnswer>} */
export function solve(kpn, opts = {}) {
  return call("solve", [kpn, opts]);
}

/** The computer's move at a level (LEVELS), as the server's player of that
    level chooses (docs/web.md says where it differs); `seed` makes it
    repeatable.
    @param {string} kpn @param {{level: string, seed?: number}} opts @returns {Promise<string>} */
export function best(kpn, opts) {
  return call("best", [kpn, opts]);
}

/** The computer's fill after it won a round (Player.choose_fill): "left" or
    "right", at a level and seed as the server's.  `starts`: the KPN of the
    next round's start after each fill (the loser to move), as
    Match.next_round_start makes them (the rules, not the engine, regroup).
    @param {{left: string, right: string}} starts @param {{level: string, seed?: number}} opts
    @returns {Promise<string>} */
export function bestFill(starts, opts) {
  return call("bestFill", [starts, opts]);
}
