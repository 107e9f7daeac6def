/* A live game's chat: the players' room for the two players, the
   spectators' room for everyone else (the server decides which: a seat
   holder's connection is in the players' room).  Only in an online game
   between two people: none against the computer, none in hotseat.  Canned
   messages travel as codes and are said in each reader's language; a
   message is at most 140 characters and always put on the page as text
   (textContent), never as HTML.  A player may mute the opponent: kept in
   this browser only (localStorage, by the opponent's player id), the
   server still sends their messages.  A signed-in player may report the
   opponent from here (the report names the game: views/complaint.js); a
   line the server refuses (a moderator's mute) is said as the server words it.
   Folded, the chat shows how many messages came unread in a badge (on a phone
   also in a chip pinned above the tab bar, which opens the chat); a message
   over the limit is kept whole in the input, the reason said right under it
   (and again when Enter or Send is tried); Enter sends. */
import { $, getJSON, h } from "../dom.js";
import { sideName, t } from "../i18n.js";
import { currentMe } from "./account.js";
import { openComplaint } from "./complaint.js";

/** @typedef {import("../types.js").StateFrame} StateFrame */
/** @typedef {{id: number, at: number, name: string, side: string|null, text: string|null, canned: string|null}} ChatMessage */

/** The longest message, in characters (as the server counts them: code points). */
export const CHAT_MAX = 140;
/** The canned messages' codes (the server's kamisado.web.basics.messages.CANNED). */
export const CANNED = ["hello", "good_luck", "good_game", "thanks"];
const MUTED_KEY = "kamisado.chat.muted";

/** @type {ChatMessage[]} */
let messages = [];
/** @type {string|null} */
let room = null;
/** @type {string|null} the game whose chat is shown */
let chatGame = null;
/** @type {string|null} the opponent's player id (a player may mute them) */
let opponent = null;
/** @type {string} the opponent's name (for the report form) */
let opponentName = "";
/** @type {string|null} this browser's seat in the players' room */
let mySide = null;
let unread = 0;
/** @type {(msg: object) => boolean} */
let send = () => false;

/** The opponents muted in this browser (their player ids). @returns {string[]} */
function mutedList() {
  try {
    const v = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  } catch (e) { return []; }
}
/** @param {string} player @param {boolean} on */
function setMuted(player, on) {
  const list = mutedList().filter((p) => p !== player);
  if (on) list.push(player);
  try { localStorage.setItem(MUTED_KEY, JSON.stringify(list.slice(-200))); } catch (e) { /* storage full or off */ }
}
const isMuted = () => Boolean(opponent && mutedList().includes(opponent));

/** Characters as the server counts them (code points, not UTF-16 units). @param {string} s */
const length = (s) => Array.from(s.trim()).length;

/** Whether a game has a chat for this page: online, both seats people, not one browser holding both.
 * @param {StateFrame} st */
export const hasChat = (st) => Boolean(st.online_game && st.seats.b.kind === "human" && st.seats.g.kind === "human"
  && (st.you || []).length < 2);

/** A new game is shown: its chat is empty until the server sends it. @param {string|null} id */
export function resetChat(id) {
  chatGame = id;
  messages = [];
  room = null;
  unread = 0;
  $("#chat").hidden = true;
  $("#chat-jump").hidden = true;
  $("#chat-log").replaceChildren();
  /** @type {HTMLInputElement} */ ($("#chat-text")).value = "";
}

/** A chat frame from the server. @param {{game: string, room: string, messages: ChatMessage[], replace: boolean}} msg */
export function chatFrame(msg) {
  if (msg.game !== chatGame) return;
  if (msg.replace || msg.room !== room) messages = [];
  room = msg.room;
  const known = new Set(messages.map((m) => m.id));
  const fresh = msg.messages.filter((m) => !known.has(m.id));
  messages = messages.concat(fresh).sort((a, b) => a.id - b.id);
  const details = /** @type {HTMLDetailsElement} */ ($("#chat"));
  if (!msg.replace && !details.open) unread += fresh.filter((m) => shown(m) && !(mySide && m.side === mySide)).length;
  drawLog();
}

/** Whether a message is shown (not the muted opponent's). @param {ChatMessage} m */
const shown = (m) => !(room === "players" && m.side && m.side !== mySide && isMuted());

/** A message's words: its text as it was written, or the canned message in this page's language. @param {ChatMessage} m */
const words = (m) => (m.canned ? t(`chat.canned_${m.canned}`) : m.text || "");

function drawLog() {
  const log = $("#chat-log");
  const items = messages.filter(shown).map((m) => {
    const who = room === "players" && m.side ? sideName(m.side) + (m.name && m.name !== "Black" && m.name !== "Gold" ? ` (${m.name})` : "")
      : m.name || t("chat.spectator");
    // text nodes only: whatever a message holds is shown as written, never read as HTML
    return h("li", { class: m.canned ? "chat-msg canned" : "chat-msg", "data-id": String(m.id) },
      h("span", { class: "chat-who" }, `${who}: `), h("span", { class: "chat-text" }, words(m)));
  });
  log.replaceChildren(...items);
  $("#chat-empty").hidden = items.length > 0;
  log.scrollTop = log.scrollHeight;
  const badge = $("#chat-unread");
  badge.textContent = unread ? t("chat.unread", { n: unread }) : "";
  badge.hidden = !unread;
  const jump = $("#chat-jump");  // a phone's chip (style.css)
  jump.textContent = unread ? t("chat.jump", { n: unread }) : "";
  jump.hidden = !unread || $("#chat").hidden;
  $("#chat-room").textContent = t(room === "spectators" ? "chat.spectators" : "chat.players");
  const muted = isMuted();
  $("#chat-muted").hidden = !muted;
}

