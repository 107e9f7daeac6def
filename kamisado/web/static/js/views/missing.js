/* Not found: a game, a lesson, a puzzle or a page that does not exist.
   The view before it is cleared (hidden, not left half-drawn under the
   words), the page says what was not found, and offers a way back. */
import { $, $$ } from "../dom.js";
import { t } from "../i18n.js";

/**
 * Show that something does not exist, in place of the view that asked for it.
 * `what` picks the words (`missing.<what>`): "game", "local", "review",
 * "lesson", "puzzle" or "page"; `name` is the id or path that was asked for.
 * @param {"game"|"local"|"review"|"lesson"|"puzzle"|"page"} what
 * @param {string} name
 * @example
 * showMissing("game", "doesnotexist")  // "There is no game doesnotexist. …"
 */
export function showMissing(what, name) {
  $$(".view").forEach((v) => v.classList.toggle("active", v.id === "view-missing"));
  $$("[data-nav]").forEach((a) => a.removeAttribute("aria-current"));
  const text = $("#missing-text");
  text.dataset.what = what;
  text.textContent = t(`missing.${what}`, { id: name, path: name });
}
