/* The player: this browser's identity (a signed, HttpOnly cookie the page
   cannot read, so it asks /api/me), a display name, and an optional account
   to sign up for, sign in to and sign out of (here or everywhere), its
   password to change, the browsers signed in to it (/api/sessions) and its
   personal API tokens (/api/tokens: listed, made and shown once, revoked). */
import { $, getJSON, h } from "../dom.js";
import { t } from "../i18n.js";
import { refusal } from "../refusals.js";

/** @typedef {{id: string, name: string, account: string|null, signed_in: boolean,
 *   moderator?: boolean, muted_until?: number|null}} Me */
/** @typedef {{created: number, last_seen: number, user_agent: string, current: boolean}} SessionView */
/** @typedef {{id: string, name: string, scopes: string[], created: number, last_used: number|null}} TokenView */

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

/** Told after every change of this browser's player or its account (a
    sign-up, a sign-in, a sign-out, a new name or password): the notices'
    connection opens again as who the browser is now. @type {() => void} */
let onAccount = () => {};
/** @param {() => void} fn */
export function whenAccountChanges(fn) { onAccount = fn; }

/** A name's initials: the first letter of its first and last words (split
    at spaces, "_", "-", "." and lower-to-upper case), upper case: "alice_wonderland"
    is "AW", "alice" "A". @param {string} name */
export function initials(name) {
  const words = name.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2").split(/[\s_.\-]+/u).filter(Boolean);
  const first = (/** @type {string} */ w) => Array.from(w)[0] || "";
  if (!words.length) return "";
  const ends = words.length > 1 ? [words[0], words[words.length - 1]] : [words[0]];
  return ends.map(first).join("").toUpperCase();
}

/** The header's link to the account: the player's name (or "Account") whole,
    or, when the header has no room for it, never cut mid-word: the initials
    of a name, the icon alone for "Account".  The whole name stays the
    link's accessible name (kept in the page, hidden from sight) and its tooltip. */
export function renderMeLink() {
  const link = $("#me-link");
  const name = $("#me-name");
  const short = $("#me-initials");
  const signedIn = Boolean(me && me.signed_in);
  $("#mod-link").hidden = !(me && signedIn && me.moderator);
  const full = me && signedIn ? (me.name || me.account || "") : t("account.title");
  name.textContent = full;
  link.title = full;
  link.classList.remove("short");
  short.hidden = true;
  // measured at full length: cut (its ellipsis) means no room in this header
  if (name.scrollWidth <= name.clientWidth) return;
  link.classList.add("short");
  short.textContent = signedIn ? initials(full) : "";
  short.hidden = !signedIn;
}
addEventListener("resize", () => renderMeLink());
void document.fonts?.ready.then(() => renderMeLink());

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
  for (const f of ["#name-form", "#signin-form", "#signup-form", "#password-form", "#token-form"]) {
    $(`${f} .error`).textContent = "";
  }
  $("#token-new").hidden = true;
  /** @type {HTMLInputElement} */ ($("#token-value")).value = "";
  if (signedIn) { void showSessions(); void showTokens(); }
}

/** List the browsers signed in to the account (the user agent is text: never markup). */
async function showSessions() {
  const list = $("#session-list");
  /** @type {SessionView[]} */
  let found = [];
  try { found = await getJSON("/api/sessions"); } catch (e) { found = []; }
  list.replaceChildren(...found.map((s) => {
    const when = new Date(s.last_seen * 1000).toLocaleString(document.documentElement.lang || undefined);
    const text = `${s.user_agent || t("account.unknown_browser")}: ${t("account.last_seen", { when })}`;
    const li = h("li", s.current ? { class: "current" } : {}, text);
    if (s.current) li.append(" ", h("strong", {}, `(${t("account.this_browser")})`));
    return li;
  }));
}

/** @param {number} seconds a time since the epoch, in the page's language */
const when = (seconds) => new Date(seconds * 1000).toLocaleString(document.documentElement.lang || undefined);

/** List the account's tokens (never the tokens themselves), each with its revoke button. */
async function showTokens() {
  const list = $("#token-list");
  /** @type {TokenView[]} */
  let found = [];
  try { found = await getJSON("/api/tokens"); } catch (e) { found = []; }
  if (!found.length) { list.replaceChildren(h("li", {}, t("tokens.none"))); return; }
  list.replaceChildren(...found.map((tok) => {
    const used = tok.last_used === null ? t("tokens.never_used") : t("tokens.last_used", { when: when(tok.last_used) });
    const line = `${t("tokens.line", { name: tok.name, scopes: tok.scopes.join(", "), created: when(tok.created) })}; ${used}`;
    const revoke = h("button", { type: "button", class: "token-revoke" }, t("tokens.revoke"));
    revoke.addEventListener("click", async () => {
      try {
        await getJSON(`/api/tokens/${encodeURIComponent(tok.id)}`, { method: "DELETE" });
      } catch (e) { $("#token-form .error").textContent = refusal(e); }
      void showTokens();
    });
    return h("li", { "data-token": tok.id }, line, " ", revoke);
  }));
}

/** Make a token: shown once, with its copy button and the warning. */
$("#token-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = /** @type {HTMLFormElement} */ ($("#token-form"));
  const data = new FormData(form);
  const scopes = data.getAll("scope").map(String);
  const error = $("#token-form .error");
  if (!scopes.length) { error.textContent = t("tokens.pick_scope"); return; }
  /** @type {TokenView & {token: string}} */
  let made;
  try {
    made = await getJSON("/api/tokens", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: String(data.get("name") || ""), scopes }),
    });
  } catch (e) { error.textContent = refusal(e); return; }
  error.textContent = "";
  form.reset();
  /** @type {HTMLInputElement} */ ($("#token-value")).value = made.token;
  $("#token-new").hidden = false;
  void showTokens();
});

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
      $(`${form} .error`).textContent = refusal(e);
      return;
    }
    el.reset();
    showAccount();
    if (form === "#name-form") $(`${form} .error`).textContent = t("account.saved");
    if (form === "#password-form") $(`${form} .error`).textContent = t("account.password_changed");
    if (switches && me && me.id !== before && onSwitch) onSwitch();
    onAccount();
  });
}
wire("#name-form", "/api/me", false);
wire("#signin-form", "/api/signin", true);
wire("#signup-form", "/api/signup", false);
wire("#password-form", "/api/password", false);

/** Sign out this browser, or (`everywhere`) every browser signed in to the account. @param {boolean} everywhere */
async function signOut(everywhere) {
  try {
    me = await getJSON("/api/signout", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ everywhere }),
    });
  } catch (e) { return; }
  showAccount();
  if (onSwitch) onSwitch();
  onAccount();
}
$("#signout").addEventListener("click", () => signOut(false));
$("#signout-all").addEventListener("click", () => signOut(true));
