/* A player's page, #/player/<id>: the name, whether it is an account,
   whether it is online now, a Challenge button (a direct challenge the
   player sees live wherever they are on the site: notices.js), the rating
   for each speed (a provisional one marked "?") with its rated games won and
   lost and its history as the server's chart, the recent games (the
   opponent and their rating, the clock, the result), and the player's games
   as the games list shows them; for a signed-in viewer on someone else's
   page, Block / Unblock and Report (views/complaint.js). */
import { $, chartQuery, getJSON, h } from "../dom.js";
import { t } from "../i18n.js";
import { refusal } from "../refusals.js";
import { challengePlayer } from "../notices.js";
import { botBadge, ratingNode, ratingText } from "../ratings.js";
import { currentMe } from "./account.js";
import { openComplaint, setBlocked } from "./complaint.js";
import { card } from "./games.js";
import { controlText } from "./lobby.js";

/** @typedef {{rating: number, rd: number, games: number, provisional: boolean}} Rating */
/** @typedef {{id: string, at: number, opponent: {player: string, name: string,
 *   rating: {rating: number, provisional: boolean}|null}, you: string,
 *   clock: import("../types.js").Control|null, speed: string|null, rated: boolean,
 *   result: string}} Recent */
/** @typedef {{id: string, name: string, registered: boolean, bot?: boolean, ratings: Record<string, Rating>,
 *   history: any[], games: any[], online?: boolean, results?: Record<string, {won: number, lost: number}>,
 *   recent?: Recent[], blocked?: boolean}} PlayerPage */

export const SPEEDS = ["realtime", "correspondence"];


let showing = "";
/** The page shown (for the Challenge button). @type {PlayerPage|null} */
let shown = null;

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
  shown = p;
  const me = currentMe();
  const mine = Boolean(me && me.id === p.id);
  const online = $("#player-online");
  online.textContent = t(p.online ? "player.online" : "player.offline");
  online.className = `player-presence ${p.online ? "on" : "off"}`;
  const form = $("#player-challenge");
  form.hidden = mine;
  $("#pc-said").textContent = p.online ? "" : t("player.challenge_offline");
  /** @type {HTMLButtonElement} */ ($("#pc-go")).disabled = !p.online;
  const rated = /** @type {HTMLInputElement} */ ($("#pc-rated"));
  rated.disabled = !(me && me.account && p.registered);
  rated.checked = !rated.disabled;  // rated by default between two accounts (as lichess)
  $("#pc-rated-label").title = rated.disabled ? t("player.rated_accounts") : "";
  $("#player-mod").hidden = !(me && me.signed_in) || mine;
  $("#pm-said").textContent = "";
  drawBlock(Boolean(p.blocked));
  $("#player-name").replaceChildren(p.name || t("player.anonymous"), ...(p.bot ? [" ", botBadge()] : []));
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
      const res = (p.results || {})[speed];
      if (res) li.append(h("span", { class: "results" }, t("player.won_lost", { won: res.won, lost: res.lost })));
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
  showPuzzles(p.id);
  const recent = p.recent || [];
  $("#player-recent-empty").hidden = recent.length > 0;
  $("#player-recent").replaceChildren(...recent.map(recentItem));
  const games = p.games || [];
  $("#player-games-empty").hidden = games.length > 0;
  $("#player-games").replaceChildren(...games.map((g) => card(g, mine)));
}

/** The player's puzzles: how many solved, the puzzle rating. @param {string} id */
async function showPuzzles(id) {
  const line = $("#player-puzzles");
  line.textContent = "";
  /** @type {{solved: number, rating: {rating: number, provisional: boolean}|null}} */
  let pz;
  try { pz = await getJSON(`/api/players/${encodeURIComponent(id)}/puzzles`); } catch (e) { return; }
  if (showing !== id) return;
  const rating = pz.rating ? `${pz.rating.rating}${pz.rating.provisional ? "?" : ""}` : t("puzzles.no_rating");
  line.textContent = t("player.puzzles_line", { solved: pz.solved, rating });
}

/** One recent game: the result, the opponent and their rating, the clock. @param {Recent} g */
function recentItem(g) {
  const name = g.opponent.name || t("player.anonymous");
  const who = h("a", { href: `#/player/${encodeURIComponent(g.opponent.player)}` }, name);
  const line = h("li", { class: `recent ${g.result}`, "data-game": g.id },
    h("span", { class: "outcome" }, t(`player.result_${g.result}`)), " ",
    t("player.versus"), " ", who);
  if (g.opponent.rating) line.append(" ", ratingNode(g.opponent.rating));
  line.append(" · ", h("span", { class: "clock-control" }, controlText(g.clock)),
    " · ", t(g.rated ? "lobby.rated" : "lobby.casual"), " · ",
    h("a", { href: `#/review/${encodeURIComponent(g.id)}` }, t("player.review")));
  return line;
}

/** Send the player shown a direct challenge from the form. @param {SubmitEvent} ev */
function challenge(ev) {
  ev.preventDefault();
  const p = shown;
  if (!p) return;
  const value = /** @type {HTMLSelectElement} */ ($("#pc-clock")).value;
  const clock = value.startsWith("d") ? { days: Number(value.slice(1)) }
    : { initial: Number(value.split("+")[0]), increment: Number(value.split("+")[1]) };
  const rated = /** @type {HTMLInputElement} */ ($("#pc-rated")).checked;
  const go = /** @type {HTMLButtonElement} */ ($("#pc-go"));
  const said = $("#pc-said");
  const target = Number(/** @type {HTMLSelectElement} */ ($("#pc-target")).value);
  const color = /** @type {HTMLSelectElement} */ ($("#pc-colour")).value;
  const sent = challengePlayer({ to: p.id, target, clock, rated, color }, (msg) => {
    if (msg.type === "challenging") said.textContent = t("player.challenge_sent", { name: p.name || t("player.anonymous") });
    else if (msg.type === "declined") { said.textContent = t("player.challenge_declined"); go.disabled = false; }
    else if (msg.type === "error") {
      said.textContent = msg.code === "offline" ? t("player.challenge_offline")
        : refusal(msg);
      go.disabled = false;
    }
  });
  if (!sent) said.textContent = t("lobby.not_sent");
  else go.disabled = true;
}

/** The Block button as the server says the viewer blocks the player. @param {boolean} blocked */
function drawBlock(blocked) {
  const b = $("#pm-block");
  b.textContent = t(blocked ? "mod.unblock" : "mod.block");
  b.setAttribute("aria-pressed", blocked ? "true" : "false");
}

/** Block the player shown, or unblock: the button then shows what the server answered. */
async function toggleBlock() {
  const p = shown;
  if (!p) return;
  const b = /** @type {HTMLButtonElement} */ ($("#pm-block"));
  const want = b.getAttribute("aria-pressed") !== "true";
  b.disabled = true;
  try {
    const blocked = await setBlocked(p.id, want);
    if (shown !== p) return;
    drawBlock(blocked);
    $("#pm-said").textContent = t(blocked ? "mod.blocked_said" : "mod.unblocked_said", { name: p.name || t("player.anonymous") });
  } catch (e) {
    if (shown === p) $("#pm-said").textContent = refusal(e);
  } finally { b.disabled = false; }
}

$("#player-challenge").addEventListener("submit", challenge);
$("#pm-block").addEventListener("click", toggleBlock);
$("#pm-report").addEventListener("click", () => {
  const p = shown;
  if (p) openComplaint({ player: p.id, name: p.name, done: (said) => { if (shown === p) $("#pm-said").textContent = said; } });
});
