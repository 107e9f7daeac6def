/* A player's page, #/player/<id>: the name, whether it is an account, the
   rating for each speed (a provisional one marked "?") with its history as
   the server's chart, and the player's games as the games list shows them. */
import { $, chartQuery, getJSON, h } from "../dom.js";
import { t } from "../i18n.js";
import { ratingText } from "../ratings.js";
import { currentMe } from "./account.js";
import { card } from "./games.js";

/** @typedef {{rating: number, rd: number, games: number, provisional: boolean}} Rating */
/** @typedef {{id: string, name: string, registered: boolean, ratings: Record<string, Rating>,
 *   history: any[], games: any[]}} PlayerPage */

export const SPEEDS = ["realtime", "correspondence"];


let showing = "";

/** Fetch and draw a player's page. @param {string} id */
export async function showPlayer(id) {
  showing = id;
  $("#player-name").textContent = "…";
  $("#player-kind").textContent = "";
  $("#player-error").textContent = "";
  $("#player-body").hidden = true;
  /** @type {PlayerPage} */
  let p;
  try { p = await getJSON(`/api/players/${encodeURIComponent(id)}`); } catch (e) {
    if (showing !== id) return;
    $("#player-name").textContent = t("player.title");
    $("#player-error").textContent = t("player.not_found");
    return;
  }
  if (showing !== id) return;
  const me = currentMe();
  const mine = Boolean(me && me.id === p.id);
  $("#player-name").textContent = p.name || t("player.anonymous");
  $("#player-kind").textContent = t(p.registered ? "player.registered" : "player.unregistered")
    + (mine ? ` ${t("player.you")}` : "");
  $("#player-body").hidden = false;
  const ratings = p.ratings || {};
  $("#player-ratings").replaceChildren(...SPEEDS.map((speed) => {
    const r = ratings[speed];
    // a speed never played in a rated game has no rating to show
    const rated = Boolean(r && r.games > 0);
    const li = h("li", { class: "rating-card", "data-speed": speed },
      h("span", { class: "speed" }, t(`speed.${speed}`)),
      rated && r ? h("strong", { class: "value" }, ratingText(r)) : h("strong", { class: "value none" }, t("player.not_rated")));
    if (rated && r) {
      li.append(h("span", { class: "games-count" }, t("player.games_n", { n: r.games })));
      if (r.provisional) li.append(h("span", { class: "hint" }, t("player.provisional")));
    }
    return li;
  }));
  const charts = SPEEDS.filter((s) => ratings[s] && ratings[s].games > 0).map((speed) => {
    const img = h("img", { alt: t("player.chart_alt", { name: p.name || t("player.anonymous"), speed: t(`speed.${speed}`) }) });
    return h("figure", { class: "rating-chart", "data-speed": speed }, img,
      h("figcaption", {}, t("player.chart", { speed: t(`speed.${speed}`) })));
  });
  $("#player-charts").replaceChildren(...charts);
  // drawn by the server at the width shown, in the page's language
  for (const fig of charts) {
    const img = /** @type {HTMLImageElement} */ (fig.querySelector("img"));
    img.src = `/api/players/${encodeURIComponent(p.id)}/rating.svg?speed=${fig.dataset.speed}&${chartQuery(img)}`;
  }
  const games = p.games || [];
  $("#player-games-empty").hidden = games.length > 0;
  $("#player-games").replaceChildren(...games.map((g) => card(g, mine)));
}
