/* A live game: the board for the seats this browser holds, the seats, the
   status line, what just happened in words, the fill choice, invite links,
   the move list, and a look back through the game's positions. */
import { $, getJSON, h } from "../dom.js";
import { SIDE_FILL } from "../board.js";
import { colourNode, matchName, otherSide, pointsText, pushNodes, sideName, t, tn } from "../i18n.js";
import { renderMoves } from "../movelist.js";
import { botBadge, ratingNode } from "../ratings.js";
import { prefs, setPref } from "../prefs.js";
import { GameSocket } from "../socket.js";
import { announce, board, fillBoards, panelParts, ringsOf, setStatus, Stepper, toMoveNodes } from "./play.js";
import { hideExtras, renderExtras, wireControls } from "./controls.js";
import { chatFrame, chatRefused, renderChat, resetChat, wireChat } from "./chat.js";
import { computerFill, computerMove, pageThinks } from "../computer.js";
import { showMissing } from "./missing.js";
import { knows, refusal } from "../refusals.js";

/** @typedef {import("../types.js").StateFrame} StateFrame */
/** @typedef {import("../types.js").Step} Step */

/** A seat token an older version of the page kept in this browser (seats
 * now belong to the player: the server knows them without a token).
 * @param {string} id */
export const tokenFor = (id) => localStorage.getItem(`kamisado.token.${id}`);

/**
 * A game was made for this connection (a rematch, a challenge accepted):
 * open it.  Seat tokens come only to a connection that is no player; they
 * are kept the way the page always kept them.
 * @param {{game: string, tokens?: Record<string, string>}} msg
 */
export function openStarted(msg) {
  const token = msg.tokens ? Object.values(msg.tokens)[0] : null;
  if (token) {
    try { localStorage.setItem(`kamisado.token.${msg.game}`, token); } catch (e) { /* storage full or off */ }
  }
  location.hash = `#/game/${msg.game}`;
}

/** @type {StateFrame|null} */
let game = null;
let lastAnnounced = -1;
/** @type {string|null} */
let gameId = null;
let looking = false;   // stepping through earlier positions
let lookedAtSeq = -1;
let loading = false;  // the steps are being fetched

const socket = new GameSocket({
  onFrame(msg) {
    if (msg.type === "state") {
      // never go back to an older position (a reconnect may race an old socket)
      if (game && game.game === msg.game && msg.seq < game.seq) return;
      render(msg);
      think(msg);
    } else if (msg.type === "chat") {
      chatFrame(msg);
      if (game) renderChat(game);
    } else if (msg.type === "started") {
      openStarted(msg);
    } else if (msg.type === "error") {
      if (typeof msg.message === "string" && msg.message.startsWith("chat:")) {
        chatRefused(msg.code, msg.message);
        return;
      }
      // the page's computer move came too late (another tab's, or the server's own, was stored first)
      if (msg.code === "stale" && typeof msg.message === "string" && msg.message.startsWith("computer_move")) return;
      if (msg.code === "no_game") {
        // the previous game's board, names and clocks go: the page says what is missing
        const id = gameId || "";
        leaveGame();
        showMissing("game", id);
        return;
      }
      if (msg.code === "time") announce(t("game.error_time"));
      else if (msg.code === "seat_taken" || msg.code === "seat_kept" || msg.code === "bad_token") {
        announce(t(`seat.${msg.code === "bad_token" ? "bad_token" : msg.code.slice(5)}`));
        return;  // the state came before it: nothing to redraw
      }
      else announce(knows(msg) ? refusal(msg) : t("game.error", { message: msg.message }));
      if (game) render(game);  // the board offers the position's moves again
    }
  },
  onStatus(s) {
    // the server restarts: its clocks stand still (nobody is charged the time it is away),
    // and so do the page's, until a fresh state frame comes from a server
    if (s === "restarting") freezeClocks();
    const conn = $("#conn");
    conn.hidden = s === "open";
    conn.textContent = s === "lost" ? t("conn.lost") : s === "restarting" ? t("conn.restarting") : t("game.connecting");
    conn.className = "conn " + s;
    if (game) render(game);
  },
});

