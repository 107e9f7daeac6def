/* The C core built as WebAssembly (static/engine/kamisado.wasm,
   tools/build_wasm.py) inside the engine's Web Worker: the few WASI calls it
   makes, met here, and its calls with their answers shaped as those of
   kamisado.engine (moves as text, "c1-c4").  Only engine-worker.js and
   engine-levels.js use this module (in the worker); the page uses engine.js. */

import { readScore } from "./engine.js";

/** @typedef {{ks_init: () => number, ks_buf: () => number, ks_buf_size: () => number,
 *   ks_moves_ptr: () => number, ks_weights: () => number, ks_nweights: () => number,
 *   ks_default_weights: () => number,
 *   ks_load: () => number, ks_kpn: (match: number) => number, ks_moves: () => number,
 *   ks_play: (code: number) => number, ks_unplay: () => number, ks_turn: () => number,
 *   ks_must: () => number, ks_outcome: () => number, ks_perft: (depth: number) => number,
 *   ks_search: (depth: number, time: number, nodes: number, seedLo: number, seedHi: number,
 *     multipv: number, ttLog2: number, progress: number) => number,
 *   ks_solve: (exact: number, points: number, pv: number, time: number, nodes: number,
 *     maxDepth: number) => number,
 *   ks_clear: () => void, _initialize: () => void, memory: WebAssembly.Memory}} Exports */

/** @type {Exports|null} */
let wasm = null;
/** Where a search's finished depths go (the worker posts them). */
let onReport = (/** @type {unknown} */ _depth) => {};

/** Send a search's finished depths to ``fn``. @param {(depth: unknown) => void} fn */
export function reportTo(fn) {
  onReport = fn;
}
/** The KPN of the running search (its progress reports are read from it). */
let searching = "";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** @returns {Exports} */
function core() {
  if (!wasm) throw new Error("the engine is not loaded");
  return wasm;
}

/** The WASI calls of the core (wasi_snapshot_preview1): the monotonic clock
    of a search's time limit from performance.now(); nothing is written to a
    file (the core prints nothing), so the file calls answer "bad file".
    @param {() => WebAssembly.Memory} memory */
function wasi(memory) {
  const EBADF = 8;
  return {
    /** @param {number} _id @param {bigint} _precision @param {number} out */
    clock_time_get(_id, _precision, out) {
      const ns = BigInt(Math.round(performance.now() * 1e6));
      new DataView(memory().buffer).setBigUint64(out, ns, true);
      return 0;
    },
    fd_write: () => EBADF,
    fd_seek: () => EBADF,
    fd_close: () => EBADF,
    /** @param {number} code */
    proc_exit(code) {
      throw new Error(`the engine exited (${code})`);
    },
  };
}

/** Instantiate the module (compiled by engine.js, or fetched here).
    @param {WebAssembly.Module|string} source */
export async function load(source) {
  const mod = typeof source === "string"
    ? await WebAssembly.compile(await (await fetch(source)).arrayBuffer())
    : source;
  /** @type {WebAssembly.Memory|null} */
  let memory = null;
  const mem = () => /** @type {WebAssembly.Memory} */ (memory);
  const inst = await WebAssembly.instantiate(mod, {
    wasi_snapshot_preview1: wasi(mem),
    kamisado: {
      /** @param {number} ptr @param {number} len */
      report(ptr, len) {
        const text = dec.decode(new Uint8Array(mem().buffer, ptr, len));
        // the search runs on its own copy: the position may be loaded again
        onReport(shape(searching, JSON.parse(text)));
      },
    },
  });
  wasm = /** @type {Exports} */ (/** @type {unknown} */ (inst.exports));
  memory = wasm.memory;
  wasm._initialize();
  wasm.ks_init();
}

/* -- the position ------------------------------------------------------------ */

const FILES = "abcdefgh";

/** A square's name: "a1" for 0. @param {number} sq */
export function squareName(sq) {
  return FILES[sq & 7] + String((sq >> 3) + 1);
}

