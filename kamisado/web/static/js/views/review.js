/* Review: a finished or saved game, position by position, with the
   engine's view of each. */
import { $, chartQuery, getJSON, h } from "../dom.js";
import { SIDE_FILL } from "../board.js";
import * as engine from "../engine.js";
import { entryNodes, matchName, otherSide, sideName, t, tn } from "../i18n.js";
import { announce, board, panelParts, ringsOf, setStatus, Stepper, toMoveNodes } from "./play.js";
import { showReport, stopReport } from "./report.js";
import { moveEntry } from "../movelist.js";
import { showMissing } from "./missing.js";

/** @typedef {import("../types.js").Step} Step */
/** @typedef {import("../types.js").ReviewMark} ReviewMark */
/** @typedef {import("../types.js").RoundEnd} RoundEnd */
/** @typedef {import("../types.js").AnalysisLine} AnalysisLine */

/** @type {string|null} */
let reviewId = null;
/** The marks of the game under review, by step (the server's, once they come).
    @type {Map<number, ReviewMark>} */
const marks = new Map();
/** The ends of the game's rounds, by step: Black's chance to win the match
    before and after each (the server's, with the marks).
    @type {Map<number, RoundEnd>} */
const ends = new Map();
/** How many best moves the analysis panel shows (MultiPV). */
const LINES = 3;

const stepper = new Stepper((s, i) => {
  const where = $("#rv-where");
  const at = t("history.where", { round: s.round, n: s.ply });
  where.replaceChildren(s.ply ? at.charAt(0).toUpperCase() + at.slice(1) : t("review.start", { n: s.round }));
  const own = s.entries.find((e) => e.kind === "move");
  if (own) where.append(": ", sideName(own.side), " ", entryNodes(own));
  // an uploaded record's comment on the move (score/depth, time, clocks):
  // as the record writes it, its words as the tooltip
  if (s.comment) where.append(" ", h("span", { class: "comment", title: s.comment.words }, `{${s.comment.text}}`));
  paintMarks(i);
  if (s.outcome) setStatus(t("game.winner_round", { side: sideName(s.outcome.winner) }));
  else setStatus(toMoveNodes(s.turn, s.must, ringsOf(s.towers, s.turn, s.must), false));
  paintEquity(i);
  announce("");
  markGraph(i);
  analyse(s, i);
});

/** Open a game's review, at the position after the match's `ply`-th move
    when given (else at its end), with its report beside it.
    @param {string} id @param {number|null} [ply] */
export async function openReview(id, ply = null) {
  reviewId = id;
  panelParts("review");
  $("#download").setAttribute("href", `/api/games/${id}/record`);
  $("#download-gif").setAttribute("href", `/api/games/${id}/match.gif`);
  $("#rv-graph").replaceChildren();
  marks.clear();
  ends.clear();
  $(".seat-top").textContent = "";
  $(".seat-bottom").textContent = "";
  board.setFlip(false);
  let data;
  try { data = await stepper.load(id); } catch (e) {
    if (reviewId !== id) return;
    if (/** @type {{status?: number}} */ (e).status === 404) showMissing("review", id);
    else setStatus(t("game.not_found"));
    return;
  }
  if (reviewId !== id) return;
  paintMatchInfo();
  for (const [cls, side] of [["seat-top", "g"], ["seat-bottom", "b"]]) {
    const dot = h("span", { class: "dot", "aria-hidden": "true" });
    dot.style.background = SIDE_FILL[side];
    const name = data.seats && data.seats[side];
    $(`.${cls}`).replaceChildren(dot, h("span", { class: "name" }, name && name !== (side === "b" ? "Black" : "Gold")
      ? `${name} (${sideName(side)})` : sideName(side)));
  }
  $("#play-title").textContent = `${t("review.title")}: ${data.seats ? `${data.seats.b} – ${data.seats.g}` : data.name}`;
  const at = ply === null ? null : stepOfPly(ply);
  stepper.show(at === null ? stepper.last : at);
  // a finished game's report (one still playing has none yet)
  if (data.over) showReport($("#rv-report"), id); else stopReport($("#rv-report"));
  loadGraph(id);
  loadMarks(id);
}

/** The step of the position after the match's `ply`-th move (moves counted
    across its rounds, from 1), or null when it has fewer. @param {number} ply */
