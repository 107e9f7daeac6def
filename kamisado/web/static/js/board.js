/* The board widget: draws what it is given (towers, the tower that must
   move, legal destinations, the last move) and reports the move a person
   picks.  It holds no rules: the server sends every legal destination. */
import { svg } from "./dom.js";
import { GLYPHS } from "./glyphs.js";
import { CHARS } from "./i18n.js";

/** @typedef {import("./types.js").TowerRow} TowerRow */
/** @typedef {import("./types.js").Pushed} Pushed */

/** The eight colours as drawn. */
export const HEX = /** @type {Record<string, string>} */ ({ brown: "#7b4a26", green: "#2c9a47",
  red: "#d3242b", yellow: "#f4c51c", pink: "#ee7bb0", purple: "#6a3d98", blue: "#1f6fbf", orange: "#ef7d23" });
/** A side's tower body, and the mark drawn on it. */
export const SIDE_FILL = /** @type {Record<string, string>} */ ({ b: "#161514", g: "#d9ac2e" });
const SIDE_MARK = /** @type {Record<string, string>} */ ({ b: "#d9ac2e", g: "#161514" });
// a small dragon: the owner's mark on every tower top
const DRAGON = "M-13,9 C-19,0 -12,-12 -2,-11 C8,-10 9,-1 2,1 C-4,3 -5,-5 0,-5 " +
  "M2,1 C10,3 14,9 8,14 M-2,-11 L-6,-17 M2,-11 L5,-17";

/**
 * The colour of every square, rank 1 first, written into the page by the
 * server from the rules core (also at /api/board).
 * @type {string[][]}
 */
export const BOARD_ROWS = JSON.parse(document.getElementById("board-data")?.textContent || "{}").rows;

/** "c1" from 0..63. @param {number} sq */
export const sqName = (sq) => "abcdefgh"[sq & 7] + ((sq >> 3) + 1);
/** 0..63 from "c1". @param {string} name */
export const sqIndex = (name) => "abcdefgh".indexOf(name[0]) + 8 * (Number(name[1]) - 1);

/**
 * @typedef {{legal?: Record<string, string[]>, must?: string|null, turn?: string|null,
 *   last?: {move?: string|null, pushed?: {to: string}[]}|null, highlight?: string[]}} Marks
 */

/**
 * What the keyboard cursor is on, for a screen reader.
 * @typedef {{square: string, colour: string, tower: TowerRow|null, dest: boolean, selected: boolean}} Cursor
 */

export class Board {
  /**
   * @param {SVGSVGElement} el
   * @param {{mini?: boolean, cursor?: boolean}} [opts]
   */
  constructor(el, opts) {
    this.svg = el;
    this.opts = opts || {};
    this.flip = false;
    /** @type {Map<string, SVGElement & {ringsG?: SVGElement}>} */
    this.towerEls = new Map();
    /** @type {((from: string, to: string) => void)|null} called with a picked move */
    this.onMove = null;
    /** @type {((what: Cursor) => void)|null} called with what the keyboard cursor is on */
    this.onSay = null;
    /** @type {Record<string, string[]>} */
    this.legal = {};
    /** @type {string|null} */
    this.selected = null;
    this.cursor = 0;
    this.keyboard = false;
    /** @type {TowerRow[]} */
    this.towers = [];
    /** @type {SVGElement[]} */
    this.squareEls = [];
    this.gSquares = svg("g", {}, el);
    this.gMarks = svg("g", {}, el);
    this.gTowers = svg("g", {}, el);
    this.gTop = svg("g", {}, el);
    /** how the last pick was made: "mouse", "touch", "pen" (pointer events) or "keyboard" */
    this.pointerType = "mouse";
    /** @type {{from: string, id: number, x: number, y: number, moved: boolean}|null} a tower held by the pointer */
    this.drag = null;
    this.dragged = false;  // a drag just ended: the click that follows it is not a pick
    this.build();
    if (!this.opts.mini) this.wireDrag();
  }

