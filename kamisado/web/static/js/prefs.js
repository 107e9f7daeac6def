/* The player's settings, kept in this browser: language, Chinese characters
   (the colour-blind mode), squares in the move list, sounds, confirming
   moves made on a touch screen, the board's size and the zen mode. */

/** @param {string} key @param {string} fallback */
const load = (key, fallback) => localStorage.getItem(`kamisado.${key}`) ?? fallback;

/** The page's languages. */
export const LANGS = ["en", "de", "hu"];

/**
 * The page's language on a first visit: the first of the browser's languages
 * (navigator.languages, most wished first) the page has, else English.
 * @param {readonly string[]} wished
 * @returns {string}
 * @example
 * browserLang(["hu-HU", "en-US"])  // "hu"
 * browserLang(["fr-FR", "de-AT"])  // "de"
 * browserLang(["fr"])              // "en"
 */
export function browserLang(wished) {
  for (const w of wished) {
    const base = w.toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

/** The board's size in per cent of the room it has (50 to 100). @param {string} v */
const percent = (v) => Math.min(100, Math.max(50, Math.round(Number(v) / 5) * 5 || 100));

export const prefs = {
  // a language picked in the page, else the browser's (not kept: it follows the browser)
  lang: load("lang", browserLang(navigator.languages || [navigator.language || "en"])),
  characters: load("characters", "0") === "1",
  squares: load("squares", "0") === "1",
  sound: load("sound", "0") === "1",
  confirmTouch: load("confirmTouch", "0") === "1",
  zen: load("zen", "0") === "1",
  boardSize: percent(load("boardSize", "100")),
};

/**
 * Change a setting and remember it.
 * @param {"lang"|"characters"|"squares"|"sound"|"confirmTouch"|"zen"|"boardSize"} key
 * @param {string|boolean|number} value
 */
export function setPref(key, value) {
  if (key === "lang") prefs.lang = String(value);
  else if (key === "boardSize") prefs.boardSize = percent(String(value));
  else prefs[key] = Boolean(value);
  const stored = key === "boardSize" ? String(prefs.boardSize) : typeof value === "boolean" ? (value ? "1" : "0") : String(value);
  try { localStorage.setItem(`kamisado.${key}`, stored); } catch (e) { /* storage full or off */ }
  if (key === "characters") document.body.classList.toggle("characters", prefs.characters);
  if (key === "boardSize") document.documentElement.style.setProperty("--board-scale", String(prefs.boardSize / 100));
  if (key === "zen") document.body.classList.toggle("zen", prefs.zen);
}
