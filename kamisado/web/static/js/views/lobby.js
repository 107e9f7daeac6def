/* The lobby, #/lobby: quick pairing (a grid of speeds: one click seeks, a
   second cancels; on the home page too, and #/?seek=3%2B2&rated=1 seeks at
   once: "New opponent" after a game the lobby made), the site's counts and a
   top game to watch, and the open
   challenges, live over a websocket of its own (followed while the view is
   open; leaving it withdraws this browser's seek and challenges), one click
   to accept another player's, a form to post one.
   The server makes the game and says "started": the page opens it. */
import { $, h } from "../dom.js";
import { has, otherSide, sideName, t } from "../i18n.js";
import { refusal } from "../refusals.js";
import { LobbySocket } from "../socket.js";
import { botBadge, ratingNode } from "../ratings.js";
import { currentMe } from "./account.js";
import { openStarted } from "./game.js";
import { rememberPaired } from "./controls.js";

/** @typedef {import("../types.js").Challenge} Challenge */
/** @typedef {import("../types.js").Control} Control */

/** @type {Challenge[]} */
let challenges = [];

/** The quick-pairing speeds, as the server names them (docs/web.md, "Quick pairing"). */
const SPEEDS = ["1+0", "3+2", "5+3", "10+5", "15+10", "1d", "3d"];
/** This connection's seek: `{id, speed, rated}`, or null.
 * @type {{id: string, speed: string, rated: boolean}|null} */
let seeking = null;
/** The site's counts, as last sent (`lobby_counts`).
 * @type {{online: number, playing: number, top: {game: string, names: string[], ratings: (number|null)[]}|null}|null} */
let counts = null;

const socket = new LobbySocket({
  onFrame(msg) {
    if (msg.type === "lobby") {
      challenges = msg.challenges || [];
      render();
    } else if (msg.type === "seeking") {
      seeking = msg.seek || null;
      if (seeking) quickSay(t("quick.said_seeking", { speed: speedText(seeking.speed) }));
      renderQuick();
    } else if (msg.type === "lobby_counts") {
      counts = msg;
      renderCounts();
    } else if (msg.type === "started") {
      // "New opponent" after it seeks this speed again (an accepted challenge: its clock's)
      rememberPaired(msg.game, seeking ? seeking.speed : null, Boolean(seeking && seeking.rated));
      seeking = null;
      openStarted(msg);
    } else if (msg.type === "error") {
      say("");
      $("#lobby-error").textContent = has(`lobbyerror.${msg.code}`) ? t(`lobbyerror.${msg.code}`) : refusal(msg);
      render();
    }
  },
  onStatus(s) {
    if (s !== "open") seeking = null;  // a seek lives with its connection
    if (s === "open") sendWanted();
    const conn = $("#lobby-conn");
    conn.hidden = s === "open";
    conn.textContent = s === "lost" ? t("lobby.lost") : s === "restarting" ? t("lobby.restarting") : t("game.connecting");
    conn.className = "conn " + s;
    render();
  },
});

/** A seek to send once the lobby's connection is open (#/?seek=3%2B2&rated=1).
 * @type {{speed: string, rated: boolean}|null} */
let wanted = null;
/** Whether the player chose Casual or Rated here (else: Rated with an account). */
let modeChosen = false;

/** A line for what was just done. @param {string} text */
function say(text) { $("#lobby-said").textContent = text; }

/** A line for quick pairing (announced). @param {string} text */
function quickSay(text) { $("#quick-said").textContent = text; }

/** "3+2", "1 day", "3 days". @param {string} speed */
const speedText = (speed) => speed.endsWith("d") ? t(`quick.d${speed.slice(0, -1)}`) : speed;

/** Whether rated is chosen (and possible: an account). */
function ratedChosen() {
  const box = /** @type {HTMLInputElement} */ ($('#quick input[value="rated"]'));
  return box.checked && !box.disabled;
}

