/* The computer's levels in the page's engine (in the worker): the policies
   of kamisado/engine/levels.py on the WebAssembly core, with the same
   budgets (depths, nodes, noise, solver nodes), the same opening book and
   the same match-equity model (both fetched from the server's package data,
   /static/engine/data/), and Python's random numbers (engine-random.js: a
   player of a level and seed is random.Random("level:seed"), new for each
   move as the server's), so the same level and seed choose the server's
   very move.  What differs (docs/web.md, "The engine in the page"): the
   solver's table is the worker's, not the server process's, so a proof cut
   short by a node budget (expert's and perfect's) may end otherwise.  The
   fill after a round win (bestFill) is chosen from the two next rounds'
   starts, which the caller gives (the rules make them, not the engine). */

import {
  codes, defaultWeights, kpnNow, loadKpn, moveCode, moveText, outcome, playCode, search, solve, turn, unplay,
} from "./engine-core.js";
import { PyRandom as Rng } from "./engine-random.js";

const SIDES = ["b", "g"];
const RING_POINTS = [1, 2, 4, 8];

/** The ``perfect`` level's budgets (kamisado.engine.levels). */
const PERFECT_SOLVE_NODES = 10_000_000;
const PERFECT_SEARCH_NODES = 4_000_000;
const PERFECT_MATCH_SOLVE_NODES = 4_000_000;
const PERFECT_MATCH_CHOICE_NODES = 500_000;
const PERFECT_KEEP_NODES = 1_000_000;
const PERFECT_POINTS_NODES = 8_000_000;
const PERFECT_FILL_SOLVE_NODES = 4_000_000;
/** How deep each level searches its fill (Level.fill_depth). */
const FILL_DEPTH = { beginner: 0, novice: 2, casual: 3, club: 4, strong: 6, expert: 8, perfect: 10 };
const FILLS = /** @type {const} */ (["left", "right"]);
const PERFECT_CONCEDE_NODES = 2_000_000;

/** The match fields and rings of a KPN: target, points, each side's total rings.
    @param {string} kpn */
function matchOf(kpn) {
  const f = kpn.trim().split(/\s+/);
  const target = f.length >= 6 ? Number(f[3]) : 1;
  const points = f.length >= 6 ? [Number(f[4]), Number(f[5])] : [0, 0];
  const rings = [0, 0];
  let side = 0;
  for (const ch of f[0]) {
    if (/[A-Z]/.test(ch)) side = 0;
    else if (/[a-z]/.test(ch)) side = 1;
    else if (ch === "+") rings[side] += 1;
  }
  return { target, points, rings };
}

/** Whether winning this round wins the match for either side. @param {string} kpn */
function decidesMatch(kpn) {
  const { target, points } = matchOf(kpn);
  return target === 1 || Math.max(...points) + 1 >= target;
}

/** The position after a move (its KPN), its outcome and who is to move.
    @param {string} kpn @param {number} code */
function after(kpn, code) {
  loadKpn(kpn);
  playCode(code);
  return { kpn: kpnNow(), outcome: outcome(), turn: turn() };
}

/** @param {string} kpn @param {number} code */
function winsNow(kpn, code) {
  loadKpn(kpn);
  const me = turn();
  playCode(code);
  const o = outcome();
  return o !== null && o.winner === me;
}

/** Whether after ``code`` the opponent can end the round in their favour at once.
    @param {string} kpn @param {number} code */
function givesWin(kpn, code) {
  loadKpn(kpn);
  const me = turn();
  playCode(code);
  const o = outcome();
  if (o) return o.winner !== me;
  if (turn() === me) return false;
  for (const reply of codes()) {
    playCode(reply);
    const r = outcome();
    unplay();
    if (r && r.winner !== me) return true;
  }
  return false;
}

/* -- match equity (kamisado.engine.equity) ----------------------------------- */

/** @typedef {{opener_win: number[], win_rings: number[][], temper: number}} EquityModel */
/** @type {EquityModel|null} */
let model = null;
/** @type {Map<string, number>} */
const memo = new Map();
const MAX_RING_DIFF = 4;
const MAX_RINGS = 10;

