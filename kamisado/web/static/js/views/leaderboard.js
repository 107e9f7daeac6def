/* The leaderboard, #/leaderboard?speed=realtime: the best 50 active players
   at a speed (a rated game there in the last 30 days; provisional ratings
   are left out, as lichess does), from GET /api/leaderboard. */
import { $, $$, getJSON, h } from "../dom.js";
import { t } from "../i18n.js";

/** @typedef {{rank: number, player: string, name: string, rating: number, rd: number, games: number}} Leader */

let showing = "";

/** Fetch and draw the leaderboard of a speed. @param {string} speed */
export async function showLeaderboard(speed) {
  if (speed !== "correspondence") speed = "realtime";
  showing = speed;
  $$("#view-leaderboard [data-speed]").forEach((a) => {
    if (a.dataset.speed === speed) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  $("#lb-error").textContent = "";
  /** @type {{players: Leader[]}} */
  let board;
  try { board = await getJSON(`/api/leaderboard?speed=${speed}`); } catch (e) {
    if (showing !== speed) return;
    $("#lb-error").textContent = t("leaderboard.failed");
    return;
  }
  if (showing !== speed) return;
  const players = board.players || [];
  $("#lb-empty").hidden = players.length > 0;
  $("#lb-list").replaceChildren(...players.map((p) => h("li", { "data-player": p.player },
    h("span", { class: "rank" }, `${p.rank}.`), " ",
    h("a", { href: `#/player/${encodeURIComponent(p.player)}` }, p.name || t("player.anonymous")), " ",
    h("strong", { class: "rating" }, String(p.rating)), " ",
    h("span", { class: "hint" }, t("player.games_n", { n: p.games })))));
}