const stepper = new Stepper((s) => {
  const where = s.ply ? t("history.where", { round: s.round, n: s.ply }) : t("review.start", { n: s.round });
  $("#history-where").textContent = `${t("history.looking")} ${where}`;
});

/** Whether the page is showing a live game. */
export const inGame = () => gameId !== null;

/**
 * Open a game: join it over the websocket with the seat token this browser
 * holds for it (a spectator without one).
 * @param {string} id
 * @param {string|null} token
 */
export function openGame(id, token) {
  if (gameId === id && socket.game === id) return;
  gameId = id;
  game = null;
  lastAnnounced = -1;
  looking = false;
  warned = {};
  clearConfirm();
  // until the game's state comes, the board shown (another game's, or none)
  // takes no move: no destinations, no pick, no action count
  board.marks({});
  delete $("#board").dataset.seq;
  panelParts("game");
  resetChat(id);
  liveLayout(true);
  setStatus(t("game.connecting"));
  $("#moves").innerHTML = "";
  $("#download").setAttribute("href", `/api/games/${id}/record`);
  socket.join(id, token);
}

/** Leave the game (another view opens). */
export function leaveGame() {
  gameId = null;
  game = null;
  clocks = null;
  clocksFrom = null;
  clearConfirm();
  liveLayout(false);
  hideExtras();
  resetChat(null);
  yourMove(null);
  looking = false;
  socket.close();
}

// -- the computer's moves of this page's own game against the computer ------------------

// the page runs the engine where it can: its join says so, and the server waits for the
// computer's moves from it (and thinks itself only when none comes in time)
socket.thinks = pageThinks();
/** The game and action the page is thinking about (each only once). */
let thoughtAbout = "";

/** When the game waits for the computer's action in the page's own game against the
 * computer (the page holds the person's seat), find it with the page's engine and send it.
 * @param {StateFrame} st */
async function think(st) {
  if (!socket.thinks || !st.to_act) return;
  const people = ["b", "g"].filter((s) => st.seats[s].kind === "human");
  const you = st.you || [];
  if (people.length !== 1 || you.length !== 1 || you[0] !== people[0] || st.to_act === people[0]) return;
  const key = `${st.game}:${st.seq}`;
  if (thoughtAbout === key) return;
  thoughtAbout = key;
  const level = st.seats[st.to_act].kind;
  // the server's seed for this action: the page finds the server's very move
  const seed = typeof st.seed === "number" ? st.seed : Math.floor(Math.random() * 2 ** 30);
  try {
    const frame = st.state === "fill" && st.fill
      ? { type: "computer_move", direction: await computerFill({ left: st.fill.left.kpn, right: st.fill.right.kpn }, level, seed), seq: st.seq }
      : { type: "computer_move", move: await computerMove(st.kpn, level, seed), seq: st.seq };
    if (game && game.game === st.game && game.seq === st.seq) socket.send(frame);
  } catch (e) {
    // the engine failed: the server thinks once its wait is over
  }
}

/** Send a control's frame; say so when the connection is down. @param {object} msg */
function sendControl(msg) {
  if (!socket.send(msg)) announce(t("conn.not_sent"));
}
wireControls(sendControl);
wireChat((msg) => socket.send(msg));

board.onMove = (from, to) => {
  if (!gameId || !game || looking) return;
  // on a touch screen a move can wait for its confirmation (a setting)
  if (prefs.confirmTouch && board.pointerType === "touch") askConfirm(from, to);
  else sendMove(from, to);
};
/** @param {string} from @param {string} to */
function sendMove(from, to) {
  if (!game) return;
  if (!socket.send({ type: "move", move: `${from}-${to}`, seq: game.seq })) {
    announce(t("conn.not_sent"));
    render(game);
  }
}