/** A move code's text, "c1-c4". @param {number} code */
export function moveText(code) {
  return `${squareName(code & 63)}-${squareName(code >> 6)}`;
}

/** The code of a move's text ("c1-c4"), or -1. @param {string} text */
export function moveCode(text) {
  const m = /^([a-h])([1-8])-([a-h])([1-8])$/.exec(text.trim());
  if (!m) return -1;
  const sq = (/** @type {string} */ f, /** @type {string} */ r) => FILES.indexOf(f) + 8 * (Number(r) - 1);
  return sq(m[1], m[2]) | (sq(m[3], m[4]) << 6);
}

/** Write text into the core's buffer (NUL-terminated). @param {string} text */
function putText(text) {
  const w = core();
  const bytes = enc.encode(text);
  const room = new Uint8Array(w.memory.buffer, w.ks_buf(), w.ks_buf_size());
  if (bytes.length >= room.length) throw new Error("text too long");
  room.set(bytes);
  room[bytes.length] = 0;
}

/** The core's buffer as text. @param {number} len */
function getText(len) {
  const w = core();
  return dec.decode(new Uint8Array(w.memory.buffer, w.ks_buf(), len));
}

/** Load a KPN into the core's position (an Error with the rules' message when it is wrong).
    @param {string} kpn */
export function loadKpn(kpn) {
  if (typeof kpn !== "string") throw new Error("expected a KPN string");
  putText(kpn);
  if (core().ks_load() < 0) throw new Error(`bad KPN: ${getText(core().ks_buf_size()).split("\0")[0]}`);
}

/** The KPN of the core's position (with the match fields). */
export function kpnNow() {
  return getText(core().ks_kpn(1));
}

/** The legal move codes of the core's position, in the core's order. */
export function codes() {
  const w = core();
  const n = w.ks_moves();
  return Array.from(new Uint16Array(w.memory.buffer, w.ks_moves_ptr(), n));
}

/** @param {number} code */
export function playCode(code) {
  if (core().ks_play(code) < 0) throw new Error(`illegal move ${moveText(code)}`);
}

export function unplay() {
  core().ks_unplay();
}

const SIDES = ["b", "g"];
/* kamisado.rules.board.COLOUR_NAMES: colour 0 is brown (the KPN letter n) */
const COLOURS = ["brown", "green", "red", "yellow", "pink", "purple", "blue", "orange"];
const RING_POINTS = [1, 2, 4, 8];

/** @typedef {{winner: number, colour: number, reason: string, rings: number, points: number}} RawOutcome */

/** The outcome of the core's position, or null while the round is on.
    @returns {RawOutcome|null} */
export function outcome() {
  const o = core().ks_outcome();
  if (o < 0) return null;
  const rings = o >> 6;
  return { winner: o & 3, colour: (o >> 2) & 7, reason: (o >> 5) & 1 ? "deadlock" : "goal", rings, points: RING_POINTS[rings] };
}

export function turn() {
  return core().ks_turn();
}

/* -- the calls ---------------------------------------------------------------- */

/** The seed's two 32-bit halves (an integer 0..2**53-1). @param {number} seed */
function seedHalves(seed) {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed must be an integer >= 0, got ${seed}`);
  return [seed % 2 ** 32, Math.floor(seed / 2 ** 32)];
}

/** @param {string} name @param {unknown} v @param {number} lo @param {number} hi */
function int(name, v, lo, hi) {
  if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) {
    throw new Error(`${name} must be an integer in ${lo}..${hi}, got ${String(v)}`);
  }
  return v;
}

/** A limit: absent or 0 for none, else a number > 0. @param {string} name @param {unknown} v */
function limit(name, v) {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number >= 0, got ${String(v)}`);
  return v;
}

const KS_ERRORS = { [-1]: "out of memory", [-2]: "stopped by the host", [-3]: "no table", [-4]: "the round is over" };

/** @param {number} rc */
function fail(rc) {
  return new Error(`engine: ${KS_ERRORS[/** @type {-1|-2|-3|-4} */ (rc)] ?? rc}`);
}

