/* A live game's controls beyond moving: take back a move, a rematch, and
   their offers in an online game (the opponent accepts or declines, the
   asker may withdraw; an answer "no" is kept by the server and said to the
   asker), claiming the win from an opponent who left a real-time game, and
   the end of a match shown inline in the panel: one Rematch button (lit as
   "Accept rematch" when the opponent offers one), New game, Review and
   Download, the way to the rematch once it is made.  The server decides
   what is allowed: the page offers what the state frame says. */
import { $ } from "../dom.js";
import { otherSide, sideName, t } from "../i18n.js";
import { showReport, stopReport } from "./report.js";

/** @typedef {import("../types.js").StateFrame} StateFrame */

/** @type {(msg: object) => void} sends a frame (saying so when it cannot) */
let send = () => {};
/** @type {StateFrame|null} */
let shown = null;
/** what was last said of the offers ("game:seq:text"), so each is said once;
 * forgotten once a frame has nothing to say (the same answer given again is news) */
let saidOffer = "";
/** whether the frame being drawn said (or would have said) something */
let saying = false;

/** @param {(msg: object) => void} sendFn how to send a frame to the game */
export function wireControls(sendFn) { send = sendFn; }

/** Whether a control is an offer to the opponent (an online game between two
 * people, one seat held here) rather than done at once. @param {StateFrame} st @param {string[]} you */
const offered = (st, you) => st.online_game && you.length === 1 && st.seats[otherSide(you[0])].kind === "human";

/**
 * An offer's line for this connection: to the asker, to the opponent, to a
 * spectator; pending or declined.
 * @param {{kind: string, by: string}} o @param {boolean} declined @param {string[]} you
 */
function offerLine(o, declined, you) {
  const who = you.includes(o.by) ? "sent" : you.length ? "got" : "seen";
  const key = `offer.${o.kind}${declined ? "_declined" : ""}_${who}`;
  // a spectator hears who asked, or who said no
  return t(key, { side: sideName(declined ? otherSide(o.by) : o.by) });
}

/**
 * Say a line about the offers once, in the hidden live region (the visible
 * line is in the offer box or the result, not in the status).
 * @param {StateFrame} st @param {string} text
 */
function sayOnce(st, text) {
  saying = true;
  const key = `${st.game}:${st.seq}:${text}`;
  if (key === saidOffer) return;
  saidOffer = key;
  $("#offer-said").textContent = text;
}

/**
 * Draw the controls for a state frame.
 * @param {StateFrame} st @param {string[]} you the seats held @param {boolean} connected
 */
export function renderExtras(st, you, connected) {
  shown = st;
  const offer = st.offer || null;
  const declined = st.declined || null;
  // take back: while a round is being played and something of it was moved
  // (by the asker, when it holds one seat: the server says how much there is);
  // not again for the same move once the opponent said no
  const round = st.rounds[st.rounds.length - 1];
  const moved = Boolean(round && round.entries.some((e) => e.kind === "move"));
  const mine = you.length === 1 ? Boolean(st.takeback && st.takeback[you[0]]) : moved;
  const refused = Boolean(declined && declined.kind === "takeback" && you.length === 1 && declined.by === you[0]);
  const tb = /** @type {HTMLButtonElement} */ ($("#takeback"));
  tb.disabled = !connected || st.state !== "playing" || Boolean(st.outcome) || !mine
    || Boolean(offer && offer.kind === "takeback") || refused;
  tb.textContent = t(offered(st, you) ? "control.takeback_offer" : "control.takeback");
  // why it is disabled: a tooltip, and the offer box's line for a screen reader
  if (refused) {
    tb.title = t("control.takeback_declined");
    tb.setAttribute("aria-describedby", "offer-text");
  } else {
    tb.removeAttribute("title");
    tb.removeAttribute("aria-describedby");
  }
  saying = false;
  renderOffer(st, you, connected);
  renderResult(st, you, connected);
  if (!saying) saidOffer = "";
  renderClaim(st, you);
}

/** A takeback offer, pending or declined: to the opponent a question, to the
 * asker a note with a way to withdraw it (or the answer "no").
 * @param {StateFrame} st @param {string[]} you @param {boolean} connected */
