/* The play view's parts, shared by live games, review and lessons: the
   board, the panel's sections, the status line (a live region) and the
   step-through of a game's positions. */
import { $, getJSON } from "../dom.js";
import { Board } from "../board.js";
import { colourNode, colourName, rangeOf, rankName, sideName, t, tn } from "../i18n.js";
import { renderMoves } from "../movelist.js";

/** @typedef {import("../types.js").Step} Step */
/** @typedef {import("../types.js").Round} Round */
/** @typedef {import("../board.js").Cursor} Cursor */

export const board = new Board(/** @type {SVGSVGElement} */ (/** @type {unknown} */ ($("#board"))), { cursor: true });

/** @param {string} sel */
const mini = (sel) => new Board(/** @type {SVGSVGElement} */ (/** @type {unknown} */ ($(sel))), { mini: true });
export const fillBoards = { left: mini("#fill-left-board"), right: mini("#fill-right-board") };
export const lessonBoards = { left: mini("#lesson-left"), right: mini("#lesson-right") };

// the keyboard cursor, said for a screen reader
board.onSay = (/** @type {Cursor} */ c) => {
  const parts = [c.square, colourName(c.colour)];
  if (c.tower) {
    const [, side, colour, rings] = c.tower;
    parts.push(t("tower.named", { side: sideName(side), colour: colourName(colour), rank: rankName(rings) }));
  }
  if (c.selected) parts.push(t("board.picked"));
  if (c.dest) parts.push(t("board.can_go"));
  $("#board-said").textContent = parts.join(", ");
};

/**
 * Show one panel layout: "game", "review", "lesson" or "puzzle".
 * @param {string} which
 */
export function panelParts(which) {
  const trainer = which === "lesson" || which === "puzzle";
  $("#review-controls").hidden = which !== "review";
  $("#steps-controls").hidden = trainer;
  $("#lesson-box").hidden = which !== "lesson";
  $("#puzzle-box").hidden = which !== "puzzle";
  $(".moves-title").hidden = trainer;
  $("#moves").hidden = trainer;
  $("#download").hidden = trainer;
  $("#history-bar").hidden = true;
  for (const id of ["#game-controls", "#offer-box", "#claim-box", "#result"]) $(id).hidden = true;
  $("#conn").hidden = true;
  if (which !== "game") { $("#links").hidden = true; $("#fill-panel").hidden = true; }
  $("#local-box").hidden = true;
  $("#announce").textContent = "";
  $("#match-info").textContent = "";
  $("#offer-said").textContent = "";
}

/** The status line: plain text, or nodes (colours with their characters). @param {string|Node} what */
export function setStatus(what) {
  $("#status").replaceChildren(what);
}
/** The line under it, for what just happened. @param {string|Node} what */
export function announce(what) {
  $("#announce").replaceChildren(what);
}

/**
 * "Your move: the Red tower", "Black to move: the Blue Sumo (at most 5 squares)".
 * @param {string} side
 * @param {string|null} must
 * @param {number} rings the must-move tower's rings
 * @param {boolean} mine
 * @returns {DocumentFragment}
 */
export function toMoveNodes(side, must, rings, mine) {
  if (!must) return tn(mine ? "game.your_first_move" : "game.first_move", { side: sideName(side) });
  const tower = rings > 0
    ? tn(rangeOf(rings) === 1 ? "tower.sumo_one" : "tower.sumo", { colour: colourNode(must), rank: rankName(rings), n: rangeOf(rings) })
    : tn("tower.plain", { colour: colourNode(must) });
  return tn(mine ? "game.your_move" : "game.must_move", { side: sideName(side), tower });
}

/** The rings of `side`'s tower of `colour` in a list of towers.
 * @param {import("../types.js").TowerRow[]} towers @param {string} side @param {string|null} colour */
export function ringsOf(towers, side, colour) {
  const tw = towers.find(([, s, c]) => s === side && c === colour);
  return tw ? tw[3] : 0;
}

/**
 * A game's positions, one per action, to step through (review, and a live
 * game looked back on): the board shows the chosen one and the move list
 * marks the entries that led to it.
 */
export class Stepper {
  /**
   * @param {(step: Step, i: number) => void} onShow called after a step is drawn
   */
  constructor(onShow) {
    this.onShow = onShow;
    /** @type {Step[]} */
    this.steps = [];
    /** @type {Round[]} */
    this.rounds = [];
    /** @type {any} */
    this.data = null;
    this.i = 0;
    /** @type {Map<string, number>} "round:entry" to the step it belongs to */
    this.stepOf = new Map();
    /** @type {Set<string>[]} each step's entry keys */
    this.keysOf = [];
  }

  /** Fetch a game's steps. @param {string} id */
  async load(id) {
    const data = await getJSON(`/api/games/${id}/steps`);
    this.data = data;
    this.steps = data.steps;
    this.rounds = data.rounds;
    this.stepOf.clear();
    this.keysOf = [];
    /** @type {Record<number, number>} */
    const next = {};
    this.steps.forEach((s, i) => {
      const keys = new Set();
      for (const _ of s.entries) {
        const n = next[s.round] ?? 0;
        next[s.round] = n + 1;
        keys.add(`${s.round}:${n}`);
        this.stepOf.set(`${s.round}:${n}`, i);
      }
      this.keysOf.push(keys);
    });
    return data;
  }

  get last() { return this.steps.length - 1; }

  /** Draw step `i` (clamped). @param {number} i */
  show(i) {
    this.i = Math.max(0, Math.min(this.last, i));
    const s = this.steps[this.i];
    board.setTowers(s.towers);
    board.marks({ must: s.outcome ? null : s.must, turn: s.turn, last: s.move ? { move: s.move, pushed: s.pushed || [] } : null });
    renderMoves($("#moves"), this.rounds, {
      current: this.keysOf[this.i],
      onPick: (round, index) => { const k = this.stepOf.get(`${round}:${index}`); if (k !== undefined) this.show(k); },
    });
    this.onShow(s, this.i);
  }

  /**
   * The step-through keys: PageUp/PageDown (and the arrows, unless the
   * board takes them) one step, Home the start, End the last.
   * @param {KeyboardEvent} ev
   * @param {boolean} arrows whether the arrow keys step too
   * @returns {boolean} whether the key was used
   */
  key(ev, arrows) {
    /** @type {Record<string, number>} */
    const keys = { PageUp: -1, PageDown: 1, Home: -1e9, End: 1e9 };
    if (arrows) { keys.ArrowLeft = -1; keys.ArrowRight = 1; }
    const k = keys[ev.key];
    if (k === undefined) return false;
    ev.preventDefault();
    this.show(this.i + k);
    return true;
  }
}
