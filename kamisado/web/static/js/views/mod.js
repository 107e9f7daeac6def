/* #/mod, the moderators' page (docs/web-moderation.md): the open reports,
   the oldest first, each with the reported player's recent chat lines (each
   with its game, linked) and recent games (linked), and the actions:
   resolve, mute for N hours, unmute, close or reopen, each with a reason;
   then the audit log (who, when, what, on whom, why).  Anyone else is told
   "moderators only" (the server's 403); the page decides nothing: every
   action is the server's, and a refusal is shown as the server words it. */
import { $, getJSON, h } from "../dom.js";
import { sideName, t } from "../i18n.js";
import { refusal } from "../refusals.js";
import { send } from "./complaint.js";

/** @typedef {{player: string, name: string}} Who */
/** @typedef {{game: string|null, room: string|null, at: number, text: string|null, canned: string|null}} ChatLine */
/** @typedef {{id: string, updated: number, black_name: string, gold_name: string, black_player: string|null,
 *   gold_player: string|null, state: string, rated: boolean, ended: boolean}} GameLine */
/** @typedef {{id: number, created: number, reason: string, text: string, game: string|null, reporter: Who,
 *   reported: {player: string, name: string, account: string|null, muted_until: number|null, closed: number|null},
 *   chat: ChatLine[], games: GameLine[]}} Report */
/** @typedef {{id: number, at: number, actor: string, actor_player: string|null, action: string, target: string,
 *   reason: string|null, detail: string|null, target_name: string|null, target_account: string|null}} AuditRow */

/** A time as the page's language writes it. @param {number} at seconds since the epoch */
const when = (at) => new Date(at * 1000).toLocaleString(document.documentElement.lang || undefined,
  { dateStyle: "short", timeStyle: "short" });

/** A player's page link. @param {string} player @param {string} name */
const playerLink = (player, name) => h("a", { href: `#/player/${encodeURIComponent(player)}` }, name || t("player.anonymous"));

/** A game's link: the live game while it is played, else its review. @param {string} id @param {boolean} [ended] */
const gameHref = (id, ended = true) => (ended ? `#/review/${encodeURIComponent(id)}` : `#/game/${encodeURIComponent(id)}`);

let showing = 0;

/** Draw #/mod: the open reports and the audit log, or "moderators only". */
export async function showMod() {
  const turn = ++showing;
  $("#mod-error").textContent = "";
  /** @type {Report[]} */
  let reports;
  /** @type {AuditRow[]} */
  let audit;
  try {
    [reports, audit] = await Promise.all([getJSON("/api/mod/reports"), getJSON("/api/mod/audit")]);
  } catch (e) {
    if (turn !== showing) return;
    const denied = /** @type {{code?: string}} */ (e).code === "moderators_only";
    $("#mod-denied").hidden = !denied;
    $("#mod-body").hidden = true;
    $("#mod-error").textContent = denied ? "" : refusal(e);
    return;
  }
  if (turn !== showing) return;
  $("#mod-denied").hidden = true;
  $("#mod-body").hidden = false;
  $("#mod-reports-empty").hidden = reports.length > 0;
  $("#mod-reports").replaceChildren(...reports.map(reportItem));
  $("#mod-audit-empty").hidden = audit.length > 0;
  $("#mod-audit").replaceChildren(...audit.map(auditItem));
}

