/* A rating as every page shows it: rounded, with "?" while it is provisional
   (its deviation still large: few rated games), as lichess marks them. */
import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * "1532", or "1500?" while provisional.
 * @param {{rating: number, provisional?: boolean}} r
 * @returns {string}
 */
export const ratingText = (r) => `${Math.round(r.rating)}${r.provisional ? "?" : ""}`;

/**
 * A rating beside a name: a span of class "rating", whose title says what
 * the "?" means when it is there.
 * @param {{rating: number, provisional?: boolean}} r
 * @returns {HTMLElement}
 */
export function ratingNode(r) {
  return h("span", { class: "rating", title: r.provisional ? t("rating.provisional") : t("rating.title") }, ratingText(r));
}

/**
 * The small "BOT" badge beside a bot account's name (docs/web-bots.md).
 * @returns {HTMLElement}
 */
export function botBadge() {
  return h("span", { class: "bot-badge", title: t("bot.title") }, t("bot.badge"));
}
