/* Small DOM helpers shared by every module. */

/**
 * The one element matching `sel`; throws when the page lacks it (a page
 * and script out of step is a bug, not a state to carry on in).
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} sel
 * @returns {T}
 */
export function $(sel) {
  const found = document.querySelector(sel);
  if (!found) throw new Error(`the page has no ${sel}`);
  return /** @type {T} */ (/** @type {unknown} */ (found));
}

/**
 * Every element matching `sel`.
 * @param {string} sel
 * @returns {HTMLElement[]}
 */
export const $$ = (sel) => /** @type {HTMLElement[]} */ (Array.from(document.querySelectorAll(sel)));

/**
 * Make an HTML element: `h("a", {href: "#/"}, "Home")`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {...(Node|string)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

export const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Make an SVG element with attributes, appended to `parent` when given.
 * @param {string} tag
 * @param {Record<string, string|number>} [attrs]
 * @param {Element} [parent]
 * @returns {SVGElement}
 */
export function svg(tag, attrs, parent) {
  const e = /** @type {SVGElement} */ (document.createElementNS(SVG_NS, tag));
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * Fetch JSON; a refusal becomes an Error carrying the server's message, the
 * answer's `status` (404: nothing there) and its `code` and `args` (what
 * `refusal` in refusals.js says in the page's language).
 * @param {string} url
 * @param {RequestInit} [init]
 * @returns {Promise<any>}
 */
export async function getJSON(url, init) {
  const r = await fetch(url, init);
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) {
    throw Object.assign(new Error((body && body.error) || `${r.status} ${r.statusText}`),
      { status: r.status, code: body && body.code, args: body && body.args });
  }
  return body;
}

/**
 * The query that has the server draw a chart at the width `box` is shown at
 * (so its 11 px text stays 11 px on a phone) in the page's language:
 * "width=358&lang=de".  A box not laid out yet counts as the screen's width.
 * @param {Element} box
 * @returns {string}
 */
export function chartQuery(box) {
  const shown = box.getBoundingClientRect().width || Math.min(window.innerWidth - 24, 720);
  const width = Math.max(280, Math.min(1200, Math.round(shown)));
  return `width=${width}&lang=${encodeURIComponent(document.documentElement.lang || "en")}`;
}
