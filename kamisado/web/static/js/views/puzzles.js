/* The puzzle trainer: the list, one puzzle judged move by move on the
   server, ratings, "Retry", "View the solution", "Next puzzle", and the
   streak (#/puzzles/streak).  The board knows no rules: the server says
   whether a move is right and answers with the defender's reply.  A wrong
   move is only called wrong: the answer comes when the player asks for it
   (or with the miss that ends a streak), as on lichess.  Moves are written
   in the rulebook's words, as the move list writes them. */
import { $, getJSON, h } from "../dom.js";
import { entryText, sideName, t } from "../i18n.js";
import { refusal } from "../refusals.js";
import { moveEntry } from "../movelist.js";
import { prefs } from "../prefs.js";
import { announce, board, panelParts, setStatus } from "./play.js";
import { Board } from "../board.js";
import { currentMe } from "./account.js";
import { legalMoves, play, search, solve, stop } from "../engine.js";
import { localPosition } from "./local.js";
import { showMissing } from "./missing.js";

/**
 * @typedef {{id: string, kind: string, side: string, win_in: number|null, themes: string[],
 *   rating: number, attempts: number, solved: number, kpn: string, text: string,
 *   source: {origin: string, text: string}, fill?: {left: string, right: string}}} Puzzle
 * @typedef {{attempt: number, rated: boolean, streak: string|null, puzzle: Puzzle,
 *   count?: number, best?: number}} Started
 * @typedef {import("../types.js").PositionView & {last?: any}} Pos
 */

/**
 * A puzzle played offline: judged in the page as the server judges it (the
 * first move against the accepted ones shipped in the cached set, later
 * moves by the page's solver), unrated and not stored.
 * @typedef {{accepted: string[], solution: string[], played: string[]}} Local
 * @typedef {Puzzle & {accepted: string[], solution: string[]}} OfflinePuzzle
 */

/** @type {{puzzle: Puzzle, attempt: number, rated: boolean, streak: string|null,
 *   count: number, best: number, pos: Pos|null, over: boolean, solution: string[], busy: boolean,
 *   local?: Local}|null} */
let pz = null;

/** Whether the puzzles come from the cached set (the browser is offline). */
const offline = () => !navigator.onLine;

/** The cached puzzle set (every puzzle, with its accepted first moves), easiest first.
 * @returns {Promise<OfflinePuzzle[]>} */
async function offlineSet() {
  return (await getJSON(`/api/offline/puzzles?lang=${prefs.lang}`)).puzzles;
}
let listOffset = 0;

/** @param {string} sel */
const mini = (sel) => new Board(/** @type {SVGSVGElement} */ (/** @type {unknown} */ ($(sel))), { mini: true });
const fillBoards = { left: mini("#puzzle-left"), right: mini("#puzzle-right") };

/** The language the last puzzle was asked for in. */
let askedLang = "";
/** A URL of the puzzles' API asking for the page's language. @param {string} url */
const inLang = (url) => { askedLang = prefs.lang; return `${url}${url.includes("?") ? "&" : "?"}lang=${prefs.lang}`; };

/** @param {string} url @param {object} [body] */
const post = (url, body) => getJSON(inLang(url), {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
});

/** @param {string} kpn @param {string} [move] @returns {Promise<Pos>} */
function position(kpn, move) {
  if (offline()) return localPosition(kpn, move);  // the page's engine: no server to ask
  return getJSON(`/api/position?kpn=${encodeURIComponent(kpn)}` + (move ? `&move=${encodeURIComponent(move)}` : ""));
}

/** A kind's name. @param {string} kind */
const kindName = (kind) => t(`puzzles.kind_${kind}`);

