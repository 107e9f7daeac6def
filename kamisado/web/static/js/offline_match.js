/* A match played in the page without the server (offline): its rounds,
   points, rings and fills, as kamisado/rules/match.py has them (the same
   rules, line by line: a test compares the two on recorded matches,
   tests/test_web_offline_match.py).  The moves themselves are the engine's
   (engine.js: legalMoves, play, the C core's rules): this module never
   decides whether a move is legal, only what a round's end brings. */

/** The colours by their KPN letters, brown to orange (kamisado.rules.board.COLOUR_LETTERS). */
export const COLOUR_LETTERS = "ngrypubo";
/** The colours' names, in the same order. */
export const COLOUR_NAMES = ["brown", "green", "red", "yellow", "pink", "purple", "blue", "orange"];
/** What a round won by a tower of 0, 1, 2 or 3 rings is worth. */
export const RING_POINTS = [1, 2, 4, 8];
/** The match types by their target. */
export const TARGETS = [1, 3, 7, 15];
const START_ROWS = "obupyrgn/8/8/8/8/8/8/NGRYPUBO";

/**
 * How a round ended, as engine.js's play() says it (PlayOutcome): the winner
 * ("b"/"g"), the colour of the winner's tower that gains a ring (a name),
 * the rings that tower had.
 * @typedef {{winner: string, colour: string, rings: number, reason?: string}} Outcome
 * @typedef {{start: string, fill: string|null, moves: string[], outcome: Outcome|null}} Round
 * @typedef {{target: number, series: boolean, state: string, winner: string|null,
 *   points: number[], kpn: string, rounds: Round[]}} MatchData
 */

/** The KPN of a match's start (kamisado.rules.board.start_kpn).
 * @param {number} target @param {string} [turn] "b" or "g" */
export function startKpn(target, turn = "b") { return `${START_ROWS} ${turn} - ${target} 0 0`; }

/**
 * The towers of a KPN's placement: by tower id (side * 8 + colour), its square (0..63) and rings.
 * @param {string} kpn
 * @returns {{square: number[], rings: number[]}}
 */
export function towersOf(kpn) {
  const rows = kpn.split(" ")[0].split("/");
  if (rows.length !== 8) throw new Error(`expected 8 rows in the KPN ${kpn}`);
  const square = Array(16).fill(-1);
  const rings = Array(16).fill(0);
  rows.forEach((row, i) => {
    const rank = 7 - i;
    let file = 0;
    let last = -1;
    for (const ch of row) {
      if (ch >= "1" && ch <= "8") { file += Number(ch); continue; }
      if (ch === "+") { rings[last] += 1; continue; }
      const colour = COLOUR_LETTERS.indexOf(ch.toLowerCase());
      if (colour < 0) throw new Error(`unknown tower ${ch} in the KPN ${kpn}`);
      last = (ch === ch.toUpperCase() ? 0 : 8) + colour;
      square[last] = rank * 8 + file;
      file += 1;
    }
  });
  return { square, rings };
}

/**
 * The order in which a side takes its towers to fill its home row (match.py's fill_order):
 * nearest its own home row first; within a row, its own far left (fill left) or right first.
 * @param {number[]} square the towers' squares @param {number} side 0 Black, 1 Gold @param {string} direction
 * @returns {number[]} tower ids
 */
