/* Words: the page's three languages, and the game's phrases built from them.
   Every colour named in running text carries its Chinese character in the
   colour-blind mode (drawn as an outline, so no font is needed). */
import { $$, SVG_NS } from "./dom.js";
import { GLYPHS } from "./glyphs.js";
import { prefs } from "./prefs.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").Pushed} Pushed */
/** @typedef {import("./types.js").TowerView} TowerView */

/** One Chinese character per colour: the towers' reverse side (docs/web.md). */
export const CHARS = /** @type {Record<string, string>} */ ({ brown: "茶", green: "綠", red: "紅",
  yellow: "黃", pink: "桃", purple: "紫", blue: "藍", orange: "橙" });

/** @type {Record<string, string>} */
let STR = {};
/** @type {Record<string, string>} */
let EN = {};

/** @param {string} lang @returns {Promise<Record<string, string>>} */
async function fetchLang(lang) {
  try {
    const r = await fetch(`/static/i18n/${lang}.json`);
    return r.ok ? await r.json() : {};
  } catch (e) {
    return {};
  }
}

/**
 * Load a language and translate every `data-i18n` element of the page (the
 * choice is kept only where the player makes it: main.js's setting).
 * @param {string} lang
 */
export async function loadLang(lang) {
  if (!Object.keys(EN).length) EN = await fetchLang("en");
  STR = lang === "en" ? EN : await fetchLang(lang);
  prefs.lang = lang;
  document.documentElement.lang = lang;
  translatePage();
}

/** Put every `data-i18n` element's text in the page's language. */
export function translatePage() {
  $$("[data-i18n]").forEach((e) => { e.textContent = t(e.dataset.i18n || ""); });
}

/**
 * The text of `key` in the page's language, `{name}`s filled in.
 * @param {string} key
 * @param {Record<string, string|number>} [params]
 * @returns {string}
 */
export function t(key, params) {
  let s = STR[key] ?? EN[key] ?? key;
  if (params) for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
  return s;
}

/** Whether the language has a text for `key`. @param {string} key */
export const has = (key) => key in STR || key in EN;

/**
 * As `t`, but a parameter may be a node (a colour with its character), so
 * the result is a fragment to append.
 * @param {string} key
 * @param {Record<string, string|number|Node>} params
 * @returns {DocumentFragment}
 */
export function tn(key, params) {
  const frag = document.createDocumentFragment();
  const s = STR[key] ?? EN[key] ?? key;
  for (const part of s.split(/(\{\w+\})/)) {
    const m = /^\{(\w+)\}$/.exec(part);
    const v = m ? params[m[1]] : undefined;
    if (v === undefined) frag.append(part);
    else frag.append(v instanceof Node ? v.cloneNode(true) : String(v));
  }
  return frag;
}

/** The name of a side: `b` Black, `g` Gold. @param {string} s */
export const sideName = (s) => t(`side.${s}`);
/** The other side. @param {string} s */
export const otherSide = (s) => (s === "b" ? "g" : "b");
/** A colour's name. @param {string} c */
export const colourName = (c) => t(`colour.${c}`);
/** A match's type as the game view names it ("Standard match (3 points)",
    "Series of single rounds: first to 3 wins"); the server's English name
    only for a type the page has no words for.
    @param {{target: number, series?: boolean, name: string}} m */
export function matchName(m) {
  if (m.series) return [3, 5].includes(m.target) ? t(`match.s${m.target}`) : m.name;
  return [1, 3, 7, 15].includes(m.target) ? t(`match.${m.target}`) : m.name;
}
/** "1 point" / "3 points". @param {number} n */
export const pointsText = (n) => (n === 1 ? t("game.point") : t("game.points", { n }));
/** A tower's rank by rings: tower, Sumo, Double Sumo, Triple Sumo. @param {number} rings */
export const rankName = (rings) => t(`rank.${Math.min(rings, 3)}`);
/** How far a tower of that many rings may move. @param {number} rings */
export const rangeOf = (rings) => [7, 5, 3, 1][Math.min(rings, 3)];

/**
 * A colour's character as a small outline picture (decorative: the name is
 * written beside it).
 * @param {string} colour
 * @returns {SVGSVGElement}
 */
export function glyph(colour) {
  const s = /** @type {SVGSVGElement} */ (document.createElementNS(SVG_NS, "svg"));
  s.setAttribute("viewBox", "-500 -500 1000 1000");
  s.setAttribute("class", "glyph");
  s.setAttribute("aria-hidden", "true");
  const p = document.createElementNS(SVG_NS, "path");
  p.setAttribute("d", GLYPHS[CHARS[colour]]);
  s.appendChild(p);
  return s;
}

/**
 * A colour named in running text: its name, and in the colour-blind mode its
 * character too.
 * @param {string} colour
 * @returns {Node}
 */
export function colourNode(colour) {
  const span = document.createElement("span");
  span.className = "cname";
  span.dataset.colour = colour;
  span.append(colourName(colour));
  if (prefs.characters) span.append(glyph(colour));
  return span;
}

/**
 * A move-list entry in the rulebook's words, translated: "Red Forward 4
 * Blue", "Green 0 Yellow" (a pass), "Blue Back 1 Orange" (pushed back).
 * @param {Entry} e
 * @returns {DocumentFragment}
 */
export function entryNodes(e) {
  const w = e.long.split(" ");
  const frag = document.createDocumentFragment();
  const c = (/** @type {string} */ x) => colourNode(x.toLowerCase());
  if (w.length === 3) frag.append(c(w[0]), " 0 ", c(w[2]));
  else frag.append(c(w[0]), ` ${t("dir." + w[1])} ${w[2]} `, c(w[3]));
  return frag;
}

/** The same words as plain text (for titles and labels). @param {Entry} e */
export const entryText = (e) => entryNodes(e).textContent || "";

/**
 * A tower named with its owner and rank: "Gold's Red Sumo", "Black's Blue tower".
 * @param {{side: string, colour: string, rings: number}} tw
 * @returns {DocumentFragment}
 */
export function towerNodes(tw) {
  return tn("tower.named", { side: sideName(tw.side), colour: colourNode(tw.colour), rank: rankName(tw.rings) });
}

/**
 * A push in words: who pushed whom, who misses a turn, which tower moves next.
 * @param {TowerView} mover
 * @param {Pushed[]} pushed
 * @param {string|null} nextColour the tower the pusher's side moves again (null when the round ended)
 * @returns {DocumentFragment}
 */
export function pushNodes(mover, pushed, nextColour) {
  const frag = document.createDocumentFragment();
  const list = document.createDocumentFragment();
  pushed.forEach((p, i) => {
    if (i) list.append(i === pushed.length - 1 ? ` ${t("word.and")} ` : ", ");
    list.append(towerNodes(p));
  });
  frag.append(tn(pushed.length > 1 ? "push.many" : "push.one", { pusher: towerNodes(mover), pushed: list }));
  frag.append(" ", tn("push.miss", { side: sideName(otherSide(mover.side)) }));
  if (nextColour) frag.append(" ", tn("push.again", { side: sideName(mover.side), colour: colourNode(nextColour) }));
  return frag;
}
