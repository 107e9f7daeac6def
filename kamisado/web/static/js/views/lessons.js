/* The rulebook's lessons and the solver's puzzles. */
import { $, getJSON, h } from "../dom.js";
import { colourNode, pushNodes, sideName, t, tn } from "../i18n.js";
import { prefs } from "../prefs.js";
import { announce, board, lessonBoards, panelParts, setStatus } from "./play.js";
import { localPosition } from "./local.js";
import { showMissing } from "./missing.js";

/**
 * @typedef {{kind: string, kpn: string, text?: string, move?: string, hint?: string,
 *   solution?: string[], highlight?: string[], fill?: Record<string, string>}} LessonStep
 * @typedef {{id: string, title: string, figure?: number, side?: string, win_in?: number,
 *   kpn?: string, text?: string, solution?: string[], steps: LessonStep[]}} LessonData
 * @typedef {import("../types.js").PositionView & {push?: boolean, last?: any}} Pos
 */

/** @type {{data: LessonData, i: number, kind: string, step?: LessonStep, pos?: Pos, side?: string, ids: string[]}|null} */
let lesson = null;

/** The list of lessons or puzzles. @param {"lessons"|"puzzles"} kind */
export async function showList(kind) {
  const items = await getJSON(`/api/${kind}?lang=${prefs.lang}`);
  const ul = $(`#${kind === "lessons" ? "lesson" : "puzzle"}-list`);
  ul.innerHTML = "";
  $(`#${kind}-empty`).hidden = items.length > 0;
  for (const it of items) {
    const text = kind === "lessons" ? `${t("lessons.figure", { n: it.figure })}: ${it.title}`
      : t("puzzles.win_in", { side: sideName(it.side), n: it.win_in });
    ul.append(h("li", {}, h("a", { href: `#/${kind === "lessons" ? "lesson" : "puzzle"}/${it.id}` }, text)));
  }
}

/**
 * Open a lesson or a puzzle.
 * @param {"lesson"|"puzzle"} kind
 * @param {string} id
 */
export async function openLesson(kind, id) {
  panelParts("lesson");
  $(".seat-top").textContent = "";
  $(".seat-bottom").textContent = "";
  const items = await getJSON(`/api/${kind === "lesson" ? "lessons" : "puzzles"}?lang=${prefs.lang}`);
  /** @type {LessonData|undefined} */
  const data = items.find((/** @type {LessonData} */ x) => x.id === id);
  if (!data) {
    if (decodeURIComponent(location.hash.split("?")[0]) === `#/${kind}/${id}`) showMissing(kind, id);
    return;
  }
  if (kind === "puzzle") {
    data.title = t("puzzles.win_in", { side: sideName(data.side || "b"), n: data.win_in || 0 });
    data.steps = [{ kind: "puzzle", kpn: data.kpn || "", text: data.text, solution: data.solution, highlight: [] }];
  }
  lesson = { data, i: 0, kind, ids: items.map((/** @type {LessonData} */ x) => x.id) };
  $("#lesson-title").textContent = data.figure ? `${t("lessons.figure", { n: data.figure })}: ${data.title}` : data.title;
  $("#play-title").textContent = $("#lesson-title").textContent;
  await lessonStep(0);
}

/** A position (after a move): the server's answer, kept by the service worker for the
 * lessons' own positions; offline, one it does not hold (a wrong move tried) is the page's engine's.
 * @param {string} kpn @param {string} [move] @returns {Promise<Pos>} */
async function position(kpn, move) {
  try {
    return await getJSON(`/api/position?kpn=${encodeURIComponent(kpn)}` + (move ? `&move=${encodeURIComponent(move)}` : ""));
  } catch (e) {
    if (navigator.onLine) throw e;
    return localPosition(kpn, move);
  }
}

/** @param {number} i */
async function lessonStep(i) {
  if (!lesson) return;
  const steps = lesson.data.steps;
  lesson.i = Math.max(0, Math.min(steps.length - 1, i));
  const step = steps[lesson.i];
  lesson.step = step;
  const lastStep = lesson.i === steps.length - 1;
  $("#lesson-step").textContent = t("lessons.step", { n: lesson.i + 1, total: steps.length });
  $("#lesson-text").textContent = step.text || "";
  $("#lesson-text").dataset.kind = step.kind;
  $("#lesson-feedback").textContent = "";
  $("#lesson-fill").hidden = step.kind !== "fill";
  $("#lesson-after").hidden = true;
  /** @type {HTMLButtonElement} */ ($("#ls-next")).disabled = false;
  setStatus("");
  announce("");
  const pos = await position(step.kpn);
  if (lesson.step !== step) return;
  lesson.pos = pos;
  if (step.kind === "puzzle") lesson.side = lesson.data.side || pos.turn;
  board.setFlip(step.kind === "puzzle" && lesson.side === "g");
  board.setTowers(pos.towers);
  const interactive = step.kind === "play" || step.kind === "puzzle";
  board.marks({ legal: interactive ? pos.legal : {}, must: pos.must, turn: pos.turn, highlight: step.highlight });
  if (interactive) setStatus(t("lessons.your_turn"));
  if (lastStep && !interactive) finishLesson();
  if (step.kind === "move" && step.move) {
    const mv = step.move;
    setTimeout(async () => {
      if (!lesson || lesson.step !== step) return;
      const after = await position(step.kpn, mv);
      showAfter(after, mv, step.highlight);
    }, 700);
  }
  if (step.kind === "fill" && step.fill) {
    for (const d of /** @type {const} */ (["left", "right"])) {
      const p = await position(step.fill[d]);
      lessonBoards[d].setTowers(p.towers);
      lessonBoards[d].marks({});
    }
  }
}