function renderOffer(st, you, connected) {
  const pending = st.offer && st.offer.kind === "takeback" ? st.offer : null;
  // a declined takeback is told to the asker (the one who said no knows)
  const no = st.declined && st.declined.kind === "takeback" && st.state === "playing"
    && you.length === 1 && you[0] === st.declined.by ? st.declined : null;
  const o = pending || no;
  const box = $("#offer-box");
  if (!o) { box.hidden = true; return; }
  box.hidden = false;
  box.dataset.kind = o.kind;
  box.dataset.declined = no ? "1" : "0";
  const mine = you.includes(o.by);
  const theirs = you.length > 0 && !mine;
  const text = offerLine(o, Boolean(no), you);
  $("#offer-text").textContent = text;
  // said once: a question to the opponent, the answer to the asker
  if (pending ? !mine : mine) sayOnce(st, text);
  $("#offer-accept").hidden = !(pending && theirs);
  $("#offer-decline").hidden = !(pending && theirs);
  $("#offer-withdraw").hidden = !(pending && mine);
  for (const id of ["#offer-accept", "#offer-decline", "#offer-withdraw"]) {
    /** @type {HTMLButtonElement} */ ($(id)).disabled = !connected;
  }
}

/** The end of the match, inline under the status (which says the result):
 * the rematch (one button; lit as "Accept rematch" when the opponent offers
 * one, with Decline beside it; Withdraw for one's own offer), then New game,
 * Review and Download.  A spectator sees the offers and the way to watch the rematch.
 * @param {StateFrame} st @param {string[]} you @param {boolean} connected */
function renderResult(st, you, connected) {
  const box = $("#result");
  const over = st.state === "over";
  box.hidden = !over;
  if (!over) { stopReport($("#result-report")); return; }
  showReport($("#result-report"), st.game);
  const offer = st.offer && st.offer.kind === "rematch" ? st.offer : null;
  const no = !offer && st.declined && st.declined.kind === "rematch" ? st.declined : null;
  const mine = Boolean(offer && you.includes(offer.by));
  const theirs = Boolean(offer && you.length && !mine);
  const rematch = /** @type {HTMLButtonElement} */ ($("#rematch"));
  rematch.hidden = !you.length || Boolean(st.rematch);
  rematch.disabled = !connected || mine;
  rematch.classList.toggle("lit", theirs);
  rematch.textContent = t(theirs ? "control.rematch_accept" : offered(st, you) ? "control.rematch_offer" : "control.rematch");
  const decline = /** @type {HTMLButtonElement} */ ($("#rematch-decline"));
  decline.hidden = rematch.hidden || !offer || !you.length;
  decline.disabled = !connected;
  decline.textContent = t(mine ? "offer.withdraw" : "offer.decline");
  const note = $("#rematch-note");
  const o = offer || no;
  note.hidden = !o || Boolean(st.rematch);
  if (o && !st.rematch) {
    const text = offerLine(o, Boolean(no), you);
    note.textContent = text;
    if (offer ? !mine : you.includes(o.by)) sayOnce(st, text);
  }
  const link = $("#rematch-link");
  link.hidden = !st.rematch;
  if (st.rematch) {
    link.setAttribute("href", `#/game/${st.rematch}`);
    link.textContent = t(you.length ? "control.open_rematch" : "control.watch_rematch");
  }
  // the rematch (or the way to it) is the main button; else New game is
  $("#result-new").classList.toggle("primary", rematch.hidden && link.hidden);
  const again = newOpponentHref(st, you);
  $("#result-new").setAttribute("href", again || newGameHref(st, you));
  $("#result-new").textContent = t(again ? "game.new_opponent" : "game.new");
  $("#result-new").dataset.i18n = again ? "game.new_opponent" : "game.new";
  $("#result-review").setAttribute("href", `#/review/${st.game}`);
  $("#result-download").setAttribute("href", `/api/games/${st.game}/record`);
}

// -- "New opponent": a game got in the lobby seeks another at its speed ------------

/** Where this page remembers the games the lobby made for it (this tab only). */
const PAIRED_KEY = "kamisado.paired";

/** Remember that the lobby made game `game` for this page (quick pairing at
 * `speed`, or an accepted challenge: `speed` null, read from the game's clock).
 * @param {string} game @param {string|null} speed @param {boolean} rated */