async function loadModel() {
  if (model) return model;
  const r = await fetch(new URL("../engine/data/equity.json", import.meta.url));
  if (!r.ok) throw new Error(`engine: the equity model answered ${r.status}`);
  const data = await r.json();
  model = {
    opener_win: data.opener_win,
    win_rings: data.win_rings.map((/** @type {number[]} */ row) => {
      const total = row.reduce((a, b) => a + b, 0);
      return row.map((x) => x / total);
    }),
    temper: data.temper ?? 1,
  };
  return model;
}

/** Black's chance to win the match from a round's start (match_equity).
    @param {number[]} points @param {number} target @param {number[]} rings @param {number} opener */
function matchEquity(points, target, rings, opener) {
  const m = /** @type {EquityModel} */ (model);
  const value = (/** @type {number} */ pb, /** @type {number} */ pg, /** @type {number} */ rb,
    /** @type {number} */ rg, /** @type {number} */ op) => {
    if (pb >= target) return 1;
    if (pg >= target) return 0;
    const key = `${target}:${pb}:${pg}:${rb}:${rg}:${op}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const rr = [rb, rg];
    const d = Math.max(-MAX_RING_DIFF, Math.min(MAX_RING_DIFF, rr[op] - rr[op ^ 1]));
    const pOpen = m.opener_win[d + MAX_RING_DIFF];
    let total = 0;
    for (const [winner, chance] of [[op, pOpen], [op ^ 1, 1 - pOpen]]) {
      if (chance <= 0) continue;
      const chances = m.win_rings[Math.max(0, Math.min(MAX_RINGS, rr[winner]))];
      chances.forEach((pk, k) => {
        if (pk <= 0) return;
        const pts = [pb, pg];
        pts[winner] += RING_POINTS[k];
        const r2 = [rb, rg];
        if (k < 3) r2[winner] += 1;
        total += chance * pk * value(pts[0], pts[1], r2[0], r2[1], winner ^ 1);
      });
    }
    memo.set(key, total);
    return total;
  };
  if (points[0] >= target) return 1;
  if (points[1] >= target) return 0;
  const p = value(points[0], points[1], Math.max(0, rings[0]), Math.max(0, rings[1]), opener);
  if (p <= 0 || p >= 1 || m.temper === 1) return p;
  const z = m.temper * Math.log(p / (1 - p));
  return 1 / (1 + Math.exp(-z));
}

/** The equity for the side to move of ``kpn`` after ``winner`` wins with a
    tower of ``k`` rings (levels._win_equity). @param {string} kpn @param {number} me
    @param {number} winner @param {number} k */
function winEquity(kpn, me, winner, k) {
  const { target, points, rings } = matchOf(kpn);
  const pts = [...points];
  pts[winner] += RING_POINTS[k];
  const r = [...rings];
  if (k < 3) r[winner] += 1;
  const black = matchEquity(pts, target, r, winner ^ 1);
  return me === 0 ? black : 1 - black;
}

/** The equity where ``line`` ends the round, or null (levels._end_equity).
    @param {string} kpn @param {number[]} line */
function endEquity(kpn, line) {
  loadKpn(kpn);
  const me = turn();
  for (const c of line) {
    if (outcome() || !codes().includes(c)) return null;
    playCode(c);
  }
  const o = outcome();
  return o ? winEquity(kpn, me, o.winner, o.rings) : null;
}

/* -- the policies ------------------------------------------------------------ */

/** @param {string} kpn @param {Rng} rng */
function beginner(kpn, rng) {
  loadKpn(kpn);
  const moves = codes();
  const wins = moves.filter((m) => winsNow(kpn, m));
  if (wins.length) return rng.choice(wins);
  const safe = moves.filter((m) => !givesWin(kpn, m));
  const pool = safe.length && rng.random() < 0.75 ? safe : moves;
  return rng.weighted(pool, pool.map((m) => 1 + Math.abs((m >> 9) - ((m & 63) >> 3))));
}

/** A searching level (levels._searcher).
    @param {{depth?: number, nodes?: number, noise?: number, solveNodes?: number}} how */
function searcher(how) {
  return (/** @type {string} */ kpn, /** @type {Rng} */ rng) => {
    loadKpn(kpn);
    const moves = codes();
    if (moves.length === 1) return moves[0];
    const me = SIDES[turn()];
    if (how.solveNodes && decidesMatch(kpn)) {
      const r = solve(kpn, { nodes: how.solveNodes, pv: false });
      if (r.winner === me && r.best) return moveCode(r.best);
    }
    const weights = how.noise ? [...defaultWeights().slice(0, -1), how.noise] : undefined;
    const res = search(kpn, { depth: how.depth, nodes: how.nodes, seed: rng.below(2 ** 30), weights });
    return moveCode(/** @type {string} */ (res.best));
  };
}

/** Who wins within about ``nodes`` (levels._prove). @param {string} kpn @param {number} nodes */
function prove(kpn, nodes) {
  const half = Math.max(1, Math.floor(nodes / 2));
  const r = solve(kpn, { nodes: half, pv: false, exact: false });
  const exact = solve(kpn, { nodes: half, pv: false });
  return exact.winner !== null ? exact : r;
}

/** @param {string} kpn @param {number} move */
function keepsWin(kpn, move) {
  const me = SIDES[turn()];
  const q = after(kpn, move);
  if (q.outcome) return SIDES[q.outcome.winner] === me;
  return solve(q.kpn, { nodes: PERFECT_KEEP_NODES, pv: false, exact: false }).winner === me;
}

/** Of the moves the solver proves winning, the one whose win is worth most
    (levels._best_proven_win). @param {string} kpn @param {number} found */
function bestProvenWin(kpn, found) {
  loadKpn(kpn);
  const me = turn();
  const moves = codes();
  const perMove = Math.max(1000, Math.floor(PERFECT_MATCH_CHOICE_NODES / Math.max(1, moves.length)));
  const order = [...moves].sort((a, b) => Number(a !== found) - Number(b !== found)
    || (moveText(a) < moveText(b) ? -1 : moveText(a) > moveText(b) ? 1 : 0));
  let best = found;
  let bestValue = -1;
  for (const move of order) {
    const q = after(kpn, move);
    /** @type {number[]} */
    let line;
    if (q.outcome) {
      if (q.outcome.winner !== me) continue;
      line = [move];
    } else {
      const r = solve(q.kpn, { nodes: perMove, pv: true });
      if (r.winner !== SIDES[me]) continue;
      line = [move, ...r.pv.map(moveCode)];
    }
    const value = endEquity(kpn, line);
    if (value !== null && value > bestValue + 1e-9) {
      best = move;
      bestValue = value;
    }
  }
  return best;
}

/** ``perfect`` in a round whose win is worth what it brings to the match
    (levels._play_for_match); ``provenOpen``: the solver found no winner already.
    @param {string} kpn @param {Rng} rng @param {number|null} won @param {boolean} [provenOpen] */
function playForMatch(kpn, rng, won, provenOpen = false) {
  loadKpn(kpn);
  const me = turn();
  const moves = codes();
  const wins = moves.filter((m) => winsNow(kpn, m))
    .map((m) => ({ m, v: endEquity(kpn, [m]) ?? 0 }))
    .sort((a, b) => b.v - a.v || (moveText(a.m) < moveText(b.m) ? -1 : 1));
  if (wins.length && wins[0].v >= 1) return wins[0].m;
  const res = search(kpn, { nodes: PERFECT_SEARCH_NODES, seed: rng.below(2 ** 30) });
  const best = moveCode(/** @type {string} */ (res.best));
  const provenWin = res.value.kind === "win";
  if (wins.length) {
    if (provenWin) {
      let points = res.value.tier === 15 ? null : res.value.tier;
      const end = endOf(kpn, res.pv.map(moveCode));
      if (end) points = end.points;
      const k = RING_POINTS.indexOf(points ?? -1);
      if (k >= 0 && winEquity(kpn, me, me, k) > wins[0].v + 1e-9) return best;
    }
    return wins[0].m;
  }
  if (!provenWin) {
    if (won === null && !provenOpen) {
      const r = prove(kpn, PERFECT_MATCH_SOLVE_NODES);
      if (r.winner === SIDES[me] && r.best) won = moveCode(r.best);
    }
    if (won !== null) {
      const move = bestProvenWin(kpn, won);
      loadKpn(kpn);
      if (move === won && best !== move && keepsWin(kpn, best)) return best;
      return move;
    }
  }
  return best;
}

/** The outcome at the end of a line, or null. @param {string} kpn @param {number[]} line */
function endOf(kpn, line) {
  loadKpn(kpn);
  for (const c of line) {
    if (outcome() || !codes().includes(c)) break;
    playCode(c);
  }
  return outcome();
}

/** How many replies to ``move`` win for the opponent (levels.winning_replies).
    @param {string} kpn @param {number} move @param {number} nodes */
function winningReplies(kpn, move, nodes) {
  loadKpn(kpn);
  const mover = turn();
  const q = after(kpn, move);
  if (q.outcome) return 0;
  let count = 0;
  for (const reply of codes()) {
    const r = after(q.kpn, reply);
    if (r.outcome) count += Number(r.outcome.winner !== mover);
    else {
      const s = solve(r.kpn, { nodes, pv: false });
      count += Number(s.winner !== null && s.winner !== SIDES[mover]);
    }
  }
  return count;
}

/** Among lost moves the longest, the opponent's fewest wins first
    (levels._longest_resistance over solve_moves). @param {string} kpn @param {Rng} rng */
function longestResistance(kpn, rng) {
  loadKpn(kpn);
  const side = turn();
  const vals = codes().map((move) => {
    const q = after(kpn, move);
    if (q.outcome) return { move, winner: q.outcome.winner, distance: 1 };
    const r = solve(q.kpn, { nodes: PERFECT_SOLVE_NODES / 4, pv: false });
    return { move, winner: r.winner === null ? null : SIDES.indexOf(r.winner),
      distance: r.distance === null ? null : r.distance + 1 };
  });
  const unknown = vals.filter((v) => v.winner === null);
  if (unknown.length) return rng.choice(unknown).move;
  const order = (/** @type {{winner: number|null, distance: number|null}} */ v) =>
    v.winner === null ? [1, 0] : v.winner === side ? [0, v.distance ?? 0] : [2, -(v.distance ?? 0)];
  vals.sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
  const longest = Math.max(...vals.map((v) => v.distance ?? 0));
  const best = vals.filter((v) => (v.distance ?? 0) === longest).map((v) => v.move);
  if (best.length > 1) {
    const keyed = best.map((m) => ({ m, t: -winningReplies(kpn, m, 20000), s: moveText(m) }));
    keyed.sort((a, b) => b.t - a.t || (a.s < b.s ? 1 : a.s > b.s ? -1 : 0));
    return keyed[0].m;
  }
  return best[0];
}

/** @type {Map<string, string>|null} */
let book = null;

async function loadBook() {
  if (book) return book;
  const r = await fetch(new URL("../engine/data/book.txt", import.meta.url));
  if (!r.ok) throw new Error(`engine: the opening book answered ${r.status}`);
  book = new Map();
  for (const line of (await r.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const [key, move] = line.split("\t");
    if (key && move) book.set(key, move);
  }
  return book;
}

/** Whether some tower has a ring (else every win is worth 1). @param {string} kpn */
function hasRings(kpn) {
  const { rings } = matchOf(kpn);
  return rings[0] + rings[1] > 0;
}

/** ``perfect`` where the round's points matter (levels._play_points).
    @param {string} kpn @param {Rng} rng @param {number|null} won */
function playPoints(kpn, rng, won) {
  loadKpn(kpn);
  const me = SIDES[turn()];
  const pr = solve(kpn, { points: true, nodes: PERFECT_POINTS_NODES });
  if (pr.winner === me) {
    if (pr.best && pr.low >= 2) return moveCode(pr.best);
    return playForMatch(kpn, rng, pr.best ? moveCode(pr.best) : won);
  }
  if (pr.winner !== null) {
    const conceded = pr.points !== null ? -pr.points : null;
    return fewestConceded(kpn, rng, conceded, pr.best ? moveCode(pr.best) : null);
  }
  return playForMatch(kpn, rng, won, true);
}

/** ``perfect`` in a round proven lost: of the moves that concede no more than
    ``conceded`` points, the one that lasts longest (levels._fewest_conceded).
    @param {string} kpn @param {Rng} rng @param {number|null} conceded @param {number|null} keeps */
function fewestConceded(kpn, rng, conceded, keeps) {
  loadKpn(kpn);
  const me = turn();
  const moves = codes();
  const perMove = Math.max(10_000, Math.floor(PERFECT_CONCEDE_NODES / Math.max(1, moves.length)));
  /** @type {number[]} */
  const fewest = [];
  for (const move of moves) {
    const q = after(kpn, move);
    /** @type {number|null} */
    let value;
    if (q.outcome) value = q.outcome.winner !== me ? q.outcome.points : -q.outcome.points;
    else {
      const r = solve(q.kpn, { points: true, nodes: perMove });
      // a Sumo push moves again: the value is then ours, not theirs
      value = r.points === null ? null : q.turn !== me ? r.points : -r.points;
    }
    if (conceded !== null && value === conceded) fewest.push(move);
  }
  if (!fewest.length) return keeps !== null ? keeps : longestResistance(kpn, rng);
  if (fewest.length === 1) return fewest[0];
  const lasts = fewest.map((move) => {
    const q = after(kpn, move);
    if (q.outcome) return { far: 0, text: moveText(move), move };
    const d = solve(q.kpn, { nodes: perMove, pv: false });
    // a distance not proven in the budget counts as the longest
    const far = d.winner !== null && d.distance !== null ? d.distance : 10 ** 6;
    return { far, text: moveText(move), move };
  });
  const longest = Math.max(...lasts.map((x) => x.far));
  const best = lasts.filter((x) => x.far === longest).sort((x, y) => (x.text < y.text ? -1 : x.text > y.text ? 1 : 0));
  if (best.length > 1) {
    const replies = new Map(best.map((x) => [x.move, winningReplies(kpn, x.move, 20000)]));
    best.sort((x, y) => /** @type {number} */ (replies.get(x.move)) - /** @type {number} */ (replies.get(y.move)));
  }
  return best[0].move;
}

/** ``perfect`` (levels._perfect). @param {string} kpn @param {Rng} rng */
function perfect(kpn, rng) {
  loadKpn(kpn);
  const moves = codes();
  if (moves.length === 1) return moves[0];
  const hit = book?.get(kpnNow());
  if (hit !== undefined && moves.includes(moveCode(hit))) return moveCode(hit);
  const me = turn();
  if (!decidesMatch(kpn)) return playPoints(kpn, rng, null);
  // some round win ends the match: the round is to be won at any price
  const r = prove(kpn, PERFECT_SOLVE_NODES);
  if (r.winner === SIDES[me] && r.best) {
    const { target, points } = matchOf(kpn);
    if (points[me] + 1 >= target) {
      // any win wins the match: the surest is best, but a proven bigger win is kept
      if (hasRings(kpn)) {
        const pr = solve(kpn, { points: true, nodes: PERFECT_POINTS_NODES });
        if (pr.winner === SIDES[me] && pr.best && pr.low >= 2) return moveCode(pr.best);
      }
      return moveCode(r.best);
    }
    return playPoints(kpn, rng, moveCode(r.best));
  }
  if (r.winner !== null) return playPoints(kpn, rng, null);  // lost: the fewest points, then the longest
  const res = search(kpn, { nodes: PERFECT_SEARCH_NODES, seed: rng.below(2 ** 30) });
  return moveCode(/** @type {string} */ (res.best));
}

/** @type {Record<string, (kpn: string, rng: Rng) => number>} */
const POLICIES = {
  beginner,
  novice: searcher({ depth: 2, noise: 120 }),
  casual: searcher({ depth: 3, noise: 40 }),
  club: searcher({ depth: 5 }),
  strong: searcher({ nodes: 50_000 }),
  expert: searcher({ nodes: 600_000, solveNodes: 1_000_000 }),
  perfect,
};

/** The move of the computer at ``level`` in ``kpn`` (its text).
    @param {string} kpn @param {{level: string, seed?: number}} opts */
export async function bestMove(kpn, opts) {
  const level = opts?.level;
  const policy = POLICIES[level];
  if (!policy) throw new Error(`expected a level (${Object.keys(POLICIES).join(", ")}), found ${String(level)}`);
  const seed = opts.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed must be an integer >= 0, got ${seed}`);
  loadKpn(kpn);
  if (outcome()) throw new Error("the round is over: there is no move to choose");
  if (level === "perfect") await Promise.all([loadBook(), loadModel()]);
  // kamisado.engine.levels.Player: random.Random(f"{level}:{seed}"), a new one each move
  return moveText(policy(kpn, new Rng(`${level}:${seed}`)));
}