/** Draw a position after a move, with the move's marks and words.
 * @param {Pos} after @param {string} mv @param {string[]} [highlight] */
function showAfter(after, mv, highlight) {
  board.setTowers(after.towers);
  const last = after.last || { move: mv, pushed: [] };
  board.marks({ must: after.outcome ? null : after.must, turn: after.turn, last: { move: last.move, pushed: last.pushed || [] }, highlight });
  const out = document.createDocumentFragment();
  if (last.push && last.mover) out.append(pushNodes(last.mover, last.pushed, after.outcome ? null : after.must), " ");
  for (const p of after.passes) out.append(tn("game.pass", { side: sideName(p.side), colour: colourNode(p.colour) }), " ");
  announce(out);
}

/** The way on after a lesson's last step: the next lesson, or a first game. */
function finishLesson() {
  if (!lesson || lesson.kind !== "lesson") return;
  $("#lesson-feedback").textContent = t("lessons.done");
  const next = lesson.ids[lesson.ids.indexOf(lesson.data.id) + 1];
  const a = $("#lesson-next-lesson");
  a.hidden = !next;
  if (next) a.setAttribute("href", `#/lesson/${next}`);
  $("#lesson-after").hidden = false;
  /** @type {HTMLButtonElement} */ ($("#ls-next")).disabled = true;
}

/** A move made on the board during a lesson or puzzle. @param {string} mv */
export async function lessonMove(mv) {
  if (!lesson || !lesson.step || !lesson.pos) return;
  const step = lesson.step;
  const before = lesson.pos;
  const after = await position(before.kpn, mv);
  showAfter(after, mv);
  if (step.kind === "play") {
    if (mv === step.move) {
      $("#lesson-feedback").textContent = t("lessons.right");
      lesson.pos = after;
      if (lesson.i === lesson.data.steps.length - 1) finishLesson();
    } else {
      $("#lesson-feedback").textContent = step.hint || t("lessons.try_again");
      setTimeout(() => {   // taken back
        board.setTowers(before.towers);
        board.marks({ legal: before.legal, must: before.must, turn: before.turn, highlight: step.highlight });
      }, 900);
    }
    return;
  }
  // a puzzle: the server answers with the solver's best defence
  lesson.pos = after;
  if (after.outcome) { finishPuzzle(after); return; }
  setStatus(t("puzzles.defending"));
  const reply = await getJSON(`/api/reply?kpn=${encodeURIComponent(after.kpn)}`);
  const next = await position(after.kpn, reply.move);
  lesson.pos = next;
  showAfter(next, reply.move);
  if (next.outcome) { finishPuzzle(next); return; }
  board.marks({ legal: next.legal, must: next.must, turn: next.turn, last: { move: reply.move, pushed: next.last ? next.last.pushed : [] } });
  setStatus(t("lessons.your_turn"));
}

/** @param {Pos} p */
function finishPuzzle(p) {
  if (!lesson || !p.outcome) return;
  board.marks({ must: null, last: p.last ? { move: p.last.move, pushed: p.last.pushed } : null });
  const won = p.outcome.winner === lesson.side;
  setStatus(won ? t("puzzles.solved") : t("puzzles.failed"));
  if (won && lesson.i === lesson.data.steps.length - 1) finishLesson();
  if (!won || lesson.kind !== "lesson") $("#lesson-feedback").textContent = won ? t("lessons.right") : t("lessons.try_again");
}

$("#ls-prev").addEventListener("click", () => lesson && lessonStep(lesson.i - 1));
$("#ls-next").addEventListener("click", () => {
  if (!lesson) return;
  if (lesson.i === lesson.data.steps.length - 1) finishLesson();
  else lessonStep(lesson.i + 1);
});
$("#ls-replay").addEventListener("click", () => lesson && lessonStep(lesson.i));

/** Leave the lesson. */
export function leaveLesson() { lesson = null; }
/** Whether a lesson or puzzle is showing. */
export const inLesson = () => lesson !== null;
/** Redraw in a new language (the lesson's texts come in it). */
export function rerenderLesson() { if (lesson) openLesson(/** @type {"lesson"|"puzzle"} */ (lesson.kind), lesson.data.id); }