// -- a move made on a touch screen, confirmed (or not) ---------------------------------

/** @type {{from: string, to: string, seq: number}|null} */
let pending = null;
/** Ask whether to play a move: it is shown on the board meanwhile. @param {string} from @param {string} to */
function askConfirm(from, to) {
  if (!game) return;
  pending = { from, to, seq: game.seq };
  board.showPending(from, to);
  $("#move-confirm-text").textContent = t("game.confirm_move", { move: `${from}–${to}` });
  $("#move-confirm").hidden = false;
  /** @type {HTMLElement} */ ($("#move-confirm-yes")).focus({ preventScroll: true });
}
function clearConfirm() {
  pending = null;
  $("#move-confirm").hidden = true;
}
$("#move-confirm-yes").addEventListener("click", () => {
  const p = pending;
  clearConfirm();
  if (p && game && game.seq === p.seq) sendMove(p.from, p.to);
  else if (game) render(game);
});
$("#move-confirm-no").addEventListener("click", () => {
  clearConfirm();
  if (game) render(game);
  $("#board").focus({ preventScroll: true });
});

// -- the live game's layout: zen mode (the board and the clocks only) ----------------

/** Lay the play view out for a live game (or not). @param {boolean} on */
function liveLayout(on) {
  $(".play").classList.toggle("live", on);
  document.body.classList.toggle("live-game", on);
  $(".moves-title").classList.toggle("sr-only", on);  // the list's table head says it (style.css)
  /** @type {HTMLElement} */ ($(".board-tools")).hidden = !on;
  renderZen();
}
function renderZen() {
  $("#zen").textContent = t(prefs.zen ? "game.zen_leave" : "game.zen");
}
$("#zen").addEventListener("click", () => {
  setPref("zen", !prefs.zen);
  renderZen();
});
/** @param {string} direction */
function fill(direction) {
  if (!game) return;
  if (!socket.send({ type: "fill", direction, seq: game.seq })) announce(t("conn.not_sent"));
}
$("#fill-left").addEventListener("click", () => fill("left"));
$("#fill-right").addEventListener("click", () => fill("right"));

/** @param {string} s @param {StateFrame} st */
function seatLabel(s, st) {
  const seat = st.seats[s];
  const name = seat.kind === "human" ? seat.name
    : seat.name.startsWith("Computer (") ? t("game.computer", { level: t(`level.${seat.kind}`) }) : seat.name;
  return name === "Black" || name === "Gold" ? sideName(s) : name;
}