  /**
   * Drag and drop, beside click, click: press on a tower that can move,
   * drag it (mouse, touch or pen: pointer events) and let go on a lit
   * square.  A press that does not move is left to the click.
   */
  wireDrag() {
    const el = this.svg;
    el.addEventListener("pointerdown", (ev) => {
      this.pointerType = ev.pointerType || "mouse";
      this.dragged = false;
      if (ev.button !== 0 || !ev.isPrimary) return;
      const name = this.squareAt(ev.clientX, ev.clientY);
      this.drag = name && this.legal[name] ? { from: name, id: ev.pointerId, x: ev.clientX, y: ev.clientY, moved: false } : null;
    });
    el.addEventListener("pointermove", (ev) => {
      const d = this.drag;
      if (!d || ev.pointerId !== d.id) return;
      if (!d.moved) {
        if (Math.hypot(ev.clientX - d.x, ev.clientY - d.y) < 6) return;
        d.moved = true;
        try { el.setPointerCapture(ev.pointerId); } catch (e) { /* the pointer is gone */ }
        this.selected = d.from;
        this.keyboard = false;
        this.drawSelection();
        const g = this.towerAtSquare(d.from);
        if (g) { g.classList.add("still", "dragging"); this.gTowers.append(g); }
      }
      ev.preventDefault();
      const g = this.towerAtSquare(d.from);
      const p = this.toBoard(ev.clientX, ev.clientY);
      if (g && p) g.style.transform = `translate(${p.x}px, ${p.y}px)`;
    });
    const end = (/** @type {PointerEvent} */ ev, /** @type {boolean} */ dropped) => {
      const d = this.drag;
      if (!d || ev.pointerId !== d.id) return;
      this.drag = null;
      if (!d.moved) return;  // a click: the square's click handler picks
      this.dragged = true;
      try { el.releasePointerCapture(ev.pointerId); } catch (e) { /* released already */ }
      const g = this.towerAtSquare(d.from);
      if (g) g.classList.remove("dragging");
      const to = dropped ? this.squareAt(ev.clientX, ev.clientY) : null;
      if (to && (this.legal[d.from] || []).includes(to)) {
        if (g) {  // the tower stays where it was dropped until the server answers
          const [x, y] = this.xy(sqIndex(to));
          g.style.transform = `translate(${x + 50}px, ${y + 50}px)`;
        }
        this.selected = null;
        this.drawSelection();
        if (this.onMove) this.onMove(d.from, to);
      } else {
        if (g) g.classList.remove("still");  // back to its square, sliding
        this.setTowers(this.towers);
        this.drawSelection();
      }
    };
    el.addEventListener("pointerup", (ev) => end(ev, true));
    el.addEventListener("pointercancel", (ev) => end(ev, false));
    // the click a drag ends with (on the board, not a square) picks nothing
    el.addEventListener("click", (ev) => {
      if (this.dragged) { ev.stopPropagation(); this.dragged = false; }
    }, true);
  }

  /** A point of the page in board units (0..800), or null. @param {number} cx @param {number} cy */
  toBoard(cx, cy) {
    const m = this.svg.getScreenCTM();
    if (!m) return null;
    return new DOMPoint(cx, cy).matrixTransform(m.inverse());
  }

  /** The square under a point of the page, or null off the board. @param {number} cx @param {number} cy */
  squareAt(cx, cy) {
    const p = this.toBoard(cx, cy);
    if (!p || p.x < 0 || p.y < 0 || p.x >= 800 || p.y >= 800) return null;
    const col = Math.floor(p.x / 100), row = Math.floor(p.y / 100);
    const f = this.flip ? 7 - col : col, r = this.flip ? row : 7 - row;
    return sqName(r * 8 + f);
  }

  /** The tower element standing on a square. @param {string} name */
  towerAtSquare(name) {
    const tw = this.towerOn(name);
    return tw ? this.towerEls.get(`${tw[1]}-${tw[2]}`) || null : null;
  }

  /**
   * Show a move waiting for its confirmation: the tower on its new square,
   * both squares framed.  marks() or setTowers() draw the position again.
   * @param {string} from @param {string} to
   */
  showPending(from, to) {
    const g = this.towerAtSquare(from);
    if (g) {
      const [x, y] = this.xy(sqIndex(to));
      g.classList.add("still");
      g.style.transform = `translate(${x + 50}px, ${y + 50}px)`;
    }
    this.gTop.querySelectorAll(".pending").forEach((e) => e.remove());
    for (const name of [from, to]) {
      const [x, y] = this.xy(sqIndex(name));
      svg("rect", { class: "pending", x: x + 4, y: y + 4, width: 92, height: 92, "data-square": name }, this.gTop);
    }
  }

  /** Top-left corner of a square, in board units. @param {number} sq @returns {[number, number]} */
  xy(sq) {
    const f = sq & 7, r = sq >> 3;
    return this.flip ? [(7 - f) * 100, r * 100] : [f * 100, (7 - r) * 100];
  }

  build() {
    for (let sq = 0; sq < 64; sq++) {
      const colour = BOARD_ROWS[sq >> 3][sq & 7];
      const g = svg("g", { class: "square", "data-square": sqName(sq), "data-colour": colour }, this.gSquares);
      svg("rect", { width: 100, height: 100, fill: HEX[colour] }, g);
      svg("path", { class: "sqchar", d: GLYPHS[CHARS[colour]], transform: "translate(50,50) scale(0.05)" }, g);
      if (!this.opts.mini) svg("text", { class: "coord", x: 4, y: 96, "aria-hidden": "true" }, g).textContent = sqName(sq);
      g.addEventListener("click", () => this.click(sq));
      this.squareEls.push(g);
    }
    this.place();
  }