function stepOfPly(ply) {
  let n = 0;
  for (let i = 0; i < stepper.steps.length; i++) {
    const s = stepper.steps[i];
    if (s.move && s.ply > 0 && ++n === ply) return i;
  }
  return null;
}

/** The match's type and score, named as the game view names them
    ("Standard match (3 points) · Score 1–0"), in the page's language. */
function paintMatchInfo() {
  const data = stepper.data;
  if (!data) return;
  $("#match-info").textContent = `${matchName(data)} · ${t("game.score")} ${data.points[0]}–${data.points[1]}`;
}

/** The marks of the game's moves: the server proves which moves threw away
    a won round (the page knows no rules). @param {string} id */
async function loadMarks(id) {
  /** @type {{marks: ReviewMark[], rounds?: RoundEnd[]}} */
  let data;
  try { data = await getJSON(`/api/games/${id}/review`); } catch (e) { return; }
  if (reviewId !== id) return;
  marks.clear();
  for (const m of data.marks) marks.set(m.step, m);
  ends.clear();
  for (const e of data.rounds || []) ends.set(e.step, e);
  if (stepper.steps.length) { paintMarks(stepper.i); paintEquity(stepper.i); }
}

/** A chance as whole percent; one not yet certain never shows as 0% or 100%.
    @param {number} p */
function percent(p) {
  const n = Math.round(100 * p);
  return `${p > 0 && p < 1 ? Math.min(99, Math.max(1, n)) : n}%`;
}

/** At the step that ends a round, what the round did to the match: Black's
    chance to win it before and after, after the status's "wins the round".
    @param {number} shown */
function paintEquity(shown) {
  const e = ends.get(shown);
  const status = $("#status");
  if (!e || status.querySelector(".equity")) return;
  status.append(" · ", h("span", { class: "equity" },
    t("review.equity", { side: sideName("b"), before: percent(e.before), after: percent(e.after) })));
}

/** The "??" of a move that threw away a proven win, with its words for
    screen readers and a tooltip. @param {ReviewMark} m */
function markNode(m) {
  const thrown = m.lost === null && m.match && m.match.before === m.side && m.match.after && m.match.after !== m.side;
  const label = thrown ? t("review.blunder_match") : t("review.blunder", { n: m.lost ?? "?" });
  return h("span", { class: "mark blunder", role: "img", "aria-label": label, title: label }, m.mark);
}

/** Write each marked move's "??" into the move list (drawn afresh at every
    step), and after the move of step `shown` when it is marked. @param {number} shown */
function paintMarks(shown) {
  const here = marks.get(shown);
  const where = $("#rv-where");
  if (here && here.mark && !where.querySelector(".mark")) where.append(" ", markNode(here));
  // the match proven from here (the server's match proof store covers the position)
  const proven = here && here.match && (here.match.after || here.match.before);
  if (proven && !where.querySelector(".proven")) {
    where.append(" · ", h("span", { class: "proven" }, t("review.proven", { side: sideName(proven) })));
  }
  for (const [i, m] of marks) {
    if (!m.mark) continue;
    const s = stepper.steps[i];
    const keys = stepper.keysOf[i];
    if (!s || !keys) continue;
    const k = s.entries.findIndex((e) => e.kind === "move");
    const key = [...keys][k];
    const item = key === undefined ? null : document.querySelector(`#moves .entry[data-key="${key}"]`);
    if (item && !item.querySelector(".mark")) item.append(" ", markNode(m));
  }
}

/** The evaluation graph of the game under review: the server's SVG, put
    into the page as nodes (not a script), each point a way to its position.
    @param {string} id */
async function loadGraph(id) {
  const box = $("#rv-graph");
  box.textContent = t("review.analysing");
  let text;
  try {
    const r = await fetch(`/api/games/${id}/evaluations.svg?${chartQuery(box)}`);
    if (!r.ok) throw new Error(String(r.status));
    text = await r.text();
  } catch (e) { if (reviewId === id) box.textContent = t("review.unavailable"); return; }
  if (reviewId !== id) return;
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg") { box.textContent = t("review.unavailable"); return; }
  const graph = document.importNode(root, true);
  graph.removeAttribute("width");
  graph.removeAttribute("height");
  graph.setAttribute("aria-label", t("review.graph_label"));
  graph.addEventListener("click", (ev) => {
    const point = /** @type {Element} */ (ev.target).closest("[data-ply]");
    const ply = point ? Number(point.getAttribute("data-ply")) : NaN;
    if (Number.isInteger(ply) && ply >= 0 && ply <= stepper.last) stepper.show(ply);
  });
  box.replaceChildren(graph);
  markGraph(stepper.i);
}

