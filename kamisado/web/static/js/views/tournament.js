/* A tournament's page, #/tournament/<id> (docs/web-tournaments.md): its
   name and facts, the time until its start or its end (or the Swiss round),
   Join and Pause / Withdraw / Come back, the player's own game, the
   standings (the streak's flame in an Arena, the podium once finished) and
   the games running, each watchable.  The standings are read again every
   few seconds while the page is open; a new game of the player's comes
   as "started" on the notices' websocket and opens by itself (notices.js). */
import { $, getJSON, h, svg } from "../dom.js";
import { t } from "../i18n.js";
import { refusal } from "../refusals.js";
import { currentMe } from "./account.js";
import { controlText } from "./lobby.js";

/** @typedef {{player: string, name: string}} Who */
/** @typedef {{rank: number, player: string, name: string, rating: number, score: number, games: number,
 *   streak: number, fire: boolean, byes: number, active: boolean, performance: number|null}} Standing */
/** @typedef {{id: string, round: number, black: Who, gold: Who, started: number, running: boolean,
 *   winner: string|null, black_score: number|null, gold_score: number|null}} TGame */
/** @typedef {{id: string, kind: string, name: string, status: string, clock: any, target: number,
 *   minutes: number|null, rounds: number|null, round: number, rated: boolean, bots: boolean, starts: number,
 *   ends: number|null, players: number, standings: Standing[], games: TGame[], podium?: string[]}} Tournament */

/** @typedef {{id: string, kind: string, name: string, status: string, clock: any, target: number,
 *   rated: boolean, starts: number, ends: number|null, players: number}} Listed */

/** How often the page reads the event again while it is open (ms). */
const REFRESH_MS = 3000;
let showing = "";
/** @type {Tournament|null} */
let shown = null;
/** @type {number|undefined} */
let timer;
/** @type {number|undefined} */
let ticker;

/** Open a tournament's page. @param {string} id */
export async function showTournament(id) {
  leaveTournament();
  showing = id;
  shown = null;
  $("#tn-name").textContent = "…";
  $("#tn-error").textContent = "";
  $("#tn-body").hidden = true;
  await refresh();
  timer = window.setInterval(refresh, REFRESH_MS);
  ticker = window.setInterval(drawWhen, 1000);
}

/** Leave the page: it stops reading the event. */
export function leaveTournament() {
  showing = "";
  window.clearInterval(timer);
  window.clearInterval(ticker);
}

async function refresh() {
  const id = showing;
  if (!id) return;
  /** @type {Tournament} */
  let ev;
  try { ev = await getJSON(`/api/tournaments/${encodeURIComponent(id)}`); } catch (e) {
    if (showing !== id) return;
    if (!shown) $("#tn-name").textContent = t("tournament.title");
    $("#tn-error").textContent = /** @type {any} */ (e).status === 404 ? t("tournament.not_found") : refusal(e);
    return;
  }
  if (showing !== id) return;
  $("#tn-error").textContent = "";
  shown = ev;
  draw(ev);
}

/** "4:05", "1:02:03". @param {number} ms */
function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

/** The line saying where the event stands in time. */
function drawWhen() {
  const ev = shown;
  if (!ev) return;
  const now = Date.now();
  let text;
  if (ev.status === "finished") text = t("tournament.finished");
  else if (ev.status === "created" || now < ev.starts) text = t("tournament.starts_in", { time: duration(ev.starts - now) });
  else if (ev.kind === "swiss") text = t("tournament.round", { n: ev.round, of: ev.rounds || 0 });
  else if (ev.ends && now < ev.ends) text = t("tournament.ends_in", { time: duration(ev.ends - now) });
  else text = t("tournament.finishing");
  $("#tn-when").textContent = text;
}