/** The grid of speeds: each button seeks (pressed while seeking; pressed again, cancels). */
function renderQuick() {
  const connected = socket.status === "open";
  const me = currentMe();
  const account = Boolean(me && me.account);
  const rated = /** @type {HTMLInputElement} */ ($('#quick input[value="rated"]'));
  rated.disabled = !account;
  if (account && !modeChosen) rated.checked = true;  // rated by default for an account (as lichess)
  if (!account && rated.checked) {
    rated.checked = false;
    /** @type {HTMLInputElement} */ ($('#quick input[value="casual"]')).checked = true;
  }
  $("#quick-rated-hint").textContent = account ? "" : t("new.rated_account");
  const mode = ratedChosen();
  $("#quick-grid").replaceChildren(...SPEEDS.map((speed) => {
    const on = Boolean(seeking && seeking.speed === speed && seeking.rated === mode);
    const label = on ? t("quick.cancel_label", { speed: speedText(speed) })
      : t(mode ? "quick.seek_rated" : "quick.seek_casual", { speed: speedText(speed) });
    const button = h("button", { type: "button", class: "seek", "data-speed": speed,
      "aria-pressed": on ? "true" : "false", "aria-label": label },
      h("span", { class: "speed" }, speedText(speed)),
      h("span", { class: "kind" }, on ? t("quick.seeking")
        : t(speed.endsWith("d") ? "quick.correspondence" : "quick.realtime")));
    button.disabled = !connected;
    button.addEventListener("click", () => {
      $("#lobby-error").textContent = "";
      const msg = on ? { type: "unseek" } : { type: "seek", speed, rated: ratedChosen() };
      if (!socket.send(msg)) { $("#lobby-error").textContent = t("lobby.not_sent"); return; }
      if (on) { seeking = null; quickSay(t("quick.said_cancelled")); renderQuick(); }
    });
    return button;
  }));
}

/** Players online, games in play, and a top game to watch (a spectator's link). */
function renderCounts() {
  const line = $("#lobby-counts");
  line.textContent = counts ? t("quick.counts", { online: counts.online, playing: counts.playing }) : "";
  const top = counts && counts.top;
  const box = $("#lobby-top");
  box.hidden = !top;
  if (!top) { box.replaceChildren(); return; }
  const names = top.names.map((n, i) => (n || t("player.anonymous"))
    + (top.ratings[i] != null ? ` (${top.ratings[i]})` : ""));
  const link = h("a", { href: `#/game/${encodeURIComponent(top.game)}`, class: "watch-top" },
    t("quick.watch_label", { black: names[0], gold: names[1] }));
  box.replaceChildren(t("quick.watch"), " ", link);
}

/** "5+3", "2 days a move", "No clock". @param {Control|null} c */
export function controlText(c) {
  if (!c) return t("clock.none");
  if (c.days) return t(`clock.d${c.days}`);
  const initial = c.initial || 0, inc = c.increment || 0;
  return initial % 60 === 0 ? `${initial / 60}+${inc}` : `${initial} s+${inc}`;
}

/** The match type's name in the page's language. @param {Challenge} c */
const matchName = (c) => c.series ? t("games.series", { n: c.target })
  : [1, 3, 7, 15].includes(c.target) ? t(`match.${c.target}`) : c.name;

/** One challenge as a card. @param {Challenge} c @param {boolean} connected */
function challengeCard(c, connected) {
  const by = c.by || { player: "", name: "", rating: null, bot: false };
  const name = by.name || t("player.anonymous");
  const who = by.player
    ? h("a", { class: "who", href: `#/player/${encodeURIComponent(by.player)}` }, name)
    : h("span", { class: "who" }, name);
  const title = h("h3", { class: "players" }, who);
  if (by.bot) title.append(" ", botBadge());
  if (by.rating != null) title.append(" ", ratingNode({ rating: by.rating, provisional: by.provisional }));
  if (c.mine) title.append(" ", h("span", { class: "mine-flag" }, t("lobby.mine")));
  const colour = c.color === "random" ? t("lobby.random_colours")
    : t("lobby.you_play", { side: sideName(c.mine ? c.color : otherSide(c.color)) });
  const button = h("button", { type: "button", class: c.mine ? "cancel" : "accept primary",
    "aria-label": t(c.mine ? "lobby.cancel_label" : "lobby.accept_label", { name, match: matchName(c) }) },
    t(c.mine ? "lobby.cancel" : "lobby.accept"));
  button.disabled = !connected;
  button.addEventListener("click", () => {
    $("#lobby-error").textContent = "";
    const sent = socket.send({ type: c.mine ? "cancel" : "accept", challenge: c.id });
    if (!sent) $("#lobby-error").textContent = t("lobby.not_sent");
    else button.disabled = true;
  });
  return h("li", { class: "game-card challenge", "data-challenge": c.id, "data-mine": c.mine ? "1" : "0" },
    title,
    h("p", { class: "facts" },
      h("span", { class: "match" }, matchName(c)), " · ",
      h("span", { class: "clock-control" }, controlText(c.clock)), " · ",
      h("span", { class: "rated" }, t(c.rated ? "lobby.rated" : "lobby.casual")), " · ",
      h("span", { class: "colour" }, colour)),
    h("p", { class: "buttons" }, button));
}

