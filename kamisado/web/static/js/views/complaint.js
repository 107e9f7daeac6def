/* Blocking and reporting a player (docs/web-moderation.md): the player
   page's Block / Unblock button (its state is the server's `blocked`) and
   Report button, and the report form (the #complaint dialog) that the
   player page and a game's chat open; from a game the report names the
   game, and the form may block the opponent too.  The page keeps no rule:
   what may be sent, and every refusal, is the server's (shown as it words
   it). */
import { $, getJSON } from "../dom.js";
import { t } from "../i18n.js";
import { refusal } from "../refusals.js";

/** @typedef {{id: number, merged: boolean}} ReportAnswer */
/** @typedef {{player: string, name: string, game?: string|null, done: (said: string) => void}} Complaint */

/** What the open form is about (null while it is closed). @type {Complaint|null} */
let about = null;

/** A JSON request with a body (same-origin, as every POST).
 * @param {string} url @param {string} method @param {object} [body] @returns {Promise<any>} */
export const send = (url, method, body) => getJSON(url, {
  method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
});

/** Block or unblock a player; the answer's `blocked` is the state now.
 * @param {string} player @param {boolean} on @returns {Promise<boolean>} */
export async function setBlocked(player, on) {
  const answer = await send(`/api/players/${encodeURIComponent(player)}/block`, on ? "POST" : "DELETE");
  return Boolean(answer.blocked);
}

/** The report form, open on `c.player`; `c.done` is told the confirmation
    once the server took the report (and the block, when asked).
    For example `openComplaint({player: "p1", name: "bob", game: "g7", done: say})`.
    @param {Complaint} c */
export function openComplaint(c) {
  about = c;
  const form = /** @type {HTMLFormElement} */ ($("#complaint-form"));
  form.reset();
  $("#complaint-title").textContent = t("mod.report_title", { name: c.name || t("player.anonymous") });
  $("#complaint-game").textContent = c.game ? t("mod.about_game", { game: c.game }) : "";
  $("#complaint-block-label").hidden = !c.game;
  $("#complaint-error").textContent = "";
  /** @type {HTMLButtonElement} */ ($("#complaint-send")).disabled = false;
  /** @type {HTMLDialogElement} */ ($("#complaint")).showModal();
}

/** Send the form: the report, then the block when asked; a refusal stays in the form. @param {SubmitEvent} ev */
async function submit(ev) {
  ev.preventDefault();
  const c = about;
  if (!c) return;
  const form = /** @type {HTMLFormElement} */ ($("#complaint-form"));
  const data = new FormData(form);
  /** @type {{reason: string, text?: string, game?: string}} */
  const body = { reason: String(data.get("reason") || "") };
  const text = String(data.get("text") || "").trim();
  if (text) body.text = text;
  if (c.game) body.game = c.game;
  const go = /** @type {HTMLButtonElement} */ ($("#complaint-send"));
  go.disabled = true;
  /** @type {ReportAnswer} */
  let answer;
  try {
    answer = await send(`/api/players/${encodeURIComponent(c.player)}/report`, "POST", body);
    if (c.game && /** @type {HTMLInputElement} */ ($("#complaint-block")).checked) await setBlocked(c.player, true);
  } catch (e) {
    $("#complaint-error").textContent = refusal(e);
    go.disabled = false;
    return;
  }
  const blocked = Boolean(c.game && /** @type {HTMLInputElement} */ ($("#complaint-block")).checked);
  about = null;
  /** @type {HTMLDialogElement} */ ($("#complaint")).close();
  c.done(t(answer.merged ? "mod.report_merged" : "mod.report_sent") + (blocked ? ` ${t("mod.blocked_now")}` : ""));
}

$("#complaint-form").addEventListener("submit", submit);
$("#complaint-cancel").addEventListener("click", () => {
  about = null;
  /** @type {HTMLDialogElement} */ ($("#complaint")).close();
});
