/* A live game's controls beyond moving: take back a move, a rematch, and
   their offers in an online game (the opponent accepts or declines, the
   asker may withdraw), claiming the win from an opponent who left a
   real-time game, and the way to the rematch once it is made.  The server
   decides what is allowed: the page offers what the state frame says. */
import { $ } from "../dom.js";
import { otherSide, sideName, t } from "../i18n.js";

/** @typedef {import("../types.js").StateFrame} StateFrame */

/** @type {(msg: object) => void} sends a frame (saying so when it cannot) */
let send = () => {};
/** @type {(what: string) => void} says a line in the panel's live region */
let say = () => {};
/** @type {StateFrame|null} */
let shown = null;
/** the offer last said aloud ("game:kind:by"), so it is said once */
let saidOffer = "";

/**
 * @param {(msg: object) => void} sendFn how to send a frame to the game
 * @param {(what: string) => void} sayFn how to say a line aloud (the live region under the status)
 */
export function wireControls(sendFn, sayFn) { send = sendFn; say = sayFn; }

/** Whether a control is an offer to the opponent (an online game between two
 * people, one seat held here) rather than done at once. @param {StateFrame} st @param {string[]} you */
const offered = (st, you) => st.online_game && you.length === 1 && st.seats[otherSide(you[0])].kind === "human";

/**
 * Draw the controls for a state frame.
 * @param {StateFrame} st @param {string[]} you the seats held @param {boolean} connected
 */
export function renderExtras(st, you, connected) {
  shown = st;
  const offer = st.offer || null;
  const over = st.state === "over";
  // take back: while a round is being played and something of it was moved
  // (by the asker, when it holds one seat: the server says how much there is)
  const round = st.rounds[st.rounds.length - 1];
  const moved = Boolean(round && round.entries.some((e) => e.kind === "move"));
  const mine = you.length === 1 ? Boolean(st.takeback && st.takeback[you[0]]) : moved;
  const tb = /** @type {HTMLButtonElement} */ ($("#takeback"));
  tb.disabled = !connected || st.state !== "playing" || Boolean(st.outcome) || !mine
    || Boolean(offer && offer.kind === "takeback");
  tb.textContent = t(offered(st, you) ? "control.takeback_offer" : "control.takeback");
  renderOffer(st, you, connected);
  // after the match: a rematch (or the way to it once made)
  const canOffer = over && you.length > 0 && !st.rematch && !(offer && offer.kind === "rematch");
  const rematch = /** @type {HTMLButtonElement} */ ($("#rematch"));
  rematch.hidden = !canOffer;
  rematch.disabled = !connected;
  rematch.textContent = t(offered(st, you) ? "control.rematch_offer" : "control.rematch");
  const link = $("#rematch-link");
  link.hidden = !(over && st.rematch);
  if (st.rematch) {
    link.setAttribute("href", `#/game/${st.rematch}`);
    link.textContent = t(you.length ? "control.open_rematch" : "control.watch_rematch");
  }
  $("#over-controls").hidden = rematch.hidden && link.hidden;
  const dialogLink = $("#result-rematch-link");
  dialogLink.hidden = link.hidden;
  if (st.rematch) {
    dialogLink.setAttribute("href", `#/game/${st.rematch}`);
    dialogLink.textContent = link.textContent;
  }
  const inDialog = /** @type {HTMLButtonElement} */ ($("#result-rematch"));
  inDialog.hidden = !canOffer;
  inDialog.disabled = !connected;
  inDialog.textContent = rematch.textContent;
  $("#result-new").classList.toggle("primary", !canOffer && link.hidden);
  renderClaim(st, you);
}

/** The pending offer: to the opponent a question, to the asker a note with a way to withdraw it.
 * @param {StateFrame} st @param {string[]} you @param {boolean} connected */
function renderOffer(st, you, connected) {
  const o = st.offer;
  const box = $("#offer-box");
  if (!o || (o.kind !== "takeback" && o.kind !== "rematch")) { box.hidden = true; saidOffer = ""; return; }
  box.hidden = false;
  box.dataset.kind = o.kind;
  const mine = you.includes(o.by);
  const theirs = you.length > 0 && !mine;
  const text = mine ? t(`offer.${o.kind}_sent`)
    : theirs ? t(`offer.${o.kind}_got`) : t(`offer.${o.kind}_seen`, { side: sideName(o.by) });
  $("#offer-text").textContent = text;
  // an offer that comes is said once in the live region (the box itself appears silently)
  const key = `${st.game}:${o.kind}:${o.by}`;
  if (key !== saidOffer && !mine) say(text);
  saidOffer = key;
  $("#offer-accept").hidden = !theirs;
  $("#offer-decline").hidden = !theirs;
  $("#offer-withdraw").hidden = !mine;
  for (const id of ["#offer-accept", "#offer-decline", "#offer-withdraw"]) {
    /** @type {HTMLButtonElement} */ ($(id)).disabled = !connected;
  }
}

/** @param {string} action "accept" or "decline" (which also withdraws one's own) */
function answer(action) {
  const o = shown && shown.offer;
  if (o) send({ type: o.kind, action });
}
$("#offer-accept").addEventListener("click", () => answer("accept"));
$("#offer-decline").addEventListener("click", () => answer("decline"));
$("#offer-withdraw").addEventListener("click", () => answer("decline"));
$("#takeback").addEventListener("click", () => send({ type: "takeback", action: "offer" }));
$("#rematch").addEventListener("click", () => send({ type: "rematch", action: "offer" }));
$("#result-rematch").addEventListener("click", () => {
  /** @type {HTMLDialogElement} */ ($("#result")).close();
  send({ type: "rematch", action: "offer" });
});
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
  for (const id of ["#offer-box", "#claim-box", "#over-controls"]) $(id).hidden = true;
}