/** Show the chat as the game's state says (hidden where there is none). @param {StateFrame} st */
export function renderChat(st) {
  const box = $("#chat");
  const on = hasChat(st) && chatGame === st.game;
  box.hidden = !on;
  if (!on) { $("#chat-jump").hidden = true; return; }
  const you = st.you || [];
  const mine = you.length ? "players" : "spectators";  // the server's rule: a seat holder's room is the players'
  if (room !== mine) { room = mine; messages = []; }
  mySide = you.length === 1 ? you[0] : null;
  const other = mySide ? st.seats[mySide === "b" ? "g" : "b"] : null;
  opponent = other && other.player ? other.player : null;
  opponentName = other ? other.name : "";
  const me = currentMe();
  $("#chat-report").hidden = !(opponent && me && me.signed_in);
  const mute = /** @type {HTMLButtonElement} */ ($("#chat-mute"));
  mute.hidden = !opponent;
  mute.setAttribute("aria-pressed", isMuted() ? "true" : "false");
  mute.textContent = t(isMuted() ? "chat.unmute" : "chat.mute");
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (box.querySelectorAll("[data-canned]"))) {
    b.textContent = t(`chat.canned_${b.dataset.canned}`);
  }
  countLeft();
  drawLog();
}

function countLeft() {
  const input = /** @type {HTMLInputElement} */ ($("#chat-text"));
  const n = length(input.value);
  const count = $("#chat-count");
  count.textContent = t("chat.count", { n, max: CHAT_MAX });
  count.classList.toggle("over", n > CHAT_MAX);
  // the reason where the player types: what is too long, and by how much
  const why = $("#chat-too-long");
  why.textContent = n > CHAT_MAX ? t("chat.too_long", { n, max: CHAT_MAX, over: n - CHAT_MAX }) : "";
  if (n <= CHAT_MAX) why.classList.remove("nudge");
  /** @type {HTMLButtonElement} */ ($("#chat-send")).disabled = n === 0;
}

/** A message over the limit was to be sent: say again why not (the reason flashes). */
function tooLong() {
  const why = $("#chat-too-long");
  why.classList.remove("nudge");
  void why.offsetWidth;  // restart the flash
  why.classList.add("nudge");
}

/** Wire the chat's controls to the game's socket. @param {(msg: object) => boolean} sendFn */
export function wireChat(sendFn) {
  send = sendFn;
  const input = /** @type {HTMLInputElement} */ ($("#chat-text"));
  input.addEventListener("input", countLeft);
  const form = /** @type {HTMLFormElement} */ ($("#chat-form"));
  // Enter sends, whatever the browser does with a form's implicit submission
  input.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || ev.isComposing || ev.shiftKey) return;
    ev.preventDefault();
    form.requestSubmit();
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) { countLeft(); return; }
    if (length(text) > CHAT_MAX) { countLeft(); tooLong(); return; }
    $("#chat-said").textContent = "";
    if (send({ type: "chat", text })) {
      input.value = "";
      countLeft();
    } else $("#chat-said").textContent = t("conn.not_sent");
  });
  for (const b of /** @type {HTMLButtonElement[]} */ (Array.from(document.querySelectorAll("#chat [data-canned]")))) {
    b.addEventListener("click", () => {
      $("#chat-said").textContent = "";
      if (!send({ type: "chat", canned: b.dataset.canned })) $("#chat-said").textContent = t("conn.not_sent");
    });
  }
  $("#chat-mute").addEventListener("click", () => {
    if (!opponent) return;
    setMuted(opponent, !isMuted());
    const mute = $("#chat-mute");
    mute.setAttribute("aria-pressed", isMuted() ? "true" : "false");
    mute.textContent = t(isMuted() ? "chat.unmute" : "chat.mute");
    drawLog();
  });
  $("#chat-report").addEventListener("click", () => {
    if (!opponent || !chatGame) return;
    openComplaint({ player: opponent, name: opponentName, game: chatGame,
      done: (said) => { $("#chat-said").textContent = said; } });
  });
  $("#chat-jump").addEventListener("click", () => {
    const details = /** @type {HTMLDetailsElement} */ ($("#chat"));
    details.open = true;  // the toggle below counts them read
    $("#chat-text").scrollIntoView({ block: "nearest" });  // the newest lines are just above it
  });
  $("#chat").addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ ($("#chat")).open) { unread = 0; drawLog(); }
  });
}

/** Say a refused chat message in the chat. @param {string} code @param {string} message */
export function chatRefused(code, message) {
  const key = code === "rate_limited" ? "chat.rate_limited" : code === "no_chat" ? "chat.none"
    : code === "closed" ? "refusal.closed" : "";
  if (code === "muted") { showMuted(message); return; }
  $("#chat-said").textContent = key ? t(key) : t("game.error", { message });
  showSaid();
}

/** The refusal's line in view (the open chat scrolls inside itself). */
function showSaid() { $("#chat-said").scrollIntoView({ block: "nearest" }); }

/** A moderator's mute, in the page's words with its end from /api/me (the
    server's English words until that answer comes, or if it fails).
    @param {string} message the server's words */
async function showMuted(message) {
  const said = $("#chat-said");
  said.textContent = message;
  showSaid();
  try {
    const me = await getJSON("/api/me");
    if (me.muted_until == null) return;
    const until = new Date(me.muted_until * 1000).toLocaleString(document.documentElement.lang || undefined,
      { dateStyle: "short", timeStyle: "short" });
    said.textContent = t("chat.muted_until", { until });
    showSaid();
  } catch (e) { /* the server's words stay */ }
}