/** The puzzle list, with the player's progress. */
export async function showPuzzleList(more = false) {
  const kind = /** @type {HTMLSelectElement} */ ($("#puzzle-kind")).value;
  if (!more) listOffset = 0;
  const [list, me] = offline()
    ? [await offlineList(kind, listOffset), null]
    : await Promise.all([
      getJSON(`/api/puzzles?limit=100&offset=${listOffset}` + (kind ? `&kind=${kind}` : "")),
      more ? Promise.resolve(null) : getJSON("/api/me/puzzles"),
    ]);
  if (offline()) $("#puzzle-progress").textContent = t("puzzles.offline");
  if (me) {
    $("#puzzle-progress").textContent = t("puzzles.progress", {
      rating: me.rating ? String(me.rating.rating) : t("puzzles.no_rating"), solved: me.solved, best: me.best_streak });
  }
  const ul = $("#puzzle-list");
  if (!more) ul.innerHTML = "";
  $("#puzzles-empty").hidden = list.total > 0;
  $("#puzzle-count").textContent = t("puzzles.count", { n: list.total });
  for (const it of list.puzzles) {
    const title = it.win_in && it.kind !== "only_defence"
      ? t("puzzles.win_in", { side: sideName(it.side), n: it.win_in }) : kindName(it.kind);
    // the start position as a small picture: drawn once on the server, kept by the browser
    const thumb = offline() ? h("span", { class: "thumb", "aria-hidden": "true" })
      : h("img", { class: "thumb", src: `/api/puzzles/${encodeURIComponent(it.id)}/board.svg?size=160`,
        width: "72", height: "72", loading: "lazy", alt: t("puzzles.thumb") });
    ul.append(h("li", {}, h("a", { href: `#/puzzle/${it.id}` }, thumb,
      h("span", { class: "card-words" }, h("strong", {}, title),
        h("span", { class: "hint" }, t("puzzles.item", { kind: kindName(it.kind), rating: it.rating }))))));
  }
  listOffset += list.puzzles.length;
  $("#puzzle-more").hidden = listOffset >= list.total;
}
$("#puzzle-kind").addEventListener("change", () => showPuzzleList());
$("#puzzle-more").addEventListener("click", () => showPuzzleList(true));
$("#puzzle-filter").addEventListener("submit", (ev) => ev.preventDefault());
$("#puzzle-next-rated").addEventListener("click", () => nextPuzzle());

/** A page of the cached set, as /api/puzzles answers it. @param {string} kind @param {number} offset */
async function offlineList(kind, offset) {
  const all = (await offlineSet()).filter((p) => !kind || p.kind === kind);
  return { total: all.length, puzzles: all.slice(offset, offset + 100) };
}

/** Open a puzzle: a new attempt (rated only when it is the first). @param {string} id */
export async function openPuzzle(id) {
  prepare();
  if (offline()) {  // from the cached set, judged here
    const p = (await offlineSet()).find((x) => x.id === id);
    if (!p) { missing(id); return; }
    start({ attempt: -Date.now(), rated: false, streak: null, puzzle: p },
      { accepted: p.accepted, solution: p.solution, played: [] });
    return;
  }
  try { start(await post(`/api/puzzles/${encodeURIComponent(id)}/attempts`)); } catch (e) {
    if (/** @type {{status?: number}} */ (e).status === 404) missing(id);
    else setStatus(t("game.not_found"));
  }
}

/** No puzzle `id`: said in place of the board, while the page still asks for it. @param {string} id */
function missing(id) {
  if (decodeURIComponent(location.hash.split("?")[0]) === `#/puzzle/${id}`) showMissing("puzzle", id);
}

/** Start a streak: its first, easiest puzzle. */
export async function openStreak() {
  prepare();
  if (offline()) { setStatus(t("puzzles.streak_offline")); return; }
  start(await post("/api/puzzles/streak"));
}

function prepare() {
  panelParts("puzzle");
  $(".seat-top").textContent = "";
  $(".seat-bottom").textContent = "";
  for (const id of ["#pz-retry", "#pz-solution", "#pz-next", "#pz-new-streak"]) $(id).hidden = true;
  $("#puzzle-feedback").textContent = "";
  $("#puzzle-ratings").textContent = "";
  delete $("#puzzle-box").dataset.shown;
}