/** Draw a state frame (or redraw the last one). @param {StateFrame} st */
function render(st) {
  const prev = game;
  game = st;
  const connected = socket.status === "open";
  $("#board").dataset.seq = String(st.seq);
  $("#board").dataset.conn = socket.status;
  $("#board").dataset.you = (st.you || []).join("");
  const you = st.you || [];
  const playing = st.state === "playing" && !st.outcome;
  const canAct = Boolean(st.to_act && you.includes(st.to_act)) && connected;
  board.setFlip(you.length === 1 && you[0] === "g");
  $("#play-title").textContent = `${seatLabel("b", st)} – ${seatLabel("g", st)}`;
  if (!looking) {
    board.setTowers(st.towers);
    board.marks({ legal: canAct && playing ? st.legal : {}, must: playing ? st.must : null, turn: st.turn,
      last: lastMark(st) });
    renderMoves($("#moves"), st.rounds, { follow: true, onPick: (round, index) => lookBack(round, index) });
  } else if (st.seq !== lookedAtSeq) {
    $("#history-where").textContent = t("history.new_move");
  }
  if (st !== clocksFrom) {  // a new frame: its clocks (a redraw of the same frame keeps them counting)
    clocksFrom = st;
    clocks = st.clock ? { b: st.clock.b, g: st.clock.g, running: st.state === "over" ? null : st.clock.running,
      at: performance.now(), days: Boolean(st.clock.control.days), frozen: false } : null;
  }
  renderSeats(st, connected);
  tickClocks();
  renderControls(st, you, connected);
  renderChat(st);
  yourMove(st);
  const mt = matchName(st);
  // the score never breaks across lines ("1–" above "0")
  $("#match-info").replaceChildren(`${mt}${st.rated ? ` · ${t("game.rated")}` : ""} · ${t("game.round", { n: st.round })} · ${t("game.score")} `,
    h("span", { class: "nowrap" }, `${st.points[0]}–${st.points[1]}`));
  // the status line
  const status = document.createDocumentFragment();
  const actor = st.to_act;
  // the result, inline: the status says it, the panel's result part holds what comes next (controls.js)
  if (st.state === "over") status.append(h("span", { id: "result-text", class: "result-text" }, resultText(st)));
  else if (st.thinking && actor) status.append(t("game.thinking", { side: sideName(actor) }));
  else if (st.state === "playing" && actor) {
    const mine = you.includes(actor) && you.length === 1;
    status.append(toMoveNodes(actor, st.must, ringsOf(st.towers, actor, st.must), mine));
  } else if (st.state === "fill" && st.fill) {
    // who chooses, said once here: the fill panel below has the one heading
    status.append(t(you.includes(st.fill.chooser) ? "game.fill_choose" : "game.fill_wait", { side: sideName(st.fill.chooser) }));
  }
  if (st.state !== "over" && actor && st.seats[actor].kind === "human" && st.online_game && !st.seats[actor].online && !you.includes(actor)) {
    // a second sentence after "Black to move: any tower" needs a mark between (no full stop follows a tower's name)
    status.append(" · ", st.seq === 0 ? t("game.waiting_opponent") : t("game.waiting_for", { side: sideName(actor) }));
  }
  if (!you.length) status.append(status.childNodes.length ? " · " : "", t("game.spectating"));
  setStatus(status);
  if (prev === null || st.seq !== lastAnnounced) {
    announceLast(st, prev === null);
    lastAnnounced = st.seq;
  }
  renderFill(st, you);
  renderLinks(st, you);
  renderZen();
  if (pending && (pending.seq !== st.seq || !canAct)) clearConfirm();
  else if (pending && !looking) board.showPending(pending.from, pending.to);
  // once over, Download sits in the result part beside Rematch, New game and Review
  $("#download").hidden = st.state === "over";
}

/** The last move's marks: the move just played, and at the match's end the
 * final move still (also after a resignation, a flag or an abort, whose
 * `last` is the end itself).  After a takeback (or with no `last`, a game
 * the server loaded again) the move list's last move of the round being
 * played.  None after a won round's fill.
 * @param {StateFrame} st @returns {{move: string, pushed: {to: string}[]}|null} */
function lastMark(st) {
  const last = st.last;
  if (last && last.kind === "move" && last.move && !(last.outcome && st.state === "playing")) {
    return { move: last.move, pushed: last.pushed || [] };
  }
  const kept = st.state === "playing" && (!last || last.kind === "takeback");
  if (!kept && (st.state !== "over" || !last || last.kind !== "end")) return null;
  return roundsLastMove(st.rounds);
}

/**
 * The last move of the last round as the move list writes it, with the
 * squares of the towers it pushed back (a Sumo push moves each one square
 * on, in the move's direction: the "back" entries after the move's own).
 * @param {import("../types.js").Round[]} rounds
 * @returns {{move: string, pushed: {to: string}[]}|null}
 * @example
 * roundsLastMove([{entries: [{kind: "move", move: "d4-d5"}, {kind: "back"}, {kind: "back"}]}])
 * // → {move: "d4-d5", pushed: [{to: "d6"}, {to: "d7"}]}
 */
