/* The leaderboard, #/leaderboard?speed=realtime: the best 50 active players
   at a speed (a rated game there in the last 30 days), then, apart and
   marked "?", the active players whose rating is still provisional (lichess
   leaves them out; a new site would show nobody), from GET /api/leaderboard.
   An empty board says why.  #/bots: the bots online (GET /api/bots), each
   with its ratings and a Challenge button to its page's challenge form. */
import { $, $$, getJSON, h } from "../dom.js";
import { t } from "../i18n.js";
import { botBadge, ratingNode } from "../ratings.js";

/** @typedef {{rank: number, player: string, name: string, rating: number, rd: number, games: number, bot?: boolean}} Leader */

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
  /** @type {{players: Leader[], provisional?: Leader[]}} */
  let board;
  try { board = await getJSON(`/api/leaderboard?speed=${speed}`); } catch (e) {
    if (showing !== speed) return;
    $("#lb-error").textContent = t("leaderboard.failed");
    return;
  }
  if (showing !== speed) return;
  const players = board.players || [];
  const unsure = board.provisional || [];
  // empty: nobody active at all, or only provisional ratings so far
  $("#lb-empty").hidden = players.length > 0;
  $("#lb-empty").textContent = t(unsure.length ? "leaderboard.empty_provisional" : "leaderboard.empty");
  $("#lb-list").replaceChildren(...players.map((p) => row(p, false)));
  $("#lb-provisional-title").hidden = unsure.length === 0;
  $("#lb-provisional").replaceChildren(...unsure.map((p) => row(p, true)));
}

/** @typedef {{id: string, name: string, ratings: Record<string, number>}} OnlineBot */

/** Fetch and draw the bots online. */
export async function showBots() {
  $("#bots-error").textContent = "";
  /** @type {OnlineBot[]} */
  let bots;
  try { bots = await getJSON("/api/bots"); } catch (e) {
    $("#bots-error").textContent = t("leaderboard.failed");
    return;
  }
  $("#bots-empty").hidden = bots.length > 0;
  $("#bots-list").replaceChildren(...bots.map((b) => {
    const page = `#/player/${encodeURIComponent(b.id)}`;
    const rated = Object.entries(b.ratings).map(([speed, rating]) => `${t(`speed.${speed}`)} ${rating}`).join(" · ");
    return h("li", { "data-player": b.id },
      h("a", { href: page }, b.name), " ", botBadge(), " ",
      h("span", { class: "hint" }, rated), " ",
      h("a", { href: page, class: "button" }, t("bots.challenge")));
  }));
}

/** One player's line: rank, name, rating ("1620?" when provisional), games.
    @param {Leader} p @param {boolean} provisional */
function row(p, provisional) {
  return h("li", { "data-player": p.player, class: provisional ? "provisional" : "" },
    h("span", { class: "rank" }, `${p.rank}.`), " ",
    h("a", { href: `#/player/${encodeURIComponent(p.player)}` }, p.name || t("player.anonymous")), " ",
    ...(p.bot ? [botBadge(), " "] : []),
    h("strong", {}, ratingNode({ rating: p.rating, provisional })), " ",
    h("span", { class: "hint" }, t("player.games_n", { n: p.games })));
}
