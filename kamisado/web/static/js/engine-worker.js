/* The page's engine in a Web Worker (started by engine.js): the C core as
   WebAssembly (engine-core.js) and the computer's levels (engine-levels.js).
   engine.js posts {id, op, args}; the answer is {id, result} or {id, error};
   a search's finished depths come as {id, progress} on the way.  One call
   runs at a time; to stop one, engine.js ends the worker (docs/web.md, "The
   engine in the page"). */

import { legalMoves, load, perft, play, reportTo, search, solve, clearTables } from "./engine-core.js";
import { bestFill, bestMove } from "./engine-levels.js";

/** The id of the call being answered (its progress reports carry it). */
let current = 0;
reportTo((depth) => self.postMessage({ id: current, progress: depth }));

/** @type {Record<string, (...args: any[]) => unknown>} */
const OPS = {
  perft,
  legalMoves,
  play,
  search: (/** @type {string} */ kpn, /** @type {import("./engine-core.js").SearchOptions} */ opts) => search(kpn, opts),
  solve,
  best: bestMove,
  bestFill,
  clear: clearTables,
};

/** @type {Promise<void>|null} */
let loading = null;

self.onmessage = async (/** @type {MessageEvent} */ ev) => {
  const { id, op, args } = ev.data;
  if (op === "load") {
    loading = load(args[0]);
    try {
      await loading;
      self.postMessage({ id, result: true });
    } catch (e) {
      self.postMessage({ id, error: String(e instanceof Error ? e.message : e) });
    }
    return;
  }
  try {
    await loading;
    const fn = OPS[op];
    if (!fn) throw new Error(`unknown call ${op}`);
    current = id;
    self.postMessage({ id, result: await fn(...args) });
  } catch (e) {
    self.postMessage({ id, error: String(e instanceof Error ? e.message : e) });
  }
};
