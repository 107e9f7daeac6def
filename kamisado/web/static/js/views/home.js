/* The landing page (three ways in, the computer levels) and the new-game
   form, one mode at a time: #/new/computer, #/new/hotseat, #/new/online,
   #/new/watch. */
import { createLocal } from "./local.js";
import { $, $$, getJSON, h } from "../dom.js";
import { t } from "../i18n.js";
import { knows, refusal } from "../refusals.js";
import { currentMe } from "./account.js";

/** @typedef {{name: string, description: string, elo: number}} Level */

/** @type {Level[]} */
let levels = [];
const MODES = ["computer", "hotseat", "online", "watch"];

/** Fetch the computer levels (names, descriptions, measured Elo). */
export async function loadLevels() {
  try { levels = await getJSON("/api/levels"); } catch (e) { levels = []; }
  renderLevels();
}

/** A level's description in the page's language. @param {Level} l */
const about = (l) => t(`levelinfo.${l.name}`) === `levelinfo.${l.name}` ? l.description : t(`levelinfo.${l.name}`);
/** @param {Level} l */
const rating = (l) => t("levels.elo", { elo: l.elo > 0 ? `+${l.elo}` : String(l.elo) });

/** Draw the levels: the landing page's list, the form's cards and selects. */
export function renderLevels() {
  const form = /** @type {HTMLFormElement} */ ($("#new-form"));
  const chosen = new FormData(form).get("level") || "casual";
  const list = $("#level-list");
  list.replaceChildren(...levels.map((l) => h("li", {},
    h("a", { href: `#/new/computer?level=${l.name}`, class: "level-link" },
      h("strong", {}, t(`level.${l.name}`)), h("span", { class: "elo" }, rating(l)),
      h("span", { class: "about" }, about(l))))));
  const cards = $("#level-cards");
  cards.replaceChildren(...levels.map((l) => {
    const input = h("input", { type: "radio", name: "level", value: l.name });
    input.checked = l.name === chosen;
    return h("label", { class: "level-card" }, input,
      h("span", { class: "level-text" }, h("strong", {}, t(`level.${l.name}`)), " ",
        h("span", { class: "elo" }, rating(l)), h("span", { class: "about" }, about(l))));
  }));
  $$("select.levels").forEach((e) => {
    const sel = /** @type {HTMLSelectElement} */ (e);
    const was = sel.value || "casual";
    sel.replaceChildren(...levels.map((l) => h("option", { value: l.name }, `${t(`level.${l.name}`)} (${rating(l)})`)));
    sel.value = was;
  });
}

/**
 * Show the form for a mode, a level picked in advance when given.
 * @param {string} mode
 * @param {URLSearchParams} params
 */
export function showNew(mode, params) {
  const m = MODES.includes(mode) ? mode : "computer";
  const form = /** @type {HTMLFormElement} */ ($("#new-form"));
  const radio = /** @type {HTMLInputElement|null} */ (form.querySelector(`input[name="mode"][value="${m}"]`));
  if (radio) radio.checked = true;
  const level = params.get("level");
  if (level) {
    const card = /** @type {HTMLInputElement|null} */ (form.querySelector(`input[name="level"][value="${level}"]`));
    if (card) card.checked = true;
  }
  $("#new-error").textContent = "";
  updateForm();
}

function updateForm() {
  const form = /** @type {HTMLFormElement} */ ($("#new-form"));
  const m = String(new FormData(form).get("mode"));
  $(".opt-colour").hidden = !(m === "computer" || m === "online");
  $(".opt-level").hidden = !(m === "computer" || m === "watch");
  $(".opt-level2").hidden = m !== "watch";
  $(".opt-name").hidden = m !== "online" || Boolean(currentMe()?.account);  // an account plays under its name
  // a rated game: online, with a clock, created by a player with an account
  $$(".opt-rated").forEach((e) => { e.hidden = m !== "online"; });
  const me = currentMe();
  const account = Boolean(me && me.account);
  const timed = Boolean(new FormData(form).get("clock"));
  const rated = /** @type {HTMLInputElement} */ (form.querySelector('input[name="rated"]'));
  rated.disabled = !account || !timed;
  if (rated.disabled) rated.checked = false;
  $("#rated-hint").textContent = !account ? t("new.rated_account") : !timed ? t("new.rated_clock") : "";
  $(".lbl-level").textContent = t(m === "watch" ? "new.level_black" : "new.level");
  $("#new-title").textContent = t(`newtitle.${m}`);
  if (!form.querySelector('input[name="level"]:checked')) {
    const first = /** @type {HTMLInputElement|null} */ (form.querySelector('input[name="level"][value="casual"]'));
    if (first) first.checked = true;
  }
}
export { updateForm };

$("#new-form").addEventListener("change", updateForm);
$("#new-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(/** @type {HTMLFormElement} */ ($("#new-form")));
  const m = f.get("mode");
  const me = String(f.get("colour"));
  const tv = String(f.get("target"));  // "3", or "s3": a series, first to 3 round wins
  /** @type {Record<string, any>} */
  const body = { target: Number(tv.replace("s", "")), series: tv.startsWith("s"), black: "human", gold: "human" };
  if (m === "computer") body[me === "b" ? "gold" : "black"] = f.get("level");
  if (m === "watch") { body.black = f.get("level"); body.gold = f.get("level2"); body.delay = 0.7; }
  if (m === "online") {
    body.online = true;
    body.seat = me;  // the creator's seat, bound to this browser's player
    body[me === "b" ? "black_name" : "gold_name"] = f.get("name") || "";
    if (f.get("rated")) body.rated = true;
  }
  if (!navigator.onLine) {
    // offline: a game here or against the computer is played in the page and kept on this device
    if (m !== "hotseat" && m !== "computer") { $("#new-error").textContent = t("local.needs_network"); return; }
    try {
      location.hash = `#/local/${await createLocal({ target: body.target, series: body.series, black: body.black, gold: body.gold })}`;
    } catch (e) {
      $("#new-error").textContent = String(/** @type {Error} */ (e).message);
    }
    return;
  }
  const clock = String(f.get("clock") || "");  // "180+2" (seconds + seconds) or "d3" (days a move)
  if (clock.startsWith("d")) body.clock = { days: Number(clock.slice(1)) };
  else if (clock) { const [initial, increment] = clock.split("+").map(Number); body.clock = { initial, increment }; }
  let res;
  try {
    res = await getJSON("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (e) {
    $("#new-error").textContent = refusal(e);
    return;
  }
  // the seats are the player's now: the game page needs no token
  location.hash = `#/game/${res.id}`;
});

$("#upload").addEventListener("change", async (ev) => {
  const input = /** @type {HTMLInputElement} */ (ev.target);
  const file = input.files && input.files[0];
  if (!file) return;
  const text = await file.text();
  input.value = "";
  let res;
  try { res = await getJSON("/api/records", { method: "POST", body: text }); } catch (e) {
    // a record the rules cannot read: their words (line, column, what was expected) in a translated frame
    $("#upload-error").textContent = knows(e) ? refusal(e) : t("error.upload", { message: refusal(e) });
    return;
  }
  $("#upload-error").textContent = "";
  location.hash = `#/game/${res.id}`;
});
