/* Notices, on every page: a websocket of its own (NoticeSocket) keeps this
   browser's player online and brings the direct challenges made to it
   (docs/web.md, "Direct challenges"). Each shows as a small notice with
   Accept and Decline; accepting starts the game for both players (the server
   says "started": the page opens it). A player page's Challenge button sends
   its challenge through the same connection (challengePlayer): the page that
   made it hears "challenging", then "declined" or "started". */
import { $, h } from "./dom.js";
import { t } from "./i18n.js";
import { botBadge, ratingNode } from "./ratings.js";
import { NoticeSocket } from "./socket.js";
import { openStarted } from "./views/game.js";
import { controlText } from "./views/lobby.js";

/** @typedef {import("./types.js").Challenge} Challenge */

/** The direct challenges to this player, shown now. @type {Challenge[]} */
let pending = [];
/** Told what becomes of the challenges this page made (the player page). @type {(msg: any) => void} */
let onMine = () => {};

const socket = new NoticeSocket({
  onFrame(msg) {
    if (msg.type === "notices") { pending = msg.challenges || []; render(); }
    else if (msg.type === "challenged") {
      pending = pending.filter((c) => c.id !== msg.challenge.id).concat([msg.challenge]);
      render();
    } else if (msg.type === "withdrawn") {
      pending = pending.filter((c) => c.id !== msg.challenge);
      render();
    } else if (msg.type === "started") {
      onMine(msg);
      openStarted(msg);
    } else onMine(msg);  // challenging, declined, error
  },
  onStatus() {},
});

/** Open the notices' connection (again, for the player now: after a sign-in). */
export function followNotices() {
  pending = [];
  render();
  socket.follow();
}

/**
 * Challenge a player directly; false (and nothing sent) when not connected.
 * @param {object} challenge the challenge's fields (to, clock, rated, target, color)
 * @param {(msg: any) => void} told what the server answers, then what becomes of it
 */
export function challengePlayer(challenge, told) {
  onMine = told;
  return socket.send({ type: "challenge", ...challenge });
}

/** A challenge's facts: the match, the clock, rated or casual. @param {Challenge} c */
export function challengeFacts(c) {
  const match = c.series ? t("games.series", { n: c.target })
    : [1, 3, 7, 15].includes(c.target) ? t(`match.${c.target}`) : c.name;
  return `${match} · ${controlText(c.clock)} · ${t(c.rated ? "lobby.rated" : "lobby.casual")}`;
}

function render() {
  $("#notices").hidden = pending.length === 0;
  $("#notice-list").replaceChildren(...pending.map((c) => {
    const by = c.by || { player: "", name: "", rating: null, bot: false };
    const name = by.name || t("player.anonymous");
    const who = h("strong", {}, h("a", { href: `#/player/${encodeURIComponent(by.player)}` }, name));
    if (by.bot) who.append(" ", botBadge());
    if (by.rating != null) who.append(" ", ratingNode({ rating: by.rating, provisional: by.provisional }));
    const accept = h("button", { type: "button", class: "primary accept",
      "aria-label": t("notice.accept_label", { name }) }, t("lobby.accept"));
    const decline = h("button", { type: "button", class: "decline",
      "aria-label": t("notice.decline_label", { name }) }, t("notice.decline"));
    accept.addEventListener("click", () => {
      if (socket.send({ type: "accept", challenge: c.id })) { accept.disabled = true; decline.disabled = true; }
    });
    decline.addEventListener("click", () => {
      if (socket.send({ type: "decline", challenge: c.id })) { accept.disabled = true; decline.disabled = true; }
    });
    return h("div", { class: "notice", "data-challenge": c.id },
      h("p", {}, who, " ", t("notice.challenges_you")),
      h("p", { class: "facts" }, challengeFacts(c)),
      h("p", { class: "buttons" }, accept, decline));
  }));
}