export function fillOrder(square, side, direction) {
  /** @param {number} t */
  const key = (t) => {
    const sq = square[t];
    const rank = sq >> 3;
    const file = sq & 7;
    const row = side === 0 ? rank : 7 - rank;
    const leftness = side === 0 ? file : 7 - file;
    return [row, direction === "left" ? leftness : -leftness];
  };
  const ids = Array.from({ length: 8 }, (_, i) => side * 8 + i);
  // a stable sort by (row, leftness), as Python's sorted
  return ids.map((t) => ({ t, k: key(t) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.t - b.t).map((x) => x.t);
}

/** Both sides' new squares after filling `direction` (match.py's regroup).
 * @param {number[]} square @param {string} direction @returns {number[]} by tower id */
export function regroup(square, direction) {
  const placed = Array(16).fill(-1);
  for (const side of [0, 1]) {
    const rank = side === 0 ? 0 : 7;
    const files = side === 0 ? [0, 1, 2, 3, 4, 5, 6, 7] : [7, 6, 5, 4, 3, 2, 1, 0];
    if (direction === "right") files.reverse();
    fillOrder(square, side, direction).forEach((t, i) => { placed[t] = rank * 8 + files[i]; });
  }
  return placed;
}

export class OfflineMatch {
  /** @param {{target: number, series?: boolean, start?: string}} opts */
  constructor(opts) {
    const series = Boolean(opts.series);
    if (!(TARGETS.includes(opts.target) || (series && opts.target >= 1))) {
      throw new Error(`expected a target of 1, 3, 7 or 15, found ${opts.target}`);
    }
    this.target = opts.target;
    this.series = series;
    const start = opts.start || startKpn(series ? 1 : opts.target);
    const fields = start.split(" ");
    /** @type {number[]} */
    this.points = series ? [0, 0] : [Number(fields[4] || 0), Number(fields[5] || 0)];
    /** the live position's KPN */
    this.kpn = start;
    /** @type {Round[]} */
    this.rounds = [{ start, fill: null, moves: [], outcome: null }];
    /** "playing", "fill" or "over" */
    this.state = "playing";
    /** @type {string|null} "b" or "g" once the match is over */
    this.winner = null;
  }

  /** The round being played (or the last one). */
  get current() { return this.rounds[this.rounds.length - 1]; }

  /** The side whose action the match waits for: the mover, the round's winner choosing a fill, or null. */
  get toAct() {
    if (this.state === "over") return null;
    if (this.state === "fill") return /** @type {Outcome} */ (this.current.outcome).winner;
    return this.kpn.split(" ")[1];
  }

  /**
   * A move the engine played (engine.js's play(): its new KPN and outcome).
   * @param {string} move @param {string} kpn @param {Outcome|null} outcome
   */
  played(move, kpn, outcome) {
    if (this.state !== "playing") throw new Error(`${move}: the round is over`);
    this.current.moves.push(move);
    this.kpn = kpn;
    if (outcome) this.endRound(outcome);
  }

  /** The round ended (match.py's _end_round). @param {Outcome} outcome */
  endRound(outcome) {
    this.current.outcome = { winner: outcome.winner, colour: outcome.colour, rings: outcome.rings,
      reason: outcome.reason || "" };
    const w = outcome.winner === "b" ? 0 : 1;
    if (this.series) {
      this.points[w] += 1;
      if (this.points[w] >= this.target) { this.state = "over"; this.winner = outcome.winner; return; }
      // the next round: the standard start, the first move alternating
      const first = this.rounds.length % 2 ? "g" : "b";
      const pos = startKpn(1, first);
      this.kpn = pos;
      this.rounds.push({ start: pos, fill: null, moves: [], outcome: null });
      this.state = "playing";
      return;
    }
    this.points[w] += RING_POINTS[outcome.rings];
    if (this.points[w] >= this.target) { this.state = "over"; this.winner = outcome.winner; }
    else this.state = "fill";
  }

  /** The KPN the next round would start from after `direction` (match.py's next_round_start).
   * @param {string} direction "left" or "right" */
  nextRoundStart(direction) {
    if (this.state !== "fill") throw new Error(`${direction}: a fill is chosen only after a round of an unfinished match has ended`);
    if (direction !== "left" && direction !== "right") throw new Error(`expected a fill direction 'left' or 'right', found ${direction}`);
    const outcome = /** @type {Outcome} */ (this.current.outcome);
    const { square, rings } = towersOf(this.kpn);
    const w = outcome.winner === "b" ? 0 : 1;
    const ringed = w * 8 + COLOUR_NAMES.indexOf(outcome.colour);
    rings[ringed] = Math.min(3, rings[ringed] + 1);
    const placed = regroup(square, direction);
    const board = Array(64).fill(-1);
    placed.forEach((sq, t) => { board[sq] = t; });
    const rows = [7, 0].map((rank) => {
      let cells = "";
      for (let file = 0; file < 8; file++) {
        const t = board[rank * 8 + file];
        const letter = COLOUR_LETTERS[t & 7];
        cells += (t < 8 ? letter.toUpperCase() : letter) + "+".repeat(rings[t]);
      }
      return cells;
    });
    const loser = outcome.winner === "b" ? "g" : "b";
    return `${rows[0]}/8/8/8/8/8/8/${rows[1]} ${loser} - ${this.target} ${this.points[0]} ${this.points[1]}`;
  }

  /** The round's winner fills `direction`; the next round begins. @param {string} direction */
  chooseFill(direction) {
    const pos = this.nextRoundStart(direction);
    this.kpn = pos;
    this.rounds.push({ start: pos, fill: direction, moves: [], outcome: null });
    this.state = "playing";
    return pos;
  }

  /** Every action so far, in order: moves and fills (as the server's actions). */
  actions() {
    /** @type {string[]} */
    const out = [];
    for (const r of this.rounds) {
      if (r.fill) out.push(r.fill);
      out.push(...r.moves);
    }
    return out;
  }

  /** The match as plain data (kept in IndexedDB). @returns {MatchData} */
  toJSON() {
    return { target: this.target, series: this.series, state: this.state, winner: this.winner,
      points: [...this.points], kpn: this.kpn, rounds: this.rounds.map((r) => ({ ...r, moves: [...r.moves] })) };
  }

  /** A match from its data (toJSON's). @param {MatchData} data */
  static fromJSON(data) {
    const m = new OfflineMatch({ target: data.target, series: data.series, start: data.rounds[0].start });
    m.state = data.state;
    m.winner = data.winner;
    m.points = [...data.points];
    m.kpn = data.kpn;
    m.rounds = data.rounds.map((r) => ({ ...r, moves: [...r.moves] }));
    return m;
  }
}