/** The fill whose next round looks worse for the opponent (levels.choose_fill_by_search).
    @param {Record<string, string>} starts @param {number} depth @param {Rng} rng @returns {string} */
function fillBySearch(starts, depth, rng) {
  if (depth <= 0) return rng.choice([...FILLS]);
  /** @type {Record<string, number>} */
  const scores = {};
  for (const f of FILLS) scores[f] = search(starts[f], { depth, seed: rng.below(2 ** 30) }).score;
  const best = Math.min(scores.left, scores.right);
  return rng.choice(FILLS.filter((f) => scores[f] === best));
}

/** The winner's match equity for a next round (levels._fill_equity).
    @param {string} start @param {ReturnType<typeof solve>} value @param {number} me */
function fillEquity(start, value, me) {
  loadKpn(start);
  const opener = turn();
  const { target, points, rings } = matchOf(start);
  if (value.winner === null) {
    const black = matchEquity(points, target, rings, opener);
    return me === 0 ? black : 1 - black;
  }
  const winner = SIDES.indexOf(value.winner);
  const sure = winner === opener ? value.low : -value.high;
  const k = Math.max(0, RING_POINTS.indexOf(sure));
  const theirs = winEquity(start, opener, winner, k);
  return me === opener ? theirs : 1 - theirs;
}