function render() {
  const connected = socket.status === "open";
  $("#challenges").replaceChildren(...challenges.map((c) => challengeCard(c, connected)));
  $("#challenges-empty").hidden = challenges.length > 0;
  /** @type {HTMLButtonElement} */ ($("#challenge-post")).disabled = !connected;
  updateForm();
  renderQuick();
  renderCounts();
}

$("#quick").addEventListener("change", () => { modeChosen = true; renderQuick(); });

/** The rated box: only with an account and a clock. */
function updateForm() {
  const form = /** @type {HTMLFormElement} */ ($("#challenge-form"));
  const me = currentMe();
  const account = Boolean(me && me.account);
  const timed = Boolean(new FormData(form).get("clock"));
  const rated = /** @type {HTMLInputElement} */ (form.querySelector('input[name="rated"]'));
  rated.disabled = !account || !timed;
  if (rated.disabled) rated.checked = false;
  $("#challenge-rated-hint").textContent = !account ? t("new.rated_account") : !timed ? t("new.rated_clock") : "";
}

$("#challenge-form").addEventListener("change", updateForm);
$("#challenge-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = new FormData(/** @type {HTMLFormElement} */ ($("#challenge-form")));
  /** @type {Record<string, any>} */
  const msg = { type: "challenge", target: Number(f.get("target")), series: false,
    rated: Boolean(f.get("rated")), color: String(f.get("color") || "random") };
  const clock = String(f.get("clock") || "");  // "180+2" (seconds + seconds) or "d3" (days a move)
  if (clock.startsWith("d")) msg.clock = { days: Number(clock.slice(1)) };
  else if (clock) { const [initial, increment] = clock.split("+").map(Number); msg.clock = { initial, increment }; }
  $("#lobby-error").textContent = "";
  if (socket.send(msg)) say(t("lobby.posted"));
  else $("#lobby-error").textContent = t("lobby.not_sent");
});

/** Put the quick-pairing grid in a view's place for it (one grid, moved).
 * @param {"lobby"|"home"} where */
function placeQuick(where) {
  const spot = $(where === "home" ? "#home-quick" : "#lobby-quick");
  const quick = $("#quick");
  if (quick.parentElement !== spot) spot.append(quick);
  // the grid's errors beside it on the home page; the lobby's own line there
  const error = $("#lobby-error");
  if (where === "home" && error.parentElement !== quick) quick.append(error);
  if (where === "lobby" && error.parentElement === quick) $("#lobby-said").after(error);
}

/** The home page's quick pairing: follow the lobby as the lobby view does;
 * `params` may ask for a seek at once (seek=<speed>, rated=1).
 * @param {URLSearchParams} params */
export function showQuickHome(params) {
  placeQuick("home");
  const speed = params.get("seek");
  if (speed && SPEEDS.includes(speed)) {
    wanted = { speed, rated: params.get("rated") === "1" };
    history.replaceState(null, "", "#/");  // once: a reload does not seek again
  }
  openLobby();
  if (socket.status === "open") sendWanted();
}

/** The seek asked for by the address (#/?seek=...), once the lobby is open. */
function sendWanted() {
  if (!wanted) return;
  const msg = { type: "seek", speed: wanted.speed, rated: wanted.rated };
  wanted = null;
  if (!socket.send(msg)) $("#lobby-error").textContent = t("lobby.not_sent");
}

/** Open the lobby: follow it (the server sends the challenges, then every change). */
export function showLobby() {
  placeQuick("lobby");
  openLobby();
}

function openLobby() {
  $("#lobby-error").textContent = "";
  say("");
  if (socket.game) { render(); return; }
  challenges = [];
  seeking = null;
  quickSay("");
  render();
  $("#lobby-conn").hidden = true;
  socket.watch();
}

/** Leave the lobby: stop following it, which withdraws this browser's challenges. */
export function leaveLobby() {
  if (!socket.game) return;
  socket.leave();
  challenges = [];
  seeking = null;
}

/** Redraw in a new language. */
export function rerenderLobby() { if (socket.game) render(); }