/** Ring the graph's point of step ``i`` (the graph's points are the steps, in order). @param {number} i */
function markGraph(i) {
  for (const c of document.querySelectorAll("#rv-graph [data-ply]")) {
    c.classList.toggle("current", c.getAttribute("data-ply") === String(i));
  }
}

/** Leave review (its analysis in the page stops). */
export function leaveReview() {
  if (reviewId !== null) engine.stop();
  reviewId = null;
  analysisRun++;
}
/** Whether review is showing. */
export const inReview = () => reviewId !== null;

/** "Black wins in 5 moves (proven)", or "with the next move" for one.
    @param {{side: string, n: number}} args */
const winsIn = (args) => t(args.n === 1 ? "review.wins_in_one" : "review.wins_in", args);

/** @type {number|undefined} */
let analyseTimer;
/** The analysis in the page: the search's time, then the solver's (ms). */
const LOCAL_SEARCH_MS = 3000;
const LOCAL_SOLVE_MS = 10000;
/** Whether the page's engine failed once (then the server analyses). */
let localFailed = false;
/** The analysis running, counted: an answer for an earlier one is dropped. */
let analysisRun = 0;

/** Analyse the position of step `i`: in the page's engine (engine.js) where
    it runs, else on the server (/api/analyse).  @param {Step} s @param {number} i */
function analyse(s, i) {
  window.clearTimeout(analyseTimer);
  const run = ++analysisRun;
  engine.stop();
  const box = $("#analysis");
  box.textContent = t("review.analysing");
  box.removeAttribute("data-solved");
  box.setAttribute("aria-busy", "false");
  const list = document.getElementById("rv-lines");
  if (list) list.hidden = true;
  analyseTimer = window.setTimeout(() => {
    if (s.outcome) { box.textContent = t("review.over"); return; }
    if (engine.supported() && !localFailed) analyseHere(s, i, run);
    else analyseOnServer(s, i);
  }, 200);
}

/** A score of the page's engine as the server's analysis words it.
    @param {{kind: string, value: number}} v */
const kindOf = (v) => ({ kind: v.kind === "cp" ? "eval" : v.kind, value: v.value });

/** The analysis in the page: a MultiPV search that shows each finished
    depth, then the solver; both end when the position changes (analyse
    stops the engine).  @param {Step} s @param {number} i @param {number} run */
async function analyseHere(s, i, run) {
  const box = $("#analysis");
  box.title = t("review.in_browser");
  // a live region: screen readers hear the finished analysis, not every depth
  box.setAttribute("aria-busy", "true");
  const current = () => run === analysisRun && reviewId !== null && stepper.i === i;
  /** @type {import("../engine.js").SearchAnswer|null} */
  let shown = null;
  /** @type {{winner: string, distance: number}|null} */
  let solved = null;
  const paint = (/** @type {boolean} */ done) => {
    if (!current() || !shown) return;
    const out = document.createDocumentFragment();
    if (shown.best) {
      const span = h("span", { title: shown.best });
      span.append(entryNodes(moveEntry(s.towers, s.turn, shown.best)));
      out.append(tn("review.best", { move: span }));
    }
    const v = kindOf(shown.value);
    if (solved) out.append(" · ", winsIn({ side: sideName(solved.winner), n: solved.distance }));
    else if (v.kind !== "eval") out.append(" · ", winsIn({ side: sideName(v.kind === "win" ? s.turn : otherSide(s.turn)), n: v.value }));
    else out.append(" · ", t("review.eval", { side: sideName(s.turn), score: v.value }));
    out.append(" · ", t("review.depth", { n: shown.depth }) + (done ? "" : "…"));
    box.replaceChildren(out);
    showLines(shown.lines.map((line) => ({ move: line.pv[0], pv: line.pv, entries: [moveEntry(s.towers, s.turn, line.pv[0])],
      ...kindOf(engine.readScore(line.score)) })), s.turn);
    board.marks({ must: s.must, turn: s.turn, last: s.move ? { move: s.move, pushed: s.pushed || [] } : null,
      highlight: shown.best ? shown.best.split("-") : [] });
  };
  try {
    shown = await engine.search(s.kpn, { time: LOCAL_SEARCH_MS, multipv: LINES,
      onDepth: (d) => { shown = d; paint(false); } });
    if (!current()) return;
    paint(false);
    const r = await engine.solve(s.kpn, { time: LOCAL_SOLVE_MS, pv: false });
    if (!current()) return;
    if (r.winner !== null && r.distance !== null) {
      solved = { winner: r.winner, distance: r.distance };
      box.dataset.solved = `${r.winner}:${r.distance}`;
    }
    paint(true);
    box.setAttribute("aria-busy", "false");
  } catch (e) {
    if (e instanceof Error && "stopped" in e) return;
    if (!current()) return;
    box.setAttribute("aria-busy", "false");
    localFailed = true;  // no WebAssembly here after all: the server analyses
    analyseOnServer(s, i);
  }
}