  place() {
    for (let sq = 0; sq < 64; sq++) {
      const [x, y] = this.xy(sq);
      this.squareEls[sq].setAttribute("transform", `translate(${x},${y})`);
    }
  }

  /** Turn the board so Gold's home row is at the bottom (or back). @param {boolean} flip */
  setFlip(flip) {
    if (flip === this.flip) return;
    this.flip = flip;
    this.place();
    this.towerEls.forEach((g) => g.classList.add("still"));
    this.setTowers(this.towers);
  }

  /** @param {string} side @param {string} colour */
  towerEl(side, colour) {
    const id = `${side}-${colour}`;
    let g = this.towerEls.get(id);
    if (g) return g;
    g = svg("g", { class: "tower still " + (side === "g" ? "gold" : "black"), "data-tower": id }, this.gTowers);
    g.dataset.colour = colour;
    g.dataset.side = side;
    g.ringsG = svg("g", { class: "rings" }, g);
    svg("circle", { class: "body", r: 38, fill: SIDE_FILL[side] }, g);
    svg("circle", { r: 26, fill: HEX[colour], stroke: SIDE_MARK[side], "stroke-width": 3 }, g);
    svg("path", { d: DRAGON, fill: "none", stroke: SIDE_FILL[side], "stroke-width": 3.2,
      "stroke-linecap": "round", class: "dragon", transform: "scale(1.15)" }, g);
    svg("path", { class: "towerchar", d: GLYPHS[CHARS[colour]], transform: "scale(0.032)",
      fill: SIDE_FILL[side], stroke: SIDE_MARK[side], "stroke-width": 60, "paint-order": "stroke" }, g);
    this.towerEls.set(id, g);
    return g;
  }

  /** Place every tower (they slide to new squares). @param {TowerRow[]} towers */
  setTowers(towers) {
    this.towers = towers;
    for (const [at, side, colour, rings] of towers) {
      const g = this.towerEl(side, colour);
      const sq = sqIndex(at);
      g.dataset.square = String(sq);
      g.dataset.at = at;
      const [x, y] = this.xy(sq);
      g.style.transform = `translate(${x + 50}px, ${y + 50}px)`;
      if (g.dataset.rings !== String(rings) && g.ringsG) {
        g.dataset.rings = String(rings);
        g.classList.toggle("sumo", rings > 0);
        g.ringsG.innerHTML = "";
        // the rank at a glance: a band per ring round the tower, dark under
        // light so it shows on any square, and a badge with the count
        for (let i = 0; i < rings; i++) {
          svg("circle", { class: "ring-under", r: 41 + i * 3.5 }, g.ringsG);
          svg("circle", { class: "ring", r: 41 + i * 3.5 }, g.ringsG);
        }
        g.querySelector(".rank")?.remove();
        if (rings > 0) {
          const badge = svg("g", { class: "rank", transform: "translate(27,-27)" }, g);
          svg("circle", { r: 15 }, badge);
          svg("text", { y: 7, "text-anchor": "middle" }, badge).textContent = String(rings);
        }
      }
    }
    requestAnimationFrame(() => requestAnimationFrame(() =>
      this.towerEls.forEach((g) => g.classList.remove("still"))));
  }

  /** The tower standing on a square. @param {string} name */
  towerOn(name) {
    return this.towers.find((tw) => tw[0] === name) || null;
  }

  /**
   * Draw the marks: the last move (from, to, and every tower it pushed), the
   * tower that must move, highlighted squares, and, for the person to move,
   * the legal destinations.
   * @param {Marks} m
   */
  marks({ legal, must, turn, last, highlight }) {
    this.legal = legal || {};
    this.gMarks.innerHTML = "";
    this.gTop.innerHTML = "";
    /** @param {string} cls @param {string} name */
    const frame = (cls, name) => {
      const [x, y] = this.xy(sqIndex(name));
      // dark under light: strong on every square colour
      svg("rect", { class: `${cls} mark-under`, x: x + 4, y: y + 4, width: 92, height: 92, "data-square": name }, this.gMarks);
      svg("rect", { class: `${cls} mark`, x: x + 4, y: y + 4, width: 92, height: 92, "data-square": name }, this.gMarks);
    };
    if (last && last.move) {
      const [from, to] = last.move.split("-");
      frame("last-from", from);
      frame("last-to", to);
      for (const p of last.pushed || []) frame("pushed-to", p.to);
    }
    for (const name of highlight || []) {
      const [x, y] = this.xy(sqIndex(name));
      svg("rect", { class: "hl", x: x + 3, y: y + 3, width: 94, height: 94 }, this.gTop);
    }
    if (must && turn) {
      const tw = this.towers.find(([, s, c]) => s === turn && c === must);
      if (tw) {
        const [x, y] = this.xy(sqIndex(tw[0]));
        svg("circle", { class: "must-under", cx: x + 50, cy: y + 50, r: 46 }, this.gTop);
        svg("circle", { class: "must", cx: x + 50, cy: y + 50, r: 46 }, this.gTop);
      }
    }
    const movable = Object.keys(this.legal);
    if (this.selected && !this.legal[this.selected]) this.selected = null;
    if (!this.selected && movable.length === 1) this.selected = movable[0];
    this.svg.classList.toggle("can-move", movable.length > 0);
    this.drawSelection();
  }

