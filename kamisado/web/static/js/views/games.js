/* My games: the player's games as cards (the game waiting for them first,
   then the other ongoing ones, then the finished ones, as the server orders
   them), with their ways back in and the invite link of an online game
   whose opponent has not come yet; then the games anyone may watch. */
import { $, getJSON, h } from "../dom.js";
import { sideName, t } from "../i18n.js";
import { refusal } from "../refusals.js";
import { prefs } from "../prefs.js";
import { tokenFor } from "./game.js";
import { listGames, putGame } from "../local_store.js";
import { whenNetworkChanges } from "../offline.js";

/** @param {string} kind @param {string} name @param {string} s */
const who = (kind, name, s) => name || (kind === "human" ? sideName(s) : t("game.computer", { level: t(`level.${kind}`) }));

/** A game as a card. @param {any} g @param {boolean} mine */
export function card(g, mine) {
  const buttons = h("p", { class: "buttons" });
  /** @param {string} href @param {string} key */
  const link = (href, key) => buttons.append(h("a", { href, class: "button" }, t(key)));
  const holds = mine && ((g.you && g.you.length) || tokenFor(g.id));
  if (g.state !== "over") link(`#/game/${g.id}`, holds ? "games.resume" : "games.watch");
  link(`#/review/${g.id}`, "games.review");
  link(`/api/games/${g.id}/record`, "games.download");
  const match = g.series ? t("games.series", { n: g.target }) : t(`match.${g.target}`);
  const title = h("h2", { class: "players" }, `${who(g.black, g.black_name, "b")} – ${who(g.gold, g.gold_name, "g")}`);
  if (g.my_turn) title.append(" ", h("span", { class: "your-move" }, t("games.your_move")));
  const li = h("li", { class: "game-card", "data-game": g.id }, title,
    h("p", { class: "facts" },
      h("span", { class: "match" }, match), " · ",
      h("span", { class: "score" }, `${g.points[0]}–${g.points[1]}`), " · ",
      h("span", { class: "state" }, t(`state.${g.state}`)), " · ",
      h("time", { datetime: new Date(g.updated * 1000).toISOString() },
        new Date(g.updated * 1000).toLocaleString(prefs.lang, { dateStyle: "medium", timeStyle: "short" }))),
    buttons);
  if (mine && g.invite) {
    const id = `invite-${g.id}`;
    li.append(h("label", { for: id, class: "invite-label" }, t("games.invite")),
      h("input", { id, class: "invite", readonly: "", value: `${location.origin}${g.invite.link}` }));
  }
  return li;
}

/** @typedef {import("../local_store.js").LocalGame} LocalGame */

/** A game played offline (kept in this browser) as a card: resume it, send it, or open it once sent.
 * @param {LocalGame} g */
function deviceCard(g) {
  const m = g.match;
  const buttons = h("p", { class: "buttons" });
  if (g.sent) {
    buttons.append(h("a", { href: `#/game/${g.sent}`, class: "button" }, t("games.sent")));
  } else {
    buttons.append(h("a", { href: `#/local/${g.id}`, class: "button" }, t(m.state === "over" ? "games.review" : "games.resume")));
    const send = h("button", { type: "button", class: "primary send" }, t("games.send"));
    send.disabled = !navigator.onLine;
    send.title = navigator.onLine ? "" : t("games.send_offline");
    send.addEventListener("click", () => sendGame(g, send));
    buttons.append(send);
  }
  const match = g.series ? t("games.series", { n: g.target }) : t(`match.${g.target}`);
  return h("li", { class: "game-card", "data-local": g.id },
    h("h2", { class: "players" }, `${who(g.black, "", "b")} – ${who(g.gold, "", "g")}`),
    h("p", { class: "facts" },
      h("span", { class: "match" }, match), " · ",
      h("span", { class: "score" }, `${m.points[0]}–${m.points[1]}`), " · ",
      h("span", { class: "state" }, t(`state.${m.state}`)), " · ",
      h("time", { datetime: new Date(g.updated).toISOString() },
        new Date(g.updated).toLocaleString(prefs.lang, { dateStyle: "medium", timeStyle: "short" }))),
    buttons);
}

/** Send a game played offline to the server, as a record of its actions (POST /api/records);
 * once stored there the kept copy is marked sent and links to it.
 * @param {LocalGame} g @param {HTMLButtonElement} button */
async function sendGame(g, button) {
  if (!navigator.onLine) { $("#send-said").textContent = t("games.send_offline"); return; }
  button.disabled = true;
  button.textContent = t("games.sending");
  /** @type {string[]} */
  const actions = [];
  for (const r of g.match.rounds) { if (r.fill) actions.push(r.fill); actions.push(...r.moves); }
  const name = (/** @type {string} */ kind, /** @type {string} */ s) =>
    kind === "human" ? "" : `${sideName(s)}: ${t("game.computer", { level: t(`level.${kind}`) })}`.slice(0, 40);
  try {
    const res = await getJSON("/api/records", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ target: g.target, series: g.series, actions, black: name(g.black, "b"), gold: name(g.gold, "g") }) });
    g.sent = res.id;
    await putGame(g);
    $("#send-said").textContent = t("games.sent_said");
  } catch (e) {
    $("#send-said").textContent = t("games.send_failed", { message: refusal(e) });
  }
  await showDevice();
}

/** List the games played offline in this browser (none: the section stays hidden). */
async function showDevice() {
  /** @type {LocalGame[]} */
  let kept = [];
  try { kept = await listGames(); } catch (e) { kept = []; }
  $("#device-games").hidden = kept.length === 0;
  $("#device-list").replaceChildren(...kept.map(deviceCard));
}
// the send buttons follow the network
whenNetworkChanges(() => { if ($("#view-games").classList.contains("active")) showDevice(); });

/** Fetch and list the player's games, and the games to watch. */
export async function showGames() {
  await showDevice();
  if (!navigator.onLine) {  // the server's lists need the network (the banner says so)
    $("#games-list").replaceChildren();
    $("#live-list").replaceChildren();
    $("#games-empty").hidden = true;
    $("#live-empty").hidden = true;
    return;
  }
  /** @type {any[]} */
  let rows = [];
  try { rows = await getJSON("/api/games"); } catch (e) { rows = []; }
  $("#games-empty").hidden = rows.length > 0;
  $("#games-list").replaceChildren(...rows.map((g) => card(g, true)));
  /** @type {any[]} */
  let live = [];
  try { live = await getJSON("/api/games/live"); } catch (e) { live = []; }
  const mine = new Set(rows.map((g) => g.id));
  live = live.filter((g) => !mine.has(g.id));
  $("#live-empty").hidden = live.length > 0;
  $("#live-list").replaceChildren(...live.map((g) => card(g, false)));
}