/** @param {Started} data @param {Local} [local] a puzzle judged in the page (offline) */
async function start(data, local) {
  prepare();
  const p = data.puzzle;
  pz = { puzzle: p, attempt: data.attempt, rated: data.rated, streak: data.streak, pos: null, over: false,
         solution: [], busy: false, count: data.count || 0, best: data.best || 0, local };
  $("#puzzle-box").dataset.puzzle = p.id;
  $("#puzzle-box").dataset.state = "playing";
  showMeta();
  $("#puzzle-text").textContent = p.text;
  $("#puzzle-source").textContent = p.source.text;
  showStreak();
  const pos = await position(p.kpn);
  if (!pz || pz.attempt !== data.attempt) return;
  if (!local && askedLang !== prefs.lang) rerenderPuzzle();  // the language changed while it came
  pz.pos = pos;
  $("#puzzle-box").dataset.kpn = pos.kpn;
  board.setFlip(p.side === "g");
  board.setTowers(pos.towers);
  const fill = p.kind === "fill" && p.fill;
  $("#puzzle-fill").hidden = !fill;
  fillButtons(true);
  if (fill) {
    board.marks({});
    for (const d of /** @type {const} */ (["left", "right"])) {
      const f = await position(fill[d]);
      fillBoards[d].setTowers(f.towers);
      fillBoards[d].marks({});
    }
    setStatus(t("game.fill_title"));
  } else {
    board.marks({ legal: pos.legal, must: pos.must, turn: pos.turn });
    setStatus(t("lessons.your_turn"));
  }
  announce("");
}

/** The puzzle's title and kind; its own rating only once the attempt is over (as lichess
    hides it while the puzzle is played): the player's puzzle rating is the
    one rating the page shows beside it. */
function showMeta() {
  if (!pz) return;
  const p = pz.puzzle;
  const title = p.win_in && p.kind !== "only_defence"
    ? t("puzzles.win_in", { side: sideName(p.side), n: p.win_in }) : kindName(p.kind);
  $("#puzzle-title").textContent = title;
  $("#play-title").textContent = title;
  $("#puzzle-meta").textContent = pz.over
    ? `${kindName(p.kind)} · ${t("puzzles.puzzle_rating", { rating: p.rating })}` : kindName(p.kind);
}

function showStreak() {
  const line = $("#puzzle-streak");
  line.hidden = !pz || !pz.streak || (pz.over && $("#puzzle-box").dataset.state === "failed");  // the status says it
  if (pz && pz.streak) line.textContent = t("puzzles.streak_count", { n: pz.count, best: Math.max(pz.best, pz.count) });
}

/** A move on the board (or a fill) during a puzzle: judged by the server. @param {string} mv */
export async function puzzleMove(mv) {
  if (!pz || pz.over || pz.busy || !pz.pos) return;
  const cur = pz;
  cur.busy = true;
  const before = /** @type {Pos} */ (cur.pos);
  if (cur.puzzle.kind !== "fill") {
    const shown = await position(before.kpn, mv);
    board.setTowers(shown.towers);
    board.marks({ turn: shown.turn, last: { move: mv, pushed: shown.last ? shown.last.pushed : [] } });
  }
  setStatus(t("puzzles.defending"));
  /** @type {any} */
  let r;
  try {
    r = cur.local ? await judgeHere(cur.puzzle, cur.local, before.kpn, mv)
      : await post(`/api/puzzles/attempts/${cur.attempt}`, { move: mv });
  } catch (e) {
    cur.busy = false;
    setStatus(refusal(e));
    if (cur.puzzle.kind !== "fill") {
      board.setTowers(before.towers);
      board.marks({ legal: before.legal, must: before.must, turn: before.turn });
    }
    return;
  }
  if (pz !== cur) return;
  cur.busy = false;
  if (r.result === "wrong") {  // said wrong, never answered: the page shows no `right` it may hold
    finish(r, false, moveName(mv, before));
    return;
  }
  if (r.reply) {
    const next = await position(r.after, r.reply);
    if (pz !== cur) return;
    cur.pos = next;
    board.setTowers(next.towers);
    if (r.result === "solved") board.marks({ last: { move: r.reply, pushed: next.last ? next.last.pushed : [] } });
    else board.marks({ legal: next.legal, must: next.must, turn: next.turn, last: { move: r.reply, pushed: next.last ? next.last.pushed : [] } });
  } else if (r.result !== "solved") {
    cur.pos = await position(r.kpn);
  }
  if (r.result === "solved") { finish(r, true, ""); return; }
  if (cur.pos) $("#puzzle-box").dataset.kpn = cur.pos.kpn;  // the position to move in (tests read it)
  $("#puzzle-feedback").textContent = t("puzzles.your_turn_left", { n: r.left });
  setStatus(t("lessons.your_turn"));
}