/** The server's analysis of step `i` (pages without the page's engine).
    @param {Step} s @param {number} i */
async function analyseOnServer(s, i) {
  const box = $("#analysis");
  let a;
  try { a = await getJSON(`/api/analyse?kpn=${encodeURIComponent(s.kpn)}&ms=400&lines=${LINES}`); }
  catch (e) { if (stepper.i === i) box.textContent = t("review.unavailable"); return; }
  if (!reviewId || stepper.i !== i) return;
  if (a.over) { box.textContent = t("review.over"); return; }
  const out = document.createDocumentFragment();
  const best = (a.best_entries || [])[0];
  if (best) {
    const words = entryNodes(best);
    const span = document.createElement("span");
    span.title = a.best;
    span.append(words);
    out.append(tn("review.best", { move: span }));
  }
  if (a.solved) out.append(" · ", winsIn({ side: sideName(a.solved.winner), n: a.solved.distance }));
  else if (a.kind !== "eval") out.append(" · ", winsIn({ side: sideName(a.kind === "win" ? a.side : otherSide(a.side)), n: a.moves }));
  else out.append(" · ", t("review.eval", { side: sideName(a.side), score: a.score }));
  box.replaceChildren(out);
  showLines(a.lines || [], a.side);
  board.marks({ must: s.outcome ? null : s.must, turn: s.turn, last: s.move ? { move: s.move, pushed: s.pushed || [] } : null,
    highlight: a.best ? a.best.split("-") : [] });
}

/** The best moves of the position shown (MultiPV), each with its score and
    the side it is for, under the analysis.
    @param {AnalysisLine[]} lines @param {string} side the side to move */
function showLines(lines, side) {
  let list = document.getElementById("rv-lines");
  if (!list) {
    list = h("ol", { id: "rv-lines", class: "rv-lines" });
    $("#analysis").after(list);
  }
  list.setAttribute("aria-label", t("review.lines"));
  list.replaceChildren(...lines.map((line) => {
    const move = h("span", { class: "line-move", title: line.pv.join(" ") });
    const entry = line.entries[0];
    if (entry) move.append(entryNodes(entry)); else move.append(line.move);
    const score = line.kind === "eval" ? t("review.eval", { side: sideName(side), score: line.value })
      : winsIn({ side: sideName(line.kind === "win" ? side : otherSide(side)), n: line.value });
    return h("li", {}, move, " · ", score);
  }));
  list.hidden = lines.length === 0;
}

/** Review's keys: the arrows step too (the board takes no moves here). @param {KeyboardEvent} ev */
export function reviewKey(ev) { stepper.key(ev, true); }
/** The step buttons. @param {string} which */
export function reviewStep(which) {
  const to = { first: 0, prev: stepper.i - 1, next: stepper.i + 1, last: stepper.last }[which];
  if (to !== undefined) stepper.show(to);
}
/** Redraw in a new language. */
export function rerenderReview() {
  if (!reviewId || !stepper.steps.length) return;
  paintMatchInfo();
  stepper.show(stepper.i);
}