export function rememberPaired(game, speed, rated) {
  try {
    /** @type {Record<string, {speed: string|null, rated: boolean}>} */
    const all = JSON.parse(sessionStorage.getItem(PAIRED_KEY) || "{}");
    all[game] = { speed, rated };
    const keys = Object.keys(all);
    for (const old of keys.slice(0, Math.max(0, keys.length - 20))) delete all[old];  // the last 20 are enough
    sessionStorage.setItem(PAIRED_KEY, JSON.stringify(all));
  } catch (e) { /* storage off: New game, as before */ }
}

/** A clock control as a quick-pairing speed: "3+2", "1d" (null for another).
 * @param {{initial?: number, increment?: number, days?: number}|null|undefined} c
 * @example speedOf({ initial: 180, increment: 2 }) // "3+2"
 * @example speedOf({ days: 3 }) // "3d" */
export function speedOf(c) {
  if (!c) return null;
  const speed = c.days ? `${c.days}d` : `${(c.initial || 0) / 60}+${c.increment || 0}`;
  return ["1+0", "3+2", "5+3", "10+5", "15+10", "1d", "3d"].includes(speed) ? speed : null;
}

/** "New opponent" after a game the lobby made: the home page seeking the same
 * speed, rated as it was (null otherwise). @param {StateFrame} st @param {string[]} you */
function newOpponentHref(st, you) {
  if (you.length !== 1 || !st.online_game) return null;
  let paired = null;
  try { paired = JSON.parse(sessionStorage.getItem(PAIRED_KEY) || "{}")[st.game] || null; } catch (e) { /* off */ }
  if (!paired) return null;
  const speed = paired.speed || speedOf(st.clock && st.clock.control);
  if (!speed) return "#/lobby";
  return `#/?seek=${encodeURIComponent(speed)}${paired.rated || st.rated ? "&rated=1" : ""}`;
}

/** Where New game leads: the same kind of game's form (a spectator: the landing page).
 * @param {StateFrame} st @param {string[]} you */
function newGameHref(st, you) {
  if (!you.length) return "#/";
  if (you.length === 2) return "#/new/hotseat";
  const other = st.seats[otherSide(you[0])];
  if (other.kind !== "human") return `#/new/computer?level=${encodeURIComponent(other.kind)}`;
  return st.online_game ? "#/new/online" : "#/";
}

$("#offer-accept").addEventListener("click", () => send({ type: "takeback", action: "accept" }));
$("#offer-decline").addEventListener("click", () => send({ type: "takeback", action: "decline" }));
$("#offer-withdraw").addEventListener("click", () => send({ type: "takeback", action: "decline" }));
$("#takeback").addEventListener("click", () => send({ type: "takeback", action: "offer" }));
$("#rematch").addEventListener("click", () => {
  const o = shown && shown.offer;
  const theirs = Boolean(o && o.kind === "rematch" && shown && !(shown.you || []).includes(o.by));
  send({ type: "rematch", action: theirs ? "accept" : "offer" });
});
$("#rematch-decline").addEventListener("click", () => send({ type: "rematch", action: "decline" }));
$("#claim").addEventListener("click", () => send({ type: "claim" }));

// -- claiming the win: counted from the frame's away_ms, locally ---------------

/** @type {{at: number, away: number, after: number}|null} */
let claim = null;

/** @param {StateFrame} st @param {string[]} you */
function renderClaim(st, you) {
  claim = null;
  if (st.state !== "over" && st.online_game && st.claim_after_ms != null && you.length === 1) {
    const opp = st.seats[otherSide(you[0])];
    if (opp && opp.kind === "human" && opp.away_ms != null) {
      claim = { at: performance.now(), away: opp.away_ms, after: st.claim_after_ms };
    }
  }
  tickClaim();
}

function tickClaim() {
  const box = $("#claim-box");
  if (!claim) { box.hidden = true; return; }
  const left = claim.after - (claim.away + performance.now() - claim.at);
  box.hidden = false;
  $("#claim").hidden = left > 0;
  const text = left > 0 ? t("claim.wait", { n: Math.ceil(left / 1000) }) : t("claim.ready");
  const p = $("#claim-text");
  if (p.textContent !== text) p.textContent = text;
}
window.setInterval(tickClaim, 250);

/** Nothing of a game to show (another view). */
export function hideExtras() {
  shown = null;
  claim = null;
  saidOffer = "";
  for (const id of ["#offer-box", "#claim-box", "#result"]) $(id).hidden = true;
}