// -- a puzzle judged in the page (offline): kamisado.lessons.puzzle_step and the server's attempt_move

/** The solver's node budgets (kamisado.lessons: JUDGE_NODES, puzzle_reply's). */
const JUDGE_NODES = 2_000_000;
const REPLY_NODES = 5_000_000;

/** Whether `side` is proven to win `kpn` within `bound` moves of both sides (lessons.wins_within).
 * @param {string} kpn @param {any} outcome @param {string} side @param {number} bound */
async function winsWithin(kpn, outcome, side, bound) {
  if (outcome) return outcome.winner === side;
  if (bound <= 0) return false;
  await stop();  // fresh tables, as the server clears them: the answer depends on the position only
  const r = await solve(kpn, { exact: true, maxDepth: bound, nodes: JUDGE_NODES });
  return r.winner === side && r.distance !== null && r.distance <= bound;
}

/** The solver's best move (lessons.puzzle_reply): for the loser the longest resistance. @param {string} kpn */
async function replyHere(kpn) {
  const { moves } = await legalMoves(kpn);
  if (moves.length === 1) return moves[0];
  await stop();
  const r = await solve(kpn, { exact: true, nodes: REPLY_NODES });
  if (r.best) return r.best;
  return /** @type {string} */ ((await search(kpn, { depth: 6 })).best);
}

/**
 * A move (or fill) of a puzzle judged here, answered as the server's
 * POST /api/puzzles/attempts/<id> answers.
 * @param {Puzzle} p @param {Local} local @param {string} kpn the position it is made in @param {string} mv
 */
async function judgeHere(p, local, kpn, mv) {
  if (p.kind === "fill") {
    if (mv !== "left" && mv !== "right") throw new Error(`expected a fill, left or right, found ${mv}`);
    const right = local.accepted.includes(mv);
    return { result: right ? "solved" : "wrong", move: mv, reply: null, solution: local.solution, rated: false,
      kpn: p.fill ? p.fill[mv] : kpn, ...(right ? {} : { right: local.accepted }) };
  }
  const played = local.played;
  const bound = p.win_in === null ? null : p.win_in - played.length;
  const a = await play(kpn, mv);
  let right;
  if (!played.length) right = local.accepted.includes(mv);
  else if (bound === null) right = Boolean(a.outcome && a.outcome.winner === p.side);
  else right = await winsWithin(a.kpn, a.outcome, p.side, bound - 1);
  /** @type {string|null} */
  let reply = null;
  let after = a.kpn;
  let won = Boolean(a.outcome && a.outcome.winner === p.side);
  if (right && !a.outcome && bound !== null) {
    reply = await replyHere(a.kpn);
    const b = await play(a.kpn, reply);
    after = b.kpn;
    won = Boolean(b.outcome && b.outcome.winner === p.side);
  }
  const solved = right && (won || p.win_in === null);
  /** @type {Record<string, any>} */
  const r = { result: solved ? "solved" : right ? "right" : "wrong", move: mv, after: a.kpn,
    reply: right ? reply : null, kpn: right ? after : a.kpn, left: bound === null ? null : bound - (reply ? 2 : 1),
    rated: false, solution: local.solution };
  if (right) played.push(mv, ...(reply ? [reply] : []));
  else r.right = played.length ? [await replyHere(kpn)] : local.accepted;
  return r;
}

