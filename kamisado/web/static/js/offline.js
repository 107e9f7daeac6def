/* Offline: the service worker (/sw.js: the page and its files, the lessons
   kept for use without a network) and the banner that says when the page
   is offline and what needs the network.  `navigator.onLine` and the
   `online`/`offline` events tell; the banner is a polite live region. */
import { $ } from "./dom.js";
import { t } from "./i18n.js";

/** @type {Set<(online: boolean) => void>} */
const listeners = new Set();

/** Whether the browser believes it has a network. */
export const isOnline = () => navigator.onLine;

/** Call `fn(online)` whenever the network comes or goes. @param {(online: boolean) => void} fn */
export function whenNetworkChanges(fn) { listeners.add(fn); }

let wasOffline = false;

/** Show or hide the banner for the network as it is now (its return is said to a screen reader). */
function showBanner() {
  const on = navigator.onLine;
  $("#offline-text").hidden = on;
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
  showBanner();
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  }
}
