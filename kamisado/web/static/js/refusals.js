/**
 * The server's refusals in the page's language.  Every refusal the server
 * sends carries a stable `code` beside its English text: an HTTP error
 * answer `{"error", "code", "args"}`, a websocket `{"type": "error", "code",
 * "message"}` frame.  The page says `refusal.<code>` with the answer's
 * `args` (numbers, names, a parse error's `detail`, which stays English);
 * a code it has no words for shows the server's text, except that any 429
 * and 503 get one line each.
 */
import { has, t } from "./i18n.js";

/**
 * @typedef {{code?: string|null, args?: Record<string, string|number>|null, status?: number, message?: string}} Refused
 */

/**
 * A refusal as the page says it.
 * @param {Refused|Error|unknown} e an error thrown by `getJSON`, or a websocket error frame
 * @returns {string}
 * @example
 * refusal({ code: "name_taken", args: { account: "cat" }, status: 409, message: "the account name cat is taken" })
 * // → "Der Kontoname cat ist vergeben." (in German)
 * refusal({ status: 429, message: "too many records uploaded" })  // → the rate-limit line
 * refusal({ code: "new_code", message: "as the server says it" })  // → "as the server says it"
 */
export function refusal(e) {
  const r = asRefused(e);
  if (r.code && has(`refusal.${r.code}`)) return t(`refusal.${r.code}`, r.args || {});
  if (r.status === 429) return t("refusal.rate_limited");
  if (r.status === 503) return t("refusal.unavailable");
  return String(r.message || "");
}

/**
 * Whether the page has its own words for a refusal (else `refusal` is the
 * server's English text, which a caller may put in a frame of its own).
 * @param {Refused|Error|unknown} e
 * @returns {boolean}
 */
export function knows(e) {
  const r = asRefused(e);
  return Boolean(r.code && has(`refusal.${r.code}`)) || r.status === 429 || r.status === 503;
}

/** @param {unknown} e @returns {Refused} */
const asRefused = (e) => /** @type {Refused} */ (e && typeof e === "object" ? e : { message: String(e) });
