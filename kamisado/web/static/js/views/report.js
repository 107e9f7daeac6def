/* A finished game's report (beside the review and in the match's end):
   per side the blunders, mistakes, inaccuracies and accuracy, each marked
   move a link to it in the review (#/game/<id>/review?ply=N).  The server
   makes it (POST /api/games/<id>/report) and the page reads its progress
   (GET, every second while it is being made). */
import { getJSON, h } from "../dom.js";
import { entryNodes, sideName, t } from "../i18n.js";
import { refusal } from "../refusals.js";

/** @typedef {import("../types.js").GameReport} GameReport */
/** @typedef {import("../types.js").ReportEntry} ReportEntry */

/** How often the progress of a report being made is read (ms). */
const POLL_MS = 1000;

/** @typedef {{game: string, timer: number|undefined, data: GameReport|null, error: string|null}} Shown */
/** The report each box follows. @type {Map<HTMLElement, Shown>} */
const shown = new Map();

/** The link that opens the review at a move. @param {string} game @param {number} ply */
export const reviewHref = (game, ply) => `#/game/${game}/review?ply=${ply}`;

/** Show game `game`'s report in `box` (a `.report` section), and follow it
    while it is being made; nothing new when it already shows that game's.
    @param {HTMLElement} box @param {string} game */
export function showReport(box, game) {
  const was = shown.get(box);
  if (was && was.game === game) { box.hidden = Boolean(was.data && was.data.state === "empty"); return; }
  stopReport(box);  // hidden until the server says there is something to show
  /** @type {Shown} */
  const entry = { game, timer: undefined, data: null, error: null };
  shown.set(box, entry);
  body(box).replaceChildren();
  load(box, entry, false);
}

/** Stop following the report of `box` (and hide it). @param {HTMLElement} box */
export function stopReport(box) {
  const was = shown.get(box);
  if (was) window.clearTimeout(was.timer);
  shown.delete(box);
  box.hidden = true;
}

/** Draw every report shown again (a new language). */
export function rerenderReports() {
  for (const [box, entry] of shown) render(box, entry);
}

/** @param {HTMLElement} box */
const body = (box) => /** @type {HTMLElement} */ (box.querySelector(".report-body"));

/** Read the report (or ask for it: `ask`), draw it, and read it again while it is made.
    @param {HTMLElement} box @param {Shown} entry @param {boolean} ask */
async function load(box, entry, ask) {
  /** @type {GameReport} */
  let data;
  try {
    data = await getJSON(`/api/games/${entry.game}/report`, ask ? { method: "POST" } : undefined);
    entry.error = null;
  } catch (e) {
    if (shown.get(box) !== entry) return;
    entry.error = refusal(e);
    render(box, entry);
    return;
  }
  if (shown.get(box) !== entry) return;
  entry.data = data;
  render(box, entry);
  if (data.state === "queued" || data.state === "running") {
    window.clearTimeout(entry.timer);
    entry.timer = window.setTimeout(() => load(box, entry, false), POLL_MS);
  }
}

/** @param {HTMLElement} box @param {Shown} entry */
function render(box, entry) {
  const out = body(box);
  const data = entry.data;
  const ask = () => {
    const b = h("button", { type: "button", class: "report-ask" }, t("report.ask"));
    b.addEventListener("click", () => {
      /** @type {HTMLButtonElement} */ (b).disabled = true;
      load(box, entry, true);
    });
    return b;
  };
  if (entry.error) {
    box.hidden = false;
    out.replaceChildren(h("p", { class: "report-state" }, t("report.unavailable", { error: entry.error })),
      h("p", { class: "buttons" }, ask()));
    return;
  }
  if (!data) return;
  // a game without moves (an aborted one): nothing to report, no box
  box.hidden = data.state === "empty";
  if (data.state === "empty") out.replaceChildren();
  else if (data.state === "none") out.replaceChildren(h("p", { class: "buttons" }, ask()));
  else if (data.state === "queued") out.replaceChildren(h("p", { class: "report-state" }, t("report.queued")));
  else if (data.state === "running") {
    out.replaceChildren(h("p", { class: "report-state" }, t("report.running", { done: data.done, total: data.total })),
      h("progress", { max: String(data.total), value: String(data.done), "aria-hidden": "true" }));
  } else if (data.state === "failed") {
    out.replaceChildren(h("p", { class: "report-state" }, t("report.failed", { error: data.error || "" })),
      h("p", { class: "buttons" }, ask()));
  } else if (data.report) out.replaceChildren(...figures(entry.game, data.report));
}

/** The table of both sides' figures, then each side's marked moves as links.
    @param {string} game @param {NonNullable<GameReport["report"]>} report */
function figures(game, report) {
  // a row a figure, a column a side (narrow enough for a phone in every language)
  const head = h("tr", {}, h("th", { scope: "col" }, t("report.side")),
    ...report.sides.map((s) => h("th", { scope: "col" }, sideName(s.side))));
  /** @type {[string, string, (s: import("../types.js").ReportSide) => string][]} */
  const figs = [
    ["accuracy", "report.accuracy", (s) => (s.accuracy === null ? "–" : `${s.accuracy.toFixed(1)}%`)],
    ["blunders", "report.blunders", (s) => String(s.blunders)],
    ["mistakes", "report.mistakes", (s) => String(s.mistakes)],
    ["inaccuracies", "report.inaccuracies", (s) => String(s.inaccuracies)],
  ];
  const rows = figs.map(([cls, key, value]) => h("tr", { class: cls }, h("th", { scope: "row" }, t(key)),
    ...report.sides.map((s) => h("td", { class: cls, "data-side": s.side }, value(s)))));
  const table = h("table", { class: "report-table" }, h("thead", {}, head), h("tbody", {}, ...rows));
  const marked = report.entries.filter((e) => e.kind);
  if (!marked.length) return [table, h("p", {}, t("report.clean"))];
  const lists = report.sides.map((s) => {
    const own = marked.filter((e) => e.side === s.side);
    if (!own.length) return null;
    return h("ul", { class: "report-moves", "data-side": s.side, "aria-label": t("report.moves_of", { side: sideName(s.side) }) },
      ...own.map((e) => h("li", { class: e.kind }, link(game, e))));
  }).filter((x) => x !== null);
  return [table, .../** @type {HTMLElement[]} */ (lists)];
}

/** A marked move as a link to it, worded as the move list words it:
    "Move 1: Gold Green Right 6 Purple ?? blunder"; its tooltip the square
    form and the mover's chance before and after (a blunder: the win it threw away).
    @param {string} game @param {ReportEntry} e */
function link(game, e) {
  const own = (e.entries || []).find((x) => x.kind === "move");
  const why = e.kind === "blunder" ? t("review.blunder", { n: e.lost ?? "?" }) : `${e.before.toFixed(0)}% → ${e.after.toFixed(0)}%`;
  return h("a", { href: reviewHref(game, e.ply), title: `${e.move}: ${why}` }, h("span", {},
    `${t("report.move", { n: e.ply })}: ${sideName(e.side)} `, own ? entryNodes(own) : e.move,
    ` ${e.mark} ${t(`report.kind.${e.kind}`)}`));
}
