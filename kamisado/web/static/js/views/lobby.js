/* The lobby, #/lobby: the open challenges, live over a websocket of its own
   (followed while the view is open; leaving it withdraws this browser's
   challenges), one click to accept another player's, a form to post one.
   The server makes the game and says "started": the page opens it. */
import { $, h } from "../dom.js";
import { otherSide, sideName, t } from "../i18n.js";
import { LobbySocket } from "../socket.js";
import { ratingNode } from "../ratings.js";
import { currentMe } from "./account.js";
import { openStarted } from "./game.js";

/** @typedef {import("../types.js").Challenge} Challenge */
/** @typedef {import("../types.js").Control} Control */

/** @type {Challenge[]} */
let challenges = [];

const socket = new LobbySocket({
  onFrame(msg) {
    if (msg.type === "lobby") {
      challenges = msg.challenges || [];
      render();
    } else if (msg.type === "started") {
      openStarted(msg);
    } else if (msg.type === "error") {
      say("");
      $("#lobby-error").textContent = t(`lobbyerror.${msg.code}`) === `lobbyerror.${msg.code}`
        ? t("game.error", { message: msg.message }) : t(`lobbyerror.${msg.code}`);
      render();
    }
  },
  onStatus(s) {
    const conn = $("#lobby-conn");
    conn.hidden = s === "open";
    conn.textContent = s === "lost" ? t("lobby.lost") : s === "restarting" ? t("lobby.restarting") : t("game.connecting");
    conn.className = "conn " + s;
    render();
  },
});

/** A line for what was just done. @param {string} text */
function say(text) { $("#lobby-said").textContent = text; }

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
  const by = c.by || { player: "", name: "", rating: null };
  const name = by.name || t("player.anonymous");
  const who = by.player
    ? h("a", { class: "who", href: `#/player/${encodeURIComponent(by.player)}` }, name)
    : h("span", { class: "who" }, name);
  const title = h("h3", { class: "players" }, who);
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
}

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

/** Open the lobby: follow it (the server sends the challenges, then every change). */
export function showLobby() {
  $("#lobby-error").textContent = "";
  say("");
  if (socket.game) { render(); return; }
  challenges = [];
  render();
  $("#lobby-conn").hidden = true;
  socket.watch();
}

/** Leave the lobby: stop following it, which withdraws this browser's challenges. */
export function leaveLobby() {
  if (!socket.game) return;
  socket.leave();
  challenges = [];
}

/** Redraw in a new language. */
export function rerenderLobby() { if (socket.game) render(); }
