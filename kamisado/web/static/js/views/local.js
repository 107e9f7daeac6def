/* A game played in this browser without the server (#/local/<id>): a
   hotseat game or a game against the computer, made while offline.  The
   rules are the engine's (engine.js: legalMoves and play, the C core the
   server runs too); a round's end, the points, the rings and the fills are
   offline_match.js's (as kamisado/rules/match.py); the computer's moves
   are the page's engine's (computer.js).  Every action is kept in IndexedDB
   (local_store.js) before the board shows it made.  My games lists these
   games "on this device" and sends them to the server with a button. */
import { $ } from "../dom.js";
import { colourNode, matchName, otherSide, pointsText, sideName, t, tn } from "../i18n.js";
import { legalMoves, play } from "../engine.js";
import { computerFill, computerMove } from "../computer.js";
import { COLOUR_LETTERS, COLOUR_NAMES, OfflineMatch, towersOf } from "../offline_match.js";
import { getGame, newId, putGame } from "../local_store.js";
import { sqName } from "../board.js";
import { announce, board, fillBoards, panelParts, ringsOf, setStatus, toMoveNodes } from "./play.js";
import { showMissing } from "./missing.js";

/** @typedef {import("../local_store.js").LocalGame} LocalGame */
/** @typedef {import("../types.js").TowerRow} TowerRow */

/** @type {LocalGame|null} */
let game = null;
/** @type {OfflineMatch|null} */
let match = null;
/** the last move played, for its marks */
let lastMove = "";
/** the kept game being read (null once read) */
let opening = /** @type {string|null} */ (null);
/** an action is being played (the engine, then IndexedDB): the board takes no other */
let busy = false;

/** Whether the page shows a game played offline. */
export const inLocal = () => game !== null;

/** The towers of a KPN as the board draws them. @param {string} kpn @returns {TowerRow[]} */
export function towerRows(kpn) {
  const { square, rings } = towersOf(kpn);
  return square.map((sq, id) => /** @type {TowerRow} */ ([sqName(sq), id < 8 ? "b" : "g", COLOUR_NAMES[id & 7], rings[id]]));
}

/**
 * A position as /api/position answers it, worked out in the page by the
 * engine (offline: the puzzles, a lesson's move the cache does not hold):
 * its towers, legal destinations, the colour that must move, the side to
 * move, the outcome; with a move, the position after it (`last`: the move).
 * @param {string} kpn @param {string} [move]
 * @returns {Promise<import("../types.js").PositionView & {push: boolean, last?: any}>}
 */
export async function localPosition(kpn, move) {
  let at = kpn;
  /** @type {any} */
  let outcome = null;
  if (move) {
    const r = await play(kpn, move);
    at = r.kpn;
    outcome = r.outcome;
  }
  const legal = outcome ? {} : (await legalMoves(at)).legal;
  return { kpn: at, towers: towerRows(at), turn: at.split(" ")[1], must: outcome ? null : mustOf(at), legal,
    outcome, passes: [], push: false, ...(move ? { last: { move, pushed: [] } } : {}) };
}

/** The colour that must move in a KPN (null: any tower). @param {string} kpn */
function mustOf(kpn) {
  const letter = kpn.split(" ")[2];
  return letter && letter !== "-" ? COLOUR_NAMES[COLOUR_LETTERS.indexOf(letter)] : null;
}

/**
 * Make a game to play offline and keep it.
 * @param {{target: number, series: boolean, black: string, gold: string}} settings
 * @returns {Promise<string>} its id
 */
export async function createLocal(settings) {
  const m = new OfflineMatch({ target: settings.target, series: settings.series });
  const now = Date.now();
  /** @type {LocalGame} */
  const g = { id: newId(), created: now, updated: now, black: settings.black, gold: settings.gold,
    target: settings.target, series: settings.series, seed: Math.floor(Math.random() * 2 ** 30),
    match: m.toJSON(), sent: null };
  await putGame(g);
  return g.id;
}

/** Open a kept game. @param {string} id */
export async function openLocal(id) {
  game = null;
  match = null;
  lastMove = "";
  busy = false;
  panelParts("game");
  $("#links").hidden = true;
  $("#steps-controls").hidden = true;
  $("#download").hidden = true;
  $(".moves-title").hidden = true;
  $("#moves").hidden = true;
  $("#moves").innerHTML = "";
  board.marks({});
  opening = id;
  const g = await getGame(id);
  if (opening !== id) return;  // another view opened meanwhile
  opening = null;
  if (!g) { showMissing("local", id); return; }
  game = g;
  match = OfflineMatch.fromJSON(g.match);
  // the last move's frame, as it was before the page was left (none at a round's start)
  lastMove = match.current.moves[match.current.moves.length - 1] || "";
  const person = g.black === "human" ? "b" : "g";
  board.setFlip(g.black !== "human" && g.gold === "human" && person === "g");
  $("#play-title").textContent = `${who("b")} – ${who("g")}`;
  await render();
}

/** Leave the game (another view opens). */
export function leaveLocal() {
  game = null;
  opening = null;
  match = null;
  $("#fill-panel").hidden = true;
  $("#local-box").hidden = true;
}

/** Redraw in a new language. */
export function rerenderLocal() { if (game) render(); }

/** A seat's name: a person's side, or the computer at its level. @param {string} s */
function who(s) {
  const kind = game ? (s === "b" ? game.black : game.gold) : "human";
  return kind === "human" ? sideName(s) : t("game.computer", { level: t(`level.${kind}`) });
}

