/* My games: every saved game as a card, with its ways back in. */
import { $, getJSON, h } from "../dom.js";
import { sideName, t } from "../i18n.js";
import { prefs } from "../prefs.js";
import { tokenFor } from "./game.js";

/** Fetch and list the saved games. */
export async function showGames() {
  /** @type {any[]} */
  const rows = await getJSON("/api/games");
  const list = $("#games-list");
  $("#games-empty").hidden = rows.length > 0;
  /** @param {string} kind @param {string} name @param {string} s */
  const who = (kind, name, s) => name || (kind === "human" ? sideName(s) : t("game.computer", { level: t(`level.${kind}`) }));
  list.replaceChildren(...rows.map((g) => {
    const buttons = h("p", { class: "buttons" });
    /** @param {string} href @param {string} key */
    const link = (href, key) => buttons.append(h("a", { href, class: "button" }, t(key)));
    if (g.state !== "over") link(`#/game/${g.id}`, tokenFor(g.id) ? "games.resume" : "games.watch");
    link(`#/review/${g.id}`, "games.review");
    link(`/api/games/${g.id}/record`, "games.download");
    const match = g.series ? t("games.series", { n: g.target }) : t(`match.${g.target}`);
    const li = h("li", { class: "game-card", "data-game": g.id },
      h("h2", { class: "players" }, `${who(g.black, g.black_name, "b")} – ${who(g.gold, g.gold_name, "g")}`),
      h("p", { class: "facts" },
        h("span", { class: "match" }, match), " · ",
        h("span", { class: "score" }, `${g.points[0]}–${g.points[1]}`), " · ",
        h("span", { class: "state" }, t(`state.${g.state}`)), " · ",
        h("time", { datetime: new Date(g.updated * 1000).toISOString() }, new Date(g.updated * 1000).toLocaleString(prefs.lang, { dateStyle: "medium", timeStyle: "short" }))),
      buttons);
    return li;
  }));
}
