/* The player: this browser's identity (a signed, HttpOnly cookie the page
   cannot read, so it asks /api/me), a display name, and an optional account
   to sign up for, sign in to and sign out of. */
import { $, getJSON } from "../dom.js";
import { t } from "../i18n.js";

/** @typedef {{id: string, name: string, account: string|null, signed_in: boolean}} Me */

/** @type {Me|null} */
let me = null;
/** @type {(() => void)|null} called after the browser became another player */
let onSwitch = null;

/** Who this browser is (made on the first visit). */
export async function loadMe() {
  try { me = await getJSON("/api/me"); } catch (e) { me = null; }
  renderMeLink();
  return me;
}

/** Who this browser is, as last heard (null before the first answer). */
export const currentMe = () => me;

/** @param {() => void} fn what to redo once the browser is another player (rejoin a game) */
export function whenPlayerChanges(fn) { onSwitch = fn; }

function renderMeLink() {
  $("#me-name").textContent = me && me.signed_in ? (me.name || me.account || "") : t("account.title");
}

/** Draw the account view. */
export function showAccount() {
  renderMeLink();
  const signedIn = Boolean(me && me.signed_in);
  $("#account-anonymous").hidden = signedIn;
  $("#account-signed-in").hidden = !signedIn;
  $("#account-who").textContent = !me ? "" : signedIn
    ? t("account.signed_in", { account: me.account || "" })
    : t("account.anonymous", { name: me.name || t("account.guest") });
  const page = $("#my-player-page");
  page.hidden = !me;
  if (me) page.setAttribute("href", `#/player/${encodeURIComponent(me.id)}`);
  const name = /** @type {HTMLInputElement} */ ($('#name-form input[name="name"]'));
  name.value = me ? me.name : "";
  for (const f of ["#name-form", "#signin-form", "#signup-form"]) $(`${f} .error`).textContent = "";
}

/**
 * Send a form's fields as JSON to ``url``; the answer is the player now.
 * @param {string} form @param {string} url @param {boolean} switches whether the browser may become another player
 */
function wire(form, url, switches) {
  const el = /** @type {HTMLFormElement} */ ($(form));
  el.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = Object.fromEntries(new FormData(el).entries());
    const before = me ? me.id : null;
    try {
      me = await getJSON(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    } catch (e) {
      $(`${form} .error`).textContent = /** @type {Error} */ (e).message;
      return;
    }
    el.reset();
    showAccount();
    if (form === "#name-form") $(`${form} .error`).textContent = t("account.saved");
    if (switches && me && me.id !== before && onSwitch) onSwitch();
  });
}
wire("#name-form", "/api/me", false);
wire("#signin-form", "/api/signin", true);
wire("#signup-form", "/api/signup", false);
$("#signout").addEventListener("click", async () => {
  try { me = await getJSON("/api/signout", { method: "POST" }); } catch (e) { return; }
  showAccount();
  if (onSwitch) onSwitch();
});