/** The legal prefix of a line from the loaded position, completed with the
    winning move worth most when a proven line stops one move short of the
    end (kamisado.engine._checked_pv); the position is left as it was.
    @param {number[]} line @param {boolean} complete @returns {number[]} */
export function checkedLine(line, complete) {
  const out = [];
  for (const c of line) {
    if (outcome() || !codes().includes(c)) break;
    playCode(c);
    out.push(c);
  }
  if (complete && !outcome()) {
    let best = -1;
    let win = -1;
    const mover = turn();
    for (const c of codes()) {
      playCode(c);
      const o = outcome();
      if (o && o.winner === mover && o.points > best) {
        best = o.points;
        win = c;
      }
      unplay();
    }
    if (win >= 0) out.push(win);
  }
  for (let i = 0; i < out.length; i++) unplay();
  return out;
}

/**
 * @typedef {{depth?: number, time?: number, nodes?: number, multipv?: number, seed?: number,
 *   weights?: number[], progress?: boolean, ttLog2?: number}} SearchOptions
 */

/** Search the position of ``kpn``: the answer of kamisado.engine.search.
    @param {string} kpn @param {SearchOptions} opts */
export function search(kpn, opts = {}) {
  const depth = opts.depth === undefined ? 0 : int("depth", opts.depth, 0, 120);
  const time = limit("time", opts.time);
  const nodes = limit("nodes", opts.nodes);
  const k = opts.multipv === undefined ? 1 : int("multipv", opts.multipv, 1, 256);
  const [lo, hi] = seedHalves(opts.seed ?? 0);
  const ttLog2 = opts.ttLog2 === undefined ? 20 : int("ttLog2", opts.ttLog2, 10, 26);
  if (!depth && !time && !nodes) throw new Error("give a depth, a time or a node limit");
  loadKpn(kpn);
  if (outcome()) throw new Error("the round is over");
  searching = kpn;
  if (opts.weights) {
    const w = core();
    const n = w.ks_nweights();
    if (!Array.isArray(opts.weights) || opts.weights.length !== n) throw new Error(`weights must hold ${n} integers`);
    const view = new Int32Array(w.memory.buffer, w.ks_weights(), n);
    opts.weights.forEach((x, i) => { view[i] = int(`weights[${i}]`, x, -1000, 1000); });
  }
  const len = core().ks_search(depth, time, nodes, lo, hi, k > 1 ? k : 0, ttLog2, opts.progress ? 1 : 0);
  if (len < 0) throw fail(len);
  /** @type {{depth: number, score: number, nodes: number, seconds: number, seldepth: number,
   *   pv: number[], iterations: number[][], lines?: [number, number[]][]}} */
  const raw = JSON.parse(getText(len));
  return shape(kpn, raw);
}

/** A search's answer (or one of its depths) with the moves as text and the
    lines checked.  @param {string} kpn
    @param {{depth: number, score: number, nodes: number, seconds: number, seldepth: number,
      pv: number[], iterations?: number[][], lines?: [number, number[]][]}} raw */
export function shape(kpn, raw) {
  loadKpn(kpn);
  const score = readScore(raw.score);
  const pv = checkedLine(raw.pv, score.tier !== null).map(moveText);
  const lines = (raw.lines ?? []).map(([s, line]) => ({
    score: s,
    pv: checkedLine(line, readScore(s).tier !== null).map(moveText),
  }));
  return {
    depth: raw.depth,
    score: raw.score,
    value: score,
    pv,
    best: pv[0] ?? null,
    nodes: raw.nodes,
    seconds: raw.seconds,
    seldepth: raw.seldepth,
    lines,
    iterations: raw.iterations ?? [],
  };
}

/** @typedef {{exact?: boolean, points?: boolean, pv?: boolean, time?: number, nodes?: number,
 *   maxDepth?: number}} SolveOptions */

/** Solve the position of ``kpn`` (kamisado.engine.solve, or solve_points with ``points``).
    @param {string} kpn @param {SolveOptions} opts */