/** One open report: who, why, the text; the reported player's chat and games; the actions. @param {Report} r */
function reportItem(r) {
  const who = r.reported;
  const state = [];
  if (who.closed != null) state.push(t("mod.state_closed"));
  if (who.muted_until != null) state.push(t("mod.state_muted", { until: when(who.muted_until) }));
  const head = h("h3", {}, t(`mod.reason_${r.reason}`), ": ", playerLink(who.player, who.name),
    who.account && who.account !== who.name ? ` (${who.account})` : "");
  const li = h("li", { class: "mod-report", "data-report": String(r.id), "data-player": who.player }, head,
    h("p", { class: "hint" }, t("mod.reported_by", { when: when(r.created) }), " ", playerLink(r.reporter.player, r.reporter.name),
      ...(r.game ? [" · ", h("a", { href: gameHref(r.game) }, t("mod.the_game"))] : [])));
  if (state.length) li.append(h("p", { class: "mod-state" }, state.join(" · ")));
  // the reporter's words: text, as written (never markup)
  if (r.text) li.append(h("blockquote", { class: "mod-text" }, r.text));
  li.append(h("h4", {}, t("mod.chat")));
  li.append(r.chat.length
    ? h("ol", { class: "mod-chat" }, ...r.chat.map((c) => h("li", {},
      h("span", { class: "hint" }, when(c.at)), " ",
      h("span", { class: "chat-text" }, c.canned ? t(`chat.canned_${c.canned}`) : c.text || ""),
      ...(c.game ? [" · ", h("a", { href: gameHref(c.game) }, t("mod.the_game"))] : []))))
    : h("p", { class: "hint" }, t("mod.no_chat")));
  li.append(h("h4", {}, t("mod.games")));
  li.append(r.games.length
    ? h("ul", { class: "mod-games" }, ...r.games.map((g) => h("li", {},
      h("a", { href: gameHref(g.id, g.ended) }, `${g.black_name || sideName("b")} – ${g.gold_name || sideName("g")}`),
      " ", h("span", { class: "hint" }, `${t(g.rated ? "lobby.rated" : "lobby.casual")} · ${when(g.updated)}`))))
    : h("p", { class: "hint" }, t("mod.no_games")));
  li.append(actions(r));
  return li;
}

/** The actions on a report: a reason (or note), the hours of a mute, and the buttons. @param {Report} r */
function actions(r) {
  const who = r.reported;
  const reason = h("input", { class: "mod-reason", maxlength: "300", autocomplete: "off" });
  const hours = h("input", { class: "mod-hours", type: "number", min: "1", max: "720", step: "1", value: "24" });
  const said = h("p", { class: "mod-said", "aria-live": "polite" });
  /** @param {string} key @param {string} action @param {() => object} body @param {string} url */
  const button = (key, action, body, url) => {
    const b = h("button", { type: "button", "data-action": action }, t(key));
    b.addEventListener("click", async () => {
      b.disabled = true;
      try { await send(url, "POST", body()); } catch (e) {
        said.textContent = refusal(e);
        b.disabled = false;
        return;
      }
      await showMod();
    });
    return b;
  };
  const note = () => (reason.value.trim() ? { reason: reason.value.trim() } : {});
  const on = `/api/mod/players/${encodeURIComponent(who.player)}`;
  const buttons = h("p", { class: "buttons" },
    button("mod.resolve", "resolve", () => (reason.value.trim() ? { note: reason.value.trim() } : {}),
      `/api/mod/reports/${r.id}/resolve`),
    button("mod.mute", "mute", () => ({ ...note(), hours: Number(hours.value) }), `${on}/mute`));
  if (who.muted_until != null) buttons.append(button("mod.unmute", "unmute", note, `${on}/unmute`));
  buttons.append(who.closed != null ? button("mod.reopen", "reopen", note, `${on}/reopen`)
    : button("mod.close", "close", note, `${on}/close`));
  const id = `mod-${r.id}`;
  return h("div", { class: "mod-actions" },
    h("label", { for: `${id}-reason` }, t("mod.reason_label")), Object.assign(reason, { id: `${id}-reason` }),
    h("label", { for: `${id}-hours` }, t("mod.hours")), Object.assign(hours, { id: `${id}-hours` }),
    buttons, said);
}

/** One row of the audit log: when, who, what, on whom, why. @param {AuditRow} a */
function auditItem(a) {
  const target = a.target_name || a.target_account || a.target;
  const li = h("li", { class: "mod-audit-row", "data-action": a.action },
    h("span", { class: "hint" }, when(a.at)), " ", h("strong", {}, a.actor), " ",
    h("span", { class: "mod-verb" }, t(`mod.did_${a.action}`)), " ", playerLink(a.target, target));
  if (a.detail) li.append(` (${a.detail})`);
  if (a.reason) li.append(" – ", h("q", {}, a.reason));
  return li;
}