/** The whole page. @param {Tournament} ev */
function draw(ev) {
  $("#tn-name").textContent = ev.name;
  const length = ev.kind === "arena" ? t("tournament.minutes", { n: ev.minutes || 0 })
    : t("tournament.rounds", { n: ev.rounds || 0 });
  $("#tn-facts").textContent = [t(`tournament.${ev.kind}`), controlText(ev.clock), t(`match.${ev.target}`), length,
    t(ev.rated ? "lobby.rated" : "lobby.casual")].join(" · ");
  drawWhen();
  const me = currentMe();
  const mine = ev.standings.find((s) => me && s.player === me.id);
  const join = /** @type {HTMLButtonElement} */ ($("#tn-join"));
  const leave = /** @type {HTMLButtonElement} */ ($("#tn-leave"));
  const over = ev.status === "finished";
  join.hidden = over || Boolean(mine && mine.active);
  join.textContent = t(mine ? "tournament.come_back" : "tournament.join");
  leave.hidden = over || !(mine && mine.active);
  leave.textContent = t(ev.kind === "arena" ? "tournament.pause" : "tournament.withdraw");
  const game = ev.games.find((g) => g.running && me && (g.black.player === me.id || g.gold.player === me.id));
  const own = $("#tn-mine");
  own.hidden = !game;
  own.replaceChildren(...(game ? [h("a", { href: `#/game/${encodeURIComponent(game.id)}`, class: "button primary" },
    t("tournament.your_game"))] : []));
  const podium = $("#tn-podium");
  const top = over ? ev.standings.slice(0, 3) : [];
  $("#tn-podium-box").hidden = top.length === 0;
  podium.replaceChildren(...top.map((s, i) => h("li", { class: `place place-${i + 1}` },
    h("span", { class: "medal", "aria-hidden": "true" }, `${i + 1}`), " ", name(s))));
  $("#tn-nobody").hidden = ev.standings.length > 0;
  $("#tn-standings").replaceChildren(...ev.standings.map((s) => h("tr",
    { "data-player": s.player, class: (me && s.player === me.id ? "me " : "") + (s.active ? "" : "paused") },
    h("td", { class: "rank" }, `${s.rank}`),
    h("td", {}, name(s), s.fire ? flame() : "",
      s.active ? "" : h("span", { class: "hint" }, ` (${t("tournament.paused")})`)),
    h("td", { class: "num score" }, `${s.score}`),
    h("td", { class: "num" }, `${s.games}`),
    h("td", { class: "num" }, s.performance == null ? "–" : `${s.performance}`))));
  const running = ev.games.filter((g) => g.running);
  $("#tn-games-title").hidden = over;  // a finished event has no games running to show
  $("#tn-no-games").hidden = over || running.length > 0;
  $("#tn-games").replaceChildren(...running.map((g) => h("li", {},
    h("a", { href: `#/game/${encodeURIComponent(g.id)}` },
      `${g.black.name || t("player.anonymous")} – ${g.gold.name || t("player.anonymous")}`))));
  $("#tn-body").hidden = false;
}

/** The streak's flame (drawn: no emoji font needed), its meaning as its title. */
function flame() {
  const box = h("span", { class: "fire", title: t("tournament.streak"), role: "img", "aria-label": t("tournament.streak") });
  const pic = svg("svg", { viewBox: "0 0 16 20", width: 14, height: 18, "aria-hidden": "true" }, box);
  svg("path", { d: "M8 0C9 5 14 7 14 13a6 6 0 0 1-12 0c0-3 2-5 3-6 0 2 1 4 3 4-1-3-1-7 0-11z" }, pic);
  return box;
}

/** A player's name, linked to their page. @param {{player: string, name: string}} s */
function name(s) {
  return h("a", { href: `#/player/${encodeURIComponent(s.player)}` }, s.name || t("player.anonymous"));
}

/** Join (or come back), or pause / withdraw. @param {"join"|"withdraw"} what */
async function act(what) {
  const id = showing;
  if (!id) return;
  $("#tn-error").textContent = "";
  try {
    await getJSON(`/api/tournaments/${encodeURIComponent(id)}/${what}`, { method: "POST",
      headers: { "Content-Type": "application/json" }, body: "{}" });
  } catch (e) {
    $("#tn-error").textContent = refusal(e);
    return;
  }
  await refresh();
}

$("#tn-join").addEventListener("click", () => act("join"));
$("#tn-leave").addEventListener("click", () => act("withdraw"));

/** One listed event: its name linked, its facts, when it starts or that it runs. @param {Listed} ev */
function listed(ev) {
  const when = ev.status === "started" ? t("tournament.running_now")
    : ev.status === "finished" ? t("tournament.finished")
      : t("tournament.starts_in", { time: duration(ev.starts - Date.now()) });
  return h("li", { "data-tournament": ev.id },
    h("a", { href: `#/tournament/${encodeURIComponent(ev.id)}` }, ev.name), " ",
    h("span", { class: "hint" }, [t(`tournament.${ev.kind}`), controlText(ev.clock), when,
      t("tournament.players_n", { n: ev.players || 0 })].join(" · ")));
}

/** The lobby's list of the events running and starting soon, and the home
    page's line for the next one (GET /api/tournaments; quiet when it fails). */
export async function showTournamentList() {
  /** @type {Listed[]} */
  let all;
  if (!navigator.onLine) return;  // offline: the service worker would answer 503, a console error; the line stays hidden
  try { all = await getJSON("/api/tournaments"); } catch (e) { return; }
  const live = all.filter((ev) => ev.status !== "finished");
  $("#lobby-tournaments").replaceChildren(...(live.length ? live.map(listed)
    : [h("li", { class: "hint" }, t("tournament.none"))]));
  const next = live[0];
  const line = $("#home-tournament");
  line.hidden = !next;
  line.replaceChildren(...(next ? [t("tournament.next"), " ", ...Array.from(listed(next).childNodes)] : []));
}

/** The events a player took part in, on their page. @param {string} player */
export async function showPlayerTournaments(player) {
  /** @type {{id: string, name: string, kind: string, status: string, starts: number, score: number, games: number}[]} */
  let got;
  try { got = await getJSON(`/api/tournaments?player=${encodeURIComponent(player)}`); } catch (e) { got = []; }
  $("#player-tournaments").replaceChildren(...(got.length ? got.map((ev) => h("li", {},
    h("a", { href: `#/tournament/${encodeURIComponent(ev.id)}` }, ev.name), " ",
    h("span", { class: "hint" }, t("tournament.took_part", { score: ev.score, games: ev.games }))))
    : [h("li", { class: "hint" }, t("tournament.none_played"))]));
}
