/* The move list: one notation everywhere (the rulebook's words), laid out as
   the record writes it (kamisado.record.entry_lines): row N holds Black's
   entry then Gold's; a round Gold opens starts with "..." for Black; a
   pushed tower's "Back 1" and a blocked tower's "0" stand in their side's
   column.  The squares of a move show on hover, or always as a setting. */
import { BOARD_ROWS, sqIndex } from "./board.js";
import { h } from "./dom.js";
import { entryNodes, t } from "./i18n.js";
import { prefs } from "./prefs.js";

/** @typedef {import("./types.js").Round} Round */

/**
 * Write the move list of `rounds` into `box`.
 * @param {HTMLElement} box
 * @param {Round[]} rounds
 * @param {{current?: Set<string>, onPick?: (round: number, index: number) => void, follow?: boolean}} [opts]
 *   `current`: keys "round:index" of the entries to mark; `onPick`: entries
 *   become buttons that call it; `follow`: scroll to the newest entry.
 */
export function renderMoves(box, rounds, opts) {
  const { current, onPick, follow } = opts || {};
  const table = h("table", { class: "movelist" });
  const head = table.createTHead().insertRow();
  for (const k of ["", "side.b", "side.g"]) head.append(h("th", { scope: "col" }, k ? t(k) : "#"));
  const body = table.createTBody();
  for (const rnd of rounds) {
    if (rounds.length > 1) {
      const td = h("td", { class: "round-head", colspan: "3" },
        t("game.round", { n: rnd.number }) + (rnd.fill ? ` (${t(rnd.fill === "left" ? "game.fill_left" : "game.fill_right")})` : ""));
      body.insertRow().append(td);
    }
    /** @type {HTMLTableRowElement|null} */
    let row = null;
    let n = 0;
    rnd.entries.forEach((e, i) => {
      const col = e.side === "b" ? 1 : 2;
      if (!row || col === 1 || row.cells[2].textContent) {
        row = body.insertRow();
        n++;
        row.append(h("td", { class: "n" }, `${n}.`), h("td"), h("td"));
        if (col === 2) { row.cells[1].textContent = "..."; row.cells[1].className = "gap"; }
      }
      const cell = row.cells[col];
      cell.className = e.kind;
      const words = entryNodes(e);
      if (prefs.squares && e.move) words.append(h("span", { class: "sq" }, ` ${e.move}`));
      /** @type {HTMLElement} */
      const item = onPick ? h("button", { type: "button", class: "entry" }, words) : h("span", { class: "entry" }, words);
      if (e.move) item.title = e.move;
      item.dataset.key = `${rnd.number}:${i}`;
      if (onPick) item.addEventListener("click", () => onPick(rnd.number, i));
      if (current && current.has(`${rnd.number}:${i}`)) {
        cell.classList.add("current");
        item.setAttribute("aria-current", "step");
      }
      cell.append(item);
    });
  }
  box.innerHTML = "";
  box.append(table);
  // scroll the list itself, never the page (on a phone the board stays in view)
  const cur = /** @type {HTMLElement|null} */ (box.querySelector(".current"));
  if (cur) {
    const top = cur.offsetTop, bottom = top + cur.offsetHeight;
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) box.scrollTop = top - box.clientHeight / 2;
  } else if (follow) box.scrollTop = box.scrollHeight;
}

/**
 * The move-list entry of a move ("Red Forward 4 Blue": the tower, the
 * direction from its side's view, the distance, the colour of the square it
 * ends on), from the towers before it and the board's colours; what the
 * puzzles and the review write a move in (`entryNodes` translates it).
 * @param {import("./types.js").TowerRow[]} towers the towers before the move
 * @param {string} turn the side to move ("b" or "g")
 * @param {string} move in square form, e.g. "c1-c5"
 * @returns {import("./types.js").Entry}
 */
export function moveEntry(towers, turn, move) {
  const [from, to] = move.split("-");
  const tower = towers.find((tw) => tw[0] === from);
  const cap = (/** @type {string} */ c) => c.charAt(0).toUpperCase() + c.slice(1);
  const a = sqIndex(from), b = sqIndex(to);
  const side = tower ? tower[1] : turn;
  const df = (b & 7) - (a & 7);
  const dir = df === 0 ? "Forward" : (df > 0) === (side === "g") ? "Left" : "Right";
  const colour = tower ? tower[2] : "brown";
  const finish = BOARD_ROWS[b >> 3][b & 7];
  const dist = Math.abs((b >> 3) - (a >> 3));
  return { side, long: `${cap(colour)} ${dir} ${dist} ${cap(finish)}`,
    short: `${colour[0]}${dir[0]}${dist}`, kind: "move", move };
}
