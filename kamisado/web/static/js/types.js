/* The shapes the server sends (docs/web.md), for the type checker only. */

/**
 * A tower on the wire: [square, side letter, colour name, rings].
 * @typedef {[string, string, string, number]} TowerRow
 */
/**
 * @typedef {{side: string, long: string, short: string, kind: string, move: string|null}} Entry
 * @typedef {{side: string, colour: string, rings: number}} TowerView
 * @typedef {{side: string, colour: string, rings: number, from: string, to: string}} Pushed
 * @typedef {{side: string, colour: string, square: string}} Pass
 * @typedef {{winner: string, colour: string, reason: string, rings: number, points: number}} Outcome
 * @typedef {{number: number, start: string, fill: string|null, entries: Entry[], result: Outcome|null}} Round
 * @typedef {{kind?: string, side?: string, move?: string, push?: boolean, pushed?: Pushed[],
 *   mover?: TowerView, entries?: Entry[], passes?: Pass[], outcome?: Outcome|null, fill?: string,
 *   reason?: string, count?: number}} Last
 * @typedef {{kpn: string, towers: TowerRow[], turn: string, must: string|null,
 *   legal: Record<string, string[]>, outcome: Outcome|null, passes: Pass[]}} PositionView
 * @typedef {{kind: string, name: string, online: boolean, away_ms?: number|null, player?: string|null,
 *   rating?: number|null, rating_change?: number|null, provisional?: boolean, bot?: boolean}} Seat
 * @typedef {{kind: string, by: string}} Offer
 * @typedef {PositionView & {type: string, game: string, seq: number, name: string, target: number,
 *   series: boolean, online_game: boolean, points: number[], state: string, winner: string|null,
 *   round: number, to_act: string|null, seats: Record<string, Seat>, thinking: boolean,
 *   last: Last|null, rounds: Round[], fill: {chooser: string, left: PositionView, right: PositionView}|null,
 *   clock: Clock|null, ended: {reason: string, winner: string|null}|null, you: string[],
 *   rated?: boolean, offer?: Offer|null, declined?: Offer|null, rematch?: string|null, claim_after_ms?: number|null,
 *   takeback?: Record<string, number>, seed?: number|null}} StateFrame
 * @typedef {{b: number, g: number, running: string|null, control: {initial?: number, increment?: number, days?: number}}} Clock
 * The server stops (SIGTERM): it stores nothing more and closes; the page reconnects.
 * @typedef {{type: "restarting"}} RestartingFrame
 * @typedef {PositionView & {round: number, ply: number, move: string|null, entries: Entry[],
 *   fill: string|null, mover?: TowerView|null, push?: boolean, pushed?: Pushed[],
 *   comment?: {text: string, words: string}|null}} Step
 */
/**
 * A clock control: real time (seconds + seconds) or days a move.
 * @typedef {{initial?: number, increment?: number, days?: number}} Control
 * An open challenge in the lobby.
 * @typedef {{id: string, by: {player: string, name: string, rating: number|null, provisional?: boolean, bot?: boolean}, target: number,
 *   series: boolean, name: string, clock: Control|null, rated: boolean, color: string, mine: boolean,
 *   to?: string|null}} Challenge
 * The solver's word on a position (/api/games/{id}/review): who wins the round, in how many moves.
 * @typedef {{winner: string, distance: number}} Verdict
 * One move's mark in review: "??" where it threw away a proven win (`lost`: that win's moves)
 * or a proven match win; `match`: who wins the match before and after the move where the
 * server's match proof store covers it ("b"/"g", null: not proven), else null.
 * @typedef {{step: number, round: number, ply: number, move: string, side: string, mark: string,
 *   lost: number|null, before: Verdict|null, after: Verdict|null,
 *   match?: {before: string|null, after: string|null}|null}} ReviewMark
 * One round's end in review (/api/games/{id}/review's `rounds`): its winner, the points the win
 * brought, the score after it, and Black's chance (0 to 1) to win the match before and after it.
 * @typedef {{step: number, round: number, winner: string, points: number, score: number[],
 *   before: number, after: number}} RoundEnd
 * One of the best moves of /api/analyse?lines=N: `value` is the evaluation, or the moves
 * to the end of the round of a proven result (`kind` "win"/"loss"), for the side to move.
 * @typedef {{move: string, kind: string, value: number, pv: string[], entries: Entry[]}} AnalysisLine
 * One move of a game report (/api/games/{id}/report): `ply` its number in the whole match
 * (the review's `?ply=`), `step` its position in /steps, `entries` (a marked move's) the
 * move-list entries the move writes, `kind` "blunder", "mistake",
 * "inaccuracy" or "", `before`/`after` the mover's win percentage, `lost` the distance of
 * the proven win a blunder threw away.
 * @typedef {{step: number, ply: number, round: number, round_ply: number, move: string, side: string,
 *   kind: string, mark: string, lost: number|null, before: number, after: number, loss: number,
 *   accuracy: number, entries?: Entry[]}} ReportEntry
 * One side's figures in a game report.
 * @typedef {{side: string, moves: number, blunders: number, mistakes: number, inaccuracies: number,
 *   accuracy: number|null}} ReportSide
 * A game's report and its progress: `state` "none", "queued", "running", "done" or "failed"
 * ("empty": a finished game without moves, nothing to report).
 * @typedef {{game: string, state: string, done: number, total: number, auto: boolean,
 *   report: {sides: ReportSide[], entries: ReportEntry[]}|null, error: string|null}} GameReport
 */
export {};
