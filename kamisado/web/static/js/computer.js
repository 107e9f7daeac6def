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
import { PyRandom } from "./engine-random.js";

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
  // the server's player's random numbers: Python's random.Random("level:seed")
  const rng = new PyRandom(`${level}:${seed}`);
  const depth = (await fillDepths())[level] || 0;
  const fills = ["left", "right"];
  if (depth <= 0) return /** @type {string} */ (rng.choice(fills));
  /** @type {Record<string, number>} */
  const scores = {};
  for (const fill of fills) {
    const r = await search(starts[/** @type {"left"|"right"} */ (fill)], { depth, seed: rng.below(2 ** 30) });
    scores[fill] = r.score;
  }
  const low = Math.min(scores.left, scores.right);
  return /** @type {string} */ (rng.choice(fills.filter((f) => scores[f] === low)));
}
