/* Offline: the service worker (/sw.js: the page and its files, the lessons
   kept for use without a network) and the banner that says when the page
   is offline: one line, its "More" opening what needs the network over the
   page (never pushing the board down), and a × that hides it until the
   network has come back (kept in this browser: a reload offline keeps it
   hidden).  `navigator.onLine` and the `online`/`offline` events tell; the
   banner is a polite live region. */
import { $ } from "./dom.js";
import { t } from "./i18n.js";

/** @type {Set<(online: boolean) => void>} */
const listeners = new Set();

/** Whether the browser believes it has a network. */
export const isOnline = () => navigator.onLine;

/** Call `fn(online)` whenever the network comes or goes. @param {(online: boolean) => void} fn */
export function whenNetworkChanges(fn) { listeners.add(fn); }

let wasOffline = false;
const HIDDEN = "kamisado.offlineHidden";

/** Whether the player hid the banner while this time offline. */
function dismissed() {
  try { return localStorage.getItem(HIDDEN) === "1"; } catch (e) { return false; }
}

/** Hide the banner (or, `false`, let it show again). @param {boolean} hide */
function setDismissed(hide) {
  try {
    if (hide) localStorage.setItem(HIDDEN, "1"); else localStorage.removeItem(HIDDEN);
  } catch (e) { /* storage full or off: hidden for this page only */ }
}

/** Open or close the explanation under the line. @param {boolean} open */
function showMore(open) {
  const more = $("#offline-more");
  $("#offline-needs").hidden = !open;
  more.setAttribute("aria-expanded", String(open));
}

/** Show or hide the banner for the network as it is now (its return is said to a screen reader). */
function showBanner() {
  const on = navigator.onLine;
  if (on) setDismissed(false);  // the next time offline, it is said again
  $("#offline-text").hidden = on || dismissed();
  showMore(false);
  $("#offline-back").textContent = on && wasOffline ? t("offline.back") : "";
  wasOffline = !on;
  measure();
  document.body.classList.toggle("is-offline", !on);
  for (const fn of listeners) fn(on);
}

/** The banner's height, taken from the board's room (style.css's --banner). */
function measure() {
  const height = navigator.onLine ? 0 : $("#offline-banner").offsetHeight;
  document.documentElement.style.setProperty("--banner", `${height}px`);
}

/** Start: the banner follows the network, and the service worker is registered
 * (where the browser has them; a refusal, as in a private window, leaves the page online-only). */
export function startOffline() {
  window.addEventListener("online", showBanner);
  window.addEventListener("offline", showBanner);
  window.addEventListener("resize", measure);  // its lines change with the width
  $("#offline-more").addEventListener("click", () => showMore($("#offline-needs").hidden));
  $("#offline-hide").addEventListener("click", () => {
    setDismissed(true);
    $("#offline-text").hidden = true;
    measure();
  });
  showBanner();
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  }
}