/** A move in the rulebook's words ("Red Forward 4 Blue", translated) as the
    move list writes it, from the position it is made in; a fill as the page
    says it. @param {string} mv @param {Pos} [pos] */
function moveName(mv, pos) {
  if (mv === "left") return t("lessons.left");
  if (mv === "right") return t("lessons.right_fill");
  return pos ? entryText(moveEntry(pos.towers, pos.turn, mv)) : mv;
}

/** The end of an attempt: the feedback, the ratings, the ways on.
 * @param {any} r @param {boolean} solved @param {string} played the wrong move in words ("" when solved) */
function finish(r, solved, played) {
  if (!pz) return;
  pz.over = true;
  pz.solution = r.solution || (pz.local ? pz.local.solution : []);
  $("#puzzle-box").dataset.state = solved ? "solved" : "failed";
  fillButtons(false);
  const streakOver = Boolean(pz.streak && !solved);
  if (r.streak && pz.streak) {
    pz.count = r.streak.count;
    pz.best = r.streak.best;
    showStreak();
  }
  if (r.ratings && r.ratings.puzzle) pz.puzzle.rating = r.ratings.puzzle.rating;
  showMeta();
  // said once: the status line says what happened, the feedback which move it was
  setStatus(solved ? t("puzzles.solved") : streakOver ? t("puzzles.streak_over", { n: pz.count, best: Math.max(pz.best, pz.count) })
    : t("puzzles.not_the_move"));
  $("#puzzle-feedback").textContent = solved ? ""
    : t(streakOver ? "puzzles.you_played" : "puzzles.wrong", { move: played });
  showRatings(r);
  $("#pz-retry").hidden = solved || streakOver;
  $("#pz-solution").hidden = solved;
  $("#pz-next").hidden = streakOver;
  $("#pz-new-streak").hidden = !streakOver;
  // the ways on in view (on a phone the panel is under the board)
  /** @type {HTMLElement} */ ($("#pz-next").parentElement).scrollIntoView({ block: "nearest" });
}

/** The ratings line: the player's puzzle rating and its change, or why the attempt is unrated.
 * @param {any} r an answer that ended an attempt */
function showRatings(r) {
  if (!pz) return;
  const parts = [];
  const ratings = r.ratings || {};
  if (pz.local) parts.push(t("puzzles.offline_unrated"));
  else if (r.rated && ratings.player) {
    const c = ratings.player.change;
    parts.push(t("puzzles.rating_change", { rating: ratings.player.rating, change: c >= 0 ? `+${c}` : String(c) }));
  } else if (pz.streak) parts.push(t("puzzles.unrated_streak"));
  else if (!r.rated && !currentMe()?.account) parts.push(t("puzzles.unrated_anon"));
  else if (!r.rated) parts.push(t("puzzles.unrated_retry"));
  $("#puzzle-ratings").textContent = parts.join(" · ");
}


/** Whether the fill buttons take a choice (only while the attempt plays). @param {boolean} on */
function fillButtons(on) {
  for (const id of ["#pz-fill-left", "#pz-fill-right"]) /** @type {HTMLButtonElement} */ ($(id)).disabled = !on;
}

/** The solution, asked for: from the server (which counts an attempt still
    playing as missed) or, offline, from the cached set; written in words,
    then played on the board from the puzzle's start. */