export function roundsLastMove(rounds) {
  const round = rounds[rounds.length - 1];
  const entries = round ? round.entries : [];
  let at = entries.length - 1;
  while (at >= 0 && !(entries[at].kind === "move" && entries[at].move)) at--;
  if (at < 0) return null;
  const move = /** @type {string} */ (entries[at].move);
  const [from, to] = move.split("-");
  const step = Math.sign(Number(to.slice(1)) - Number(from.slice(1)));
  const backs = entries.slice(at + 1).filter((e) => e.kind === "back").length;
  const pushed = Array.from({ length: backs }, (_, i) => ({ to: `${to[0]}${Number(to.slice(1)) + step * (i + 1)}` }));
  return { move, pushed };
}

// -- your move: the tab's title and icon, and a sound if wished --------------------

const TITLE = "Kamisado";
let wasMine = false;
/** @param {string} colour @returns {string} a favicon: a dot of the colour */
const dotIcon = (colour) => "data:image/svg+xml," + encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="${colour}" stroke="#111"/></svg>`);

/** Tell a player in another tab that the game waits for them. @param {StateFrame|null} st */
function yourMove(st) {
  const you = st ? st.you || [] : [];
  const mine = Boolean(st && st.state !== "over" && you.length === 1 && st.to_act === you[0]);
  document.title = mine ? `● ${t("title.your_move")} – ${TITLE}` : TITLE;
  $("#favicon").setAttribute("href", mine ? dotIcon("#d3242b") : "data:,");
  document.body.dataset.yourMove = mine ? "1" : "0";
  if (mine && !wasMine && prefs.sound) beep(660);
  wasMine = mine;
}

/** A short soft tone (no sound file: the page's own oscillator). @param {number} hz */
function beep(hz) {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.frequency.value = hz;
    gain.gain.setValueAtTime(0.0001, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, ctx.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.35);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.4);
    osc.onended = () => ctx.close();
  } catch (e) { /* no audio here */ }
}

/** How the match ended, in words. @param {StateFrame} st */
function resultText(st) {
  const e = st.ended;
  if (e && e.reason === "abort") return t("ended.abort");
  if (e && e.winner) return t(`ended.${e.reason}`, { side: sideName(e.winner), loser: sideName(otherSide(e.winner)) });
  return st.winner ? t("game.winner", { side: sideName(st.winner), score: `${st.points[0]}–${st.points[1]}` }) : "";
}

// -- clocks: drawn from the last frame's times, counting down locally -------------

/** The clocks as of the last state frame; `frozen` while the server restarts: they stand still.
 * @type {{b: number, g: number, running: string|null, at: number, days: boolean, frozen: boolean}|null} */
let clocks = null;
/** @type {StateFrame|null} the frame the clocks were drawn from */
let clocksFrom = null;
/** Whether a side's low-time warning sounded (it sounds once each time its time falls under 10 s).
 * @type {Record<string, boolean>} */
let warned = {};
const LOW_MS = 10_000;

/** The time a clock shows now. @param {string} side */
function timeLeft(side) {
  if (!clocks) return 0;
  const stored = side === "b" ? clocks.b : clocks.g;
  return clocks.running === side && !clocks.frozen ? stored - (performance.now() - clocks.at) : stored;
}

/** Stop the clocks where they stand (until the next state frame draws them anew). */
function freezeClocks() {
  if (!clocks || clocks.frozen) return;
  clocks = { ...clocks, b: timeLeft("b"), g: timeLeft("g"), at: performance.now(), frozen: true };
  tickClocks();
}

/** "4:05", "0:09.3" under ten seconds, "2 d 03:10" for days. @param {number} ms @param {boolean} days */
export function clockText(ms, days) {
  const s = Math.max(0, ms) / 1000;
  if (days && s >= 86400) {
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    return `${t("clock.days", { n: d })} ${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
  }
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  if (h) return `${h}:${String(m).padStart(2, "0")}:${String(Math.floor(sec)).padStart(2, "0")}`;
  return s < 10 ? `${m}:${sec.toFixed(1).padStart(4, "0")}` : `${m}:${String(Math.floor(sec)).padStart(2, "0")}`;
}