  drawSelection() {
    this.gTop.querySelectorAll(".dest, .dest-halo, .cursor").forEach((e) => e.remove());
    this.towerEls.forEach((g) => g.classList.remove("selected"));
    if (this.opts.cursor && this.keyboard) {
      const [x, y] = this.xy(this.cursor);
      // a double ring, dark outside and white inside: seen on every square colour
      svg("rect", { class: "cursor cursor-outer", x: x + 5, y: y + 5, width: 90, height: 90 }, this.gTop);
      svg("rect", { class: "cursor cursor-inner", x: x + 5, y: y + 5, width: 90, height: 90 }, this.gTop);
    }
    if (!this.selected) return;
    const sel = sqIndex(this.selected);
    this.towerEls.forEach((g) => { if (Number(g.dataset.square) === sel) g.classList.add("selected"); });
    for (const to of this.legal[this.selected] || []) {
      const [x, y] = this.xy(sqIndex(to));
      const push = Boolean(this.towerOn(to));
      if (push) svg("circle", { class: "dest-halo", cx: x + 50, cy: y + 50, r: 46 }, this.gTop);
      // a dot in the middle; in the colour-blind mode a ring round the
      // square's character instead (style.css), so the character stays seen
      svg("circle", { class: "dest" + (push ? " push" : ""), cx: x + 50, cy: y + 50,
        r: push ? 46 : 13, "data-dest": to }, this.gTop);
    }
  }

  /** A click (or Enter) on a square. @param {number} sq */
  click(sq) {
    const name = sqName(sq);
    if (this.selected && (this.legal[this.selected] || []).includes(name)) {
      const from = this.selected;
      this.selected = null;
      this.drawSelection();
      if (this.onMove) this.onMove(from, name);
      return;
    }
    this.selected = this.legal[name] ? name : (Object.keys(this.legal).length === 1 ? this.selected : null);
    this.drawSelection();
  }

  /**
   * The keyboard: arrows move the cursor, Enter or Space picks, Escape
   * drops the pick.  Returns whether the key was the board's.
   * @param {KeyboardEvent} ev
   * @returns {boolean}
   */
  key(ev) {
    this.pointerType = "keyboard";
    /** @type {Record<string, [number, number]>} */
    const dirs = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (dirs[ev.key]) {
      ev.preventDefault();
      if (!this.keyboard) {
        this.keyboard = true;
        // on the picked tower, else in the middle of the home row nearest the player
        this.cursor = this.selected ? sqIndex(this.selected) : (this.flip ? 59 : 3);
      } else {
        let [df, dr] = dirs[ev.key];
        if (this.flip) { df = -df; dr = -dr; }
        const f = Math.min(7, Math.max(0, (this.cursor & 7) + df));
        const r = Math.min(7, Math.max(0, (this.cursor >> 3) + dr));
        this.cursor = r * 8 + f;
      }
      this.drawSelection();
      this.say();
      return true;
    }
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      if (!this.keyboard) { this.keyboard = true; this.cursor = this.selected ? sqIndex(this.selected) : (this.flip ? 59 : 3); }
      else this.click(this.cursor);
      this.drawSelection();
      this.say();
      return true;
    }
    if (ev.key === "Escape" && this.selected) {
      this.selected = null;
      this.drawSelection();
      return true;
    }
    return false;
  }

  /** Tell the listener what is under the keyboard cursor. */
  say() {
    if (!this.onSay) return;
    const name = sqName(this.cursor);
    const colour = BOARD_ROWS[this.cursor >> 3][this.cursor & 7];
    const tw = this.towerOn(name);
    const dest = this.selected !== null && (this.legal[this.selected] || []).includes(name);
    this.onSay({ square: name, colour, tower: tw, dest, selected: this.selected === name });
  }

  /** Shake the towers on these squares (a pass). @param {string[]} squares */
  pulse(squares) {
    for (const name of squares) {
      const sq = sqIndex(name);
      this.towerEls.forEach((g) => {
        if (Number(g.dataset.square) === sq) {
          g.classList.remove("passing");
          void (/** @type {SVGGraphicsElement} */ (/** @type {unknown} */ (g))).getBBox();
          g.classList.add("passing");
        }
      });
    }
  }
}