async function showSolution() {
  if (!pz) return;
  const cur = pz;
  $("#pz-solution").hidden = true;
  if (!cur.solution.length && !cur.local) {
    /** @type {any} */
    let r;
    try { r = await post(`/api/puzzles/attempts/${cur.attempt}/solution`); } catch (e) {
      $("#pz-solution").hidden = false;
      setStatus(refusal(e));
      return;
    }
    if (pz !== cur) return;
    cur.solution = r.solution;
    if (r.ratings) {  // it was still playing: now it is a miss
      cur.over = true;
      if (r.ratings.puzzle) cur.puzzle.rating = r.ratings.puzzle.rating;
      showMeta();
      showRatings(r);
    }
  }
  const line = cur.solution;
  if (cur.puzzle.kind === "fill") {
    $("#puzzle-feedback").textContent = t("puzzles.solution_shown", { line: line.map((mv) => moveName(mv)).join(", ") });
    return;
  }
  let pos = await position(cur.puzzle.kpn);
  const steps = [pos];
  for (const mv of line) steps.push(await position(steps[steps.length - 1].kpn, mv));
  if (pz !== cur) return;
  $("#puzzle-feedback").textContent = t("puzzles.solution_shown",
    { line: line.map((mv, i) => moveName(mv, steps[i])).join(", ") });
  $("#puzzle-box").dataset.shown = "solution";
  board.setTowers(pos.towers);
  board.marks({ turn: pos.turn });
  for (const next of steps.slice(1)) {
    await new Promise((res) => setTimeout(res, 600));  // the line played at a watchable pace
    if (pz !== cur) return;
    board.setTowers(next.towers);
    board.marks({ turn: next.turn, last: { move: next.last ? next.last.move : "", pushed: next.last ? next.last.pushed : [] } });
    pos = next;
  }
  cur.pos = pos;
}

/** The next puzzle: in a streak the streak's next, else one near the player's rating. */
async function nextPuzzle() {
  if (offline()) {  // the next one of the cached set
    const all = await offlineSet();
    const at = pz ? all.findIndex((p) => p.id === /** @type {any} */ (pz).puzzle.id) : -1;
    const next = all[at + 1];
    if (!next) { $("#puzzle-feedback").textContent = t("puzzles.all_done"); return; }
    location.hash = `#/puzzle/${next.id}`;
    return;
  }
  if (pz && pz.streak) {
    prepare();
    start(await post(`/api/puzzles/streak/${encodeURIComponent(pz.streak)}/next`));
    return;
  }
  const r = await getJSON(inLang("/api/puzzles/next"));
  if (!r.puzzle) { $("#puzzle-feedback").textContent = t("puzzles.all_done"); return; }
  location.hash = `#/puzzle/${r.puzzle.id}`;
}

$("#pz-retry").addEventListener("click", () => { if (pz) openPuzzle(pz.puzzle.id); });
$("#pz-solution").addEventListener("click", () => showSolution());
$("#pz-next").addEventListener("click", () => nextPuzzle());
$("#pz-new-streak").addEventListener("click", () => openStreak());
$("#pz-fill-left").addEventListener("click", () => puzzleMove("left"));
$("#pz-fill-right").addEventListener("click", () => puzzleMove("right"));

/** Leave the puzzle. */
export function leavePuzzle() { pz = null; }
/** Whether a puzzle is showing. */
export const inPuzzle = () => pz !== null;
/** Redraw in a new language: the same attempt's words (the board stays). */
export async function rerenderPuzzle() {
  if (!pz) return;
  const cur = pz;
  showMeta();
  showStreak();
  if (cur.local) return;  // offline: the cached set's words
  const p = await getJSON(inLang(`/api/puzzles/${encodeURIComponent(cur.puzzle.id)}`));
  if (pz !== cur) return;
  $("#puzzle-text").textContent = p.text;  // the server's words, in the new language
  $("#puzzle-source").textContent = p.source.text;
}