function tickClocks() {
  if (!clocks) return;
  for (const side of ["b", "g"]) {
    const el = /** @type {HTMLElement|null} */ (document.querySelector(`.seat .clock[data-side="${side}"]`));
    if (!el) continue;
    const left = timeLeft(side);
    el.textContent = clockText(left, clocks.days);
    el.classList.toggle("running", clocks.running === side && !clocks.frozen);
    el.classList.toggle("paused", clocks.running === side && clocks.frozen);
    el.classList.toggle("low", !clocks.days && left < LOW_MS);
    el.dataset.ms = String(Math.max(0, Math.round(left)));
    // one's own time falls under 10 s: a warning sound, if sounds are on
    const you = game ? game.you || [] : [];
    if (you.length === 1 && you[0] === side && clocks.running === side && !clocks.frozen && !clocks.days) {
      if (left >= LOW_MS) warned[side] = false;
      else if (!warned[side]) {
        warned[side] = true;
        if (prefs.sound) beep(880);
      }
    }
  }
}
window.setInterval(tickClocks, 100);

/** @param {StateFrame} st @param {boolean} connected */
function renderSeats(st, connected) {
  const you = st.you || [];
  const top = board.flip ? "b" : "g", bottom = board.flip ? "g" : "b";
  for (const [cls, s] of [["seat-top", top], ["seat-bottom", bottom]]) {
    const div = $(`.${cls}`);
    const seat = st.seats[s];
    div.className = `seat ${cls}` + (st.to_act === s ? " to-act" : "");
    const dot = h("span", { class: "dot", "aria-hidden": "true" });
    dot.style.background = SIDE_FILL[s];
    const label = seatLabel(s, st);
    // an online game's players link to their pages (a hotseat game's seats are one player);
    // the whole name on hover where it is shortened
    const name = st.online_game && seat.player
      ? h("a", { class: "name", href: `#/player/${encodeURIComponent(seat.player)}`, title: label }, label)
      : h("span", { class: "name", title: label }, label);
    const pts = h("span", { class: "pts", title: t("game.score") }, String(st.points["bg".indexOf(s)]));
    // the player (name, rating, points, presence) on one line; the clock beside it on a
    // phone, under or over it (large) beside the board on a wider screen
    const who = h("span", { class: "who" }, dot, name);
    if (seat.bot) who.append(botBadge());
    // "(you)" apart from the name: on a phone it wraps under a long name with the rest
    if (you.includes(s) && you.length === 1) who.append(h("span", { class: "you-mark" }, `(${t("game.you")})`));
    div.replaceChildren(who);
    if (seat.rating != null) who.append(ratingNode({ rating: seat.rating, provisional: seat.provisional }));
    if (seat.rating_change != null) {
      const c = Math.round(seat.rating_change);
      who.append(h("span", { class: `rating-change ${c > 0 ? "up" : c < 0 ? "down" : ""}`, title: t("rating.change") },
        c > 0 ? `+${c}` : c < 0 ? `\u2212${-c}` : "±0"));
    }
    who.append(pts);
    if (st.to_act === s && st.state !== "over") who.append(h("span", { class: "turn-flag" }, t("game.to_act")));
    if (st.online_game && seat.kind === "human") {
      const p = h("span", { class: `presence ${!connected ? "unknown" : seat.online ? "on" : "off"}` },
        !connected ? "?" : seat.online ? t("game.online") : t("game.offline"));
      who.append(p);
    }
    if (st.clock) div.append(h("span", { class: "clock", "data-side": s, role: "timer", "aria-label": `${sideName(s)}` }));
  }
}

/** What just happened, in words: a push, passes, a round's end.
 * @param {StateFrame} st @param {boolean} first */
