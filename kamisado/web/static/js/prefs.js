/* The player's settings, kept in this browser: language, Chinese characters
   (the colour-blind mode), squares in the move list. */

/** @param {string} key @param {string} fallback */
const load = (key, fallback) => localStorage.getItem(`kamisado.${key}`) ?? fallback;

export const prefs = {
  lang: load("lang", "en"),
  characters: load("characters", "0") === "1",
  squares: load("squares", "0") === "1",
  sound: load("sound", "0") === "1",
};

/**
 * Change a setting and remember it.
 * @param {"lang"|"characters"|"squares"|"sound"} key
 * @param {string|boolean} value
 */
export function setPref(key, value) {
  if (key === "lang") prefs.lang = String(value);
  else prefs[key] = Boolean(value);
  localStorage.setItem(`kamisado.${key}`, typeof value === "boolean" ? (value ? "1" : "0") : value);
  if (key === "characters") document.body.classList.toggle("characters", prefs.characters);
}
