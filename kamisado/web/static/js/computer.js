/* The computer's moves found in the page, by the engine in the browser
   (engine.js: the C core as WebAssembly, in a Web Worker): for the page's
   own games against the computer (sent to the server as `computer_move`
   frames, which it checks and stores as any action) and for games played
   offline.  With the server's seed (the state frame's `seed`) the page's
   move and fill are the server's very own (engine.js's best and bestFill
   play the server's levels with Python's random numbers). */
import { best, bestFill, supported } from "./engine.js";

/** Whether this browser can run the engine (WebAssembly and workers). */
export const pageThinks = () => supported();

/** The computer's move at `level` in `kpn`. @param {string} kpn @param {string} level @param {number} seed */
export function computerMove(kpn, level, seed) {
  return best(kpn, { level, seed });
}

/**
 * The computer's fill after winning a round: "left" or "right" (engine.js's
 * bestFill: the server's Player.choose_fill at every level and seed).
 * @param {{left: string, right: string}} starts the next round's start KPN after each fill
 * @param {string} level @param {number} seed
 * @returns {Promise<string>}
 */
export function computerFill(starts, level, seed) {
  return bestFill(starts, { level, seed });
}