/** The computer's fill after it won a round: "left" or "right"
    (Player.choose_fill).  ``starts``: the KPN of the next round's start
    after each fill (the loser to move), as Match.next_round_start makes them.
    @param {{left: string, right: string}} starts @param {{level: string, seed?: number}} opts */
export async function bestFill(starts, opts) {
  const level = opts?.level;
  if (!(level in FILL_DEPTH)) throw new Error(`expected a level (${Object.keys(FILL_DEPTH).join(", ")}), found ${String(level)}`);
  const seed = opts.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed must be an integer >= 0, got ${seed}`);
  if (!starts || typeof starts.left !== "string" || typeof starts.right !== "string") {
    throw new Error("expected the next round's starts: {left: KPN, right: KPN}");
  }
  /** @type {Record<string, string>} */
  const kpns = { left: starts.left, right: starts.right };
  for (const f of FILLS) {
    loadKpn(kpns[f]);
    if (outcome()) throw new Error(`the ${f} start is not a round's start`);
  }
  const rng = new Rng(`${level}:${seed}`);
  const depth = FILL_DEPTH[/** @type {keyof typeof FILL_DEPTH} */ (level)];
  if (level !== "perfect") return fillBySearch(kpns, depth, rng);
  await loadModel();
  // perfect: by the next round's value (levels._perfect_fill)
  loadKpn(kpns.left);
  const me = turn() ^ 1;  // the loser opens the next round
  /** @type {Record<string, number>} */
  const worth = {};
  for (const f of FILLS) {
    worth[f] = fillEquity(kpns[f], solve(kpns[f], { points: true, nodes: PERFECT_FILL_SOLVE_NODES }), me);
  }
  if (Math.abs(worth.left - worth.right) > 1e-9) return worth.left >= worth.right ? "left" : "right";
  return fillBySearch(kpns, depth, rng);
}
