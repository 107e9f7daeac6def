/* My games: the player's games as cards (the game waiting for them first,
   then the other ongoing ones, then the finished ones, as the server orders
   them), with their ways back in and the invite link of an online game
   whose opponent has not come yet; then the games anyone may watch. */
import { $, getJSON, h } from "../dom.js";
import { sideName, t } from "../i18n.js";
import { prefs } from "../prefs.js";
import { tokenFor } from "./game.js";

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

/** Fetch and list the player's games, and the games to watch. */
export async function showGames() {
  /** @type {any[]} */
  const rows = await getJSON("/api/games");
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