/** The kind of the seat of side `s`: "human" or a level. @param {string} s */
const kindOf = (s) => (game ? (s === "b" ? game.black : game.gold) : "human");

/** Draw the game as it stands, then let the computer act if it is its turn. */
async function render() {
  if (!game || !match) return;
  const g = game;
  const m = match;
  const towers = towerRows(m.kpn);
  const side = m.toAct;
  const playing = m.state === "playing";
  const human = side !== null && kindOf(side) === "human";
  board.setTowers(towers);
  const must = playing ? mustOf(m.kpn) : null;
  /** @type {Record<string, string[]>} */
  let legal = {};
  if (playing && human) legal = (await legalMoves(m.kpn)).legal;
  if (game !== g) return;
  const turn = m.kpn.split(" ")[1];
  board.marks({ legal, must, turn, last: lastMove ? { move: lastMove, pushed: [] } : null });
  $("#board").dataset.seq = String(m.actions().length);
  $("#board").dataset.kpn = m.kpn;  // the position the engine is asked about (and tests read)
  $("#board").dataset.state = m.state;
  $("#match-info").replaceChildren(`${matchName({ target: m.target, series: m.series, name: "" })} · `
    + `${t("game.round", { n: m.rounds.length })} · ${t("game.score")} ${m.points[0]}–${m.points[1]}`);
  $(".seat-top").textContent = who(board.flip ? "b" : "g");
  $(".seat-bottom").textContent = who(board.flip ? "g" : "b");
  const fp = $("#fill-panel");
  fp.hidden = true;
  $("#local-box").hidden = false;
  $("#local-kept").textContent = g.sent ? t("local.sent_note") : t("local.kept");
  if (m.state === "over") {
    const w = /** @type {string} */ (m.winner);
    setStatus(t("game.winner", { side: sideName(w), score: `${m.points[0]}–${m.points[1]}` }));
    return;
  }
  if (m.state === "fill") {
    const o = /** @type {import("../offline_match.js").Outcome} */ (m.current.outcome);
    const winner = o.winner;
    setStatus(t(human ? "game.fill_choose" : "game.fill_wait", { side: sideName(winner) }));
    if (human) {
      fp.hidden = false;
      for (const d of /** @type {const} */ (["left", "right"])) {
        fillBoards[d].setFlip(board.flip);
        fillBoards[d].setTowers(towerRows(m.nextRoundStart(d)));
        fillBoards[d].marks({});
      }
    }
  } else if (side) {
    setStatus(human ? toMoveNodes(side, must, ringsOf(towers, side, must), kindOf(otherSide(side)) !== "human")
      : t("game.thinking", { side: who(side) }));
  }
  if (side && !human) computerActs(side);
}

/** The computer's action, found by the page's engine. @param {string} side */
async function computerActs(side) {
  if (!game || !match || busy) return;
  const g = game;
  const m = match;
  const level = kindOf(side);
  const seed = g.seed + m.actions().length;
  busy = true;
  try {
    if (m.state === "fill") {
      const d = await computerFill({ left: m.nextRoundStart("left"), right: m.nextRoundStart("right") }, level, seed);
      if (game !== g) return;
      await act(d);
    } else {
      const mv = await computerMove(m.kpn, level, seed);
      if (game !== g) return;
      await act(mv);
    }
  } finally {
    if (game === g) busy = false;
  }
  if (game === g) await render();
}

/**
 * Play an action: a move through the engine's rules, or a fill; kept in
 * IndexedDB before it is shown.
 * @param {string} action
 */
async function act(action) {
  if (!game || !match) return;
  const m = match;
  const before = m.toJSON();
  let said = null;
  if (action === "left" || action === "right") {
    m.chooseFill(action);
    lastMove = "";
  } else {
    const r = await play(m.kpn, action);
    m.played(action, r.kpn, r.outcome ? { winner: r.outcome.winner, colour: r.outcome.colour, rings: r.outcome.rings,
      reason: r.outcome.reason } : null);
    lastMove = action;
    if (r.outcome) {
      said = r.outcome.reason === "deadlock"
        ? t("game.round_won_deadlock", { side: sideName(r.outcome.winner), points: pointsText(r.outcome.points) })
        : tn("game.round_won", { side: sideName(r.outcome.winner), colour: colourNode(r.outcome.colour),
          points: pointsText(r.outcome.points) });
    }
  }
  try {
    game.match = m.toJSON();
    await putGame(game);  // kept before it is shown
  } catch (e) {
    match = OfflineMatch.fromJSON(before);  // not kept: not made
    if (game) game.match = before;
    announce(t("local.not_kept"));
    return;
  }
  announce(said || "");
}

/** A move picked on the board. @param {string} from @param {string} to */
export async function localMove(from, to) {
  if (!game || !match || busy || match.state !== "playing") return;
  const side = match.toAct;
  if (!side || kindOf(side) !== "human") return;
  busy = true;
  const g = game;
  try {
    await act(`${from}-${to}`);
  } catch (e) {
    announce(t("game.error", { message: /** @type {Error} */ (e).message }));
  } finally {
    if (game === g) busy = false;
  }
  if (game === g) await render();
}

/** The round's winner (a person) fills. @param {string} direction */
async function localFill(direction) {
  if (!game || !match || busy || match.state !== "fill") return;
  const side = match.toAct;
  if (!side || kindOf(side) !== "human") return;
  busy = true;
  const g = game;
  try { await act(direction); } finally { if (game === g) busy = false; }
  if (game === g) await render();
}
$("#fill-left").addEventListener("click", () => { if (game) localFill("left"); });
$("#fill-right").addEventListener("click", () => { if (game) localFill("right"); });
