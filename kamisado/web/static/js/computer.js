/* The computer's moves found in the page, by the engine in the browser
   (engine.js: the C core as WebAssembly, in a Web Worker): for the page's
   own games against the computer (sent to the server as `computer_move`
   frames, which it checks and stores as any action) and for games played
   offline.  The fill after a won round is chosen as the server's levels
   choose it (kamisado.engine.levels.choose_fill_by_search): each line-up
   searched to the level's fill depth from the opponent's side, the lower
   score taken, ties at random; `perfect` searches too (the server first
   tries to prove each next round with the solver). */
import { getJSON } from "./dom.js";
import { best, search, supported } from "./engine.js";

/** Whether this browser can run the engine (WebAssembly and workers). */
export const pageThinks = () => supported();

/** @type {Promise<Record<string, number>>|null} each level's fill depth, from /api/levels */
let depths = null;

/** Each level's fill depth (/api/levels' `fill_depth`; the service worker keeps it for offline use). */
function fillDepths() {
  depths ??= getJSON("/api/levels").then((/** @type {{name: string, fill_depth: number}[]} */ levels) =>
    Object.fromEntries(levels.map((l) => [l.name, l.fill_depth])));
  depths.catch(() => { depths = null; });
  return depths;
}

/** A small seeded generator (for the ties and the level's own choices). @param {number} seed */
function rng(seed) {
  let s = (seed >>> 0) || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
}

/** The computer's move at `level` in `kpn`. @param {string} kpn @param {string} level @param {number} seed */
export function computerMove(kpn, level, seed) {
  return best(kpn, { level, seed });
}

/**
 * The computer's fill after winning a round: "left" or "right".
 * @param {{left: string, right: string}} starts the next round's start KPN after each fill
 * @param {string} level @param {number} seed
 * @returns {Promise<string>}
 */
export async function computerFill(starts, level, seed) {
  const random = rng(seed);
  const depth = (await fillDepths())[level] || 0;
  if (depth <= 0) return random() < 0.5 ? "left" : "right";
  /** @type {Record<string, number>} */
  const scores = {};
  for (const fill of ["left", "right"]) {
    const r = await search(starts[/** @type {"left"|"right"} */ (fill)], { depth, seed: Math.floor(random() * 2 ** 30) });
    scores[fill] = r.score;
  }
  const low = Math.min(scores.left, scores.right);
  const ties = ["left", "right"].filter((f) => scores[f] === low);
  return ties[Math.floor(random() * ties.length)];
}