function announceLast(st, first) {
  const out = document.createDocumentFragment();
  const last = st.last;
  if (last && last.kind === "move" && !first) {
    if (last.push && last.mover && last.pushed && last.pushed.length) {
      const again = st.state === "playing" && !last.outcome && st.turn === last.mover.side ? st.must : null;
      out.append(pushNodes(last.mover, last.pushed, again), " ");
    }
    for (const p of last.passes || []) out.append(tn("game.pass", { side: sideName(p.side), colour: colourNode(p.colour) }), " ");
    if (last.passes && last.passes.length) board.pulse(last.passes.map((p) => p.square));
  }
  const o = last && last.outcome;
  if (o) {
    if (o.reason === "deadlock") out.append(t("game.deadlock", { side: sideName(o.winner), loser: sideName(otherSide(o.winner)) }));
    else out.append(tn("game.round_won", { side: sideName(o.winner), colour: colourNode(o.colour), points: pointsText(o.points) }));
    if (st.target > 1 && !st.series) out.append(" ", tn("game.ring", { colour: colourNode(o.colour) }));
  }
  announce(out);
}

/** Resign (asked twice), abort (before both sides have moved) and take back, for a seat
 * holder; then the offers, a rematch and claiming the win (controls.js).
 * @param {StateFrame} st @param {string[]} you @param {boolean} connected */
function renderControls(st, you, connected) {
  const box = $("#game-controls");
  box.hidden = !you.length || st.state === "over";
  const moves = st.rounds.reduce((n, r) => n + r.entries.filter((e) => e.kind === "move").length, 0);
  $("#abort").hidden = moves >= 2;
  for (const id of ["#resign", "#abort"]) /** @type {HTMLButtonElement} */ ($(id)).disabled = !connected;
  if (st.seq !== resignArmedAt) disarmResign();
  renderExtras(st, you, connected);
}
let resignArmedAt = -1;
function disarmResign() {
  resignArmedAt = -1;
  $("#resign").textContent = t("control.resign");
  $("#resign").classList.remove("primary");
}
$("#resign").addEventListener("click", () => {
  if (!game) return;
  if (resignArmedAt !== game.seq) {  // first click: ask
    resignArmedAt = game.seq;
    $("#resign").textContent = t("control.resign_sure");
    $("#resign").classList.add("primary");
    return;
  }
  disarmResign();
  if (!socket.send({ type: "resign", seq: game.seq })) announce(t("conn.not_sent"));
});
$("#abort").addEventListener("click", () => {
  if (game && !socket.send({ type: "abort", seq: game.seq })) announce(t("conn.not_sent"));
});

/** @param {StateFrame} st @param {string[]} you */
function renderFill(st, you) {
  const fp = $("#fill-panel");
  if (st.state === "fill" && st.fill) {
    const shown = !fp.hidden;
    fp.hidden = false;
    const mine = you.includes(st.fill.chooser);
    for (const d of /** @type {const} */ (["left", "right"])) {
      fillBoards[d].setFlip(board.flip);
      fillBoards[d].setTowers(st.fill[d].towers);
      fillBoards[d].marks({});
      $(`#fill-${d}-board`).setAttribute("aria-label", t(d === "left" ? "lessons.left" : "lessons.right_fill"));
      /** @type {HTMLButtonElement} */ ($(`#fill-${d}`)).disabled = !mine || socket.status !== "open";
    }
    // on a phone the panel lies below the board: bring both choices into
    // view, between the header and the tab bar (its scroll margins)
    if (!shown) fp.scrollIntoView({ block: "nearest" });
  } else fp.hidden = true;
}

/** The invite links of the player's online games (from /api/games), by game. @type {Map<string, string|null>} */
const invites = new Map();
/** @param {string} id */
async function fetchInvite(id) {
  invites.set(id, null);
  try {
    const rows = await getJSON("/api/games");
    for (const g of rows) if (g.invite) invites.set(g.id, g.invite.link);
  } catch (e) { return; }
  if (game && game.game === id && invites.get(id)) render(game);
}