export function solve(kpn, opts = {}) {
  const flag = (/** @type {string} */ name, /** @type {unknown} */ v, /** @type {boolean} */ dflt) => {
    if (v === undefined) return dflt;
    if (typeof v !== "boolean") throw new Error(`${name} must be true or false, got ${String(v)}`);
    return v;
  };
  const exact = flag("exact", opts.exact, true);
  const points = flag("points", opts.points, false);
  const wantPv = flag("pv", opts.pv, true);
  const time = limit("time", opts.time);
  const nodes = limit("nodes", opts.nodes);
  const maxDepth = opts.maxDepth === undefined ? 0 : int("maxDepth", opts.maxDepth, 0, 4000);
  loadKpn(kpn);
  const me = turn();
  const o = outcome();
  if (o) {
    const v = o.winner === me ? o.points : -o.points;
    return { winner: SIDES[o.winner], distance: 0, best: null, pv: [], nodes: 0, seconds: 0, depth: 0, stopped: false,
      points: points ? v : null, low: v, high: v };
  }
  const len = core().ks_solve(exact ? 1 : 0, points ? 1 : 0, wantPv ? 1 : 0, time, nodes, maxDepth);
  if (len < 0) throw fail(len);
  /** @type {{result: number, distance: number, best_move: number, depth: number, stopped: boolean,
   *   nodes: number, pv_nodes: number, seconds: number, points: number, points_lo: number,
   *   points_hi: number, pv: number[]}} */
  const r = JSON.parse(getText(len));
  const winner = r.result === 0 ? null : SIDES[r.result > 0 ? me : me ^ 1];
  return {
    winner,
    distance: winner !== null && exact && !points ? r.distance : null,
    best: r.best_move && (!points || r.points) ? moveText(r.best_move) : null,
    pv: r.pv.map(moveText),
    nodes: r.nodes + r.pv_nodes,
    seconds: r.seconds,
    depth: r.depth,
    stopped: r.stopped,
    points: points ? (r.points || null) : null,
    low: r.points_lo,
    high: r.points_hi,
  };
}

/** Perft of the position of ``kpn``. @param {string} kpn @param {number} depth */
export function perft(kpn, depth) {
  int("depth", depth, 0, 120);
  loadKpn(kpn);
  if (outcome()) return depth === 0 ? 1 : 0;
  const n = core().ks_perft(depth);
  if (n < 0) throw fail(-1);
  return n;
}

/** The legal moves of ``kpn``: their texts (the order of the server's
    state frame) and the destinations by square (its ``legal``).
    @param {string} kpn */
export function legalMoves(kpn) {
  loadKpn(kpn);
  /** @type {Record<string, string[]>} */
  const legal = {};
  const list = codes();
  for (const c of list) (legal[squareName(c & 63)] ??= []).push(squareName(c >> 6));
  return { moves: list.map(moveText), legal };
}

/** Play ``move`` (its text) in ``kpn``: the new KPN, the outcome, who is to move.
    @param {string} kpn @param {string} move */
export function play(kpn, move) {
  loadKpn(kpn);
  const code = moveCode(String(move));
  if (code < 0 || !codes().includes(code)) throw new Error(`illegal move ${String(move)} in ${kpn}`);
  playCode(code);
  const o = outcome();
  const must = core().ks_must();
  return {
    kpn: kpnNow(),
    outcome: o && { winner: SIDES[o.winner], colour: COLOURS[o.colour], reason: o.reason, rings: o.rings, points: o.points },
    turn: SIDES[turn()],
    must: o || must < 0 ? null : COLOURS[must],
  };
}


/** Empty the search's and the solver's tables. */
export function clearTables() {
  core().ks_clear();
}

/** The evaluation's default weights (kamisado.engine.DEFAULT_WEIGHTS; the noise last). */
export function defaultWeights() {
  const w = core();
  return Array.from(new Int32Array(w.memory.buffer, w.ks_default_weights(), w.ks_nweights()));
}