/** Rejoin the game shown (the browser became another player). */
export function rejoin() {
  if (!gameId) return;
  const id = gameId;
  gameId = null;
  invites.clear();
  openGame(id, null);
}

/** @param {StateFrame} st @param {string[]} you */
function renderLinks(st, you) {
  const links = $("#links");
  if (st.online_game && you.length === 1) {
    const other = otherSide(you[0]);
    const inv = invites.get(st.game) || null;
    if (!invites.has(st.game)) fetchInvite(st.game);
    links.hidden = false;
    /** @type {HTMLInputElement} */ ($("#invite-link")).value = inv ? `${location.origin}${inv}` : "";
    // the invite is for an unclaimed seat: once the opponent holds it (a player), it is spent
    const showInvite = Boolean(inv) && st.seats[other].kind === "human" && !st.seats[other].player;
    for (const e of [$('label[for="invite-link"]'), $("#invite-link").parentElement]) if (e) e.hidden = !showInvite;
    links.classList.toggle("inviting", showInvite);  // still waiting: on top of the panel (style.css)
    /** @type {HTMLInputElement} */ ($("#watch-link")).value = `${location.origin}/game/${st.game}`;
  } else links.hidden = true;
}

// -- looking back through the game ------------------------------------------

/** Step back one position (or to the entry picked in the move list).
 * @param {number} [round] @param {number} [index] */
async function lookBack(round, index) {
  if (!gameId || !game) return;
  const id = gameId;
  const was = looking && lookedAtSeq === game.seq;
  if (!was) {
    lookedAtSeq = game.seq;
    if (loading) return;  // a step already on its way
    loading = true;
    try { await stepper.load(id); } finally { loading = false; }
    if (gameId !== id) return;
  }
  looking = true;
  $("#history-bar").hidden = false;
  board.marks({});
  const k = round !== undefined && index !== undefined ? stepper.stepOf.get(`${round}:${index}`) : undefined;
  stepper.show(k !== undefined ? k : was ? stepper.i - 1 : stepper.last - 1);
}

/** Back to the game as it stands. */
export function present() {
  if (!looking) return;
  looking = false;
  $("#history-bar").hidden = true;
  if (game) render(game);
  $("#board").focus();
}
$("#history-present").addEventListener("click", present);

/**
 * The live game's keys: the board's own (arrows, Enter, Escape when it has
 * the focus), then stepping: PageUp (or Left away from the board) back,
 * PageDown/Right forward, Home to the start, End back to the present.
 * @param {KeyboardEvent} ev
 * @param {boolean} onBoard
 */
export function gameKey(ev, onBoard) {
  if (onBoard && !looking && board.key(ev)) return;
  const back = ev.key === "PageUp" || (ev.key === "ArrowLeft" && (!onBoard || looking));
  const fwd = ev.key === "PageDown" || (ev.key === "ArrowRight" && (!onBoard || looking));
  if (ev.key === "End" || (ev.key === "Escape" && looking)) { ev.preventDefault(); present(); }
  else if (back) { ev.preventDefault(); lookBack(); }
  else if (ev.key === "Home") { ev.preventDefault(); lookBack(0, 0).then(() => { if (looking) stepper.show(0); }); }
  else if (fwd && looking) {
    ev.preventDefault();
    if (stepper.i >= stepper.last) present();
    else stepper.show(stepper.i + 1);
  }
}

/** The step buttons in a live game. @param {string} which */
export function gameStep(which) {
  if (which === "last") present();
  else if (which === "prev") lookBack();
  else if (which === "first") lookBack().then(() => stepper.show(0));
  else if (which === "next" && looking) {
    if (stepper.i >= stepper.last) present(); else stepper.show(stepper.i + 1);
  }
}

/** Redraw in a new language. */
export function rerenderGame() { if (game) render(game); }
