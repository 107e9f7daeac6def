/* Kamisado in the browser.  The server applies every rule: this page draws
   what it is sent (positions, legal destinations) and sends chosen moves. */
"use strict";

const HEX = { brown: "#7b4a26", green: "#2c9a47", red: "#d3242b", yellow: "#f4c51c",
  pink: "#ee7bb0", purple: "#6a3d98", blue: "#1f6fbf", orange: "#ef7d23" };
// the reverse side: one Chinese character per colour (see docs/web.md)
const CHARS = { brown: "茶", green: "綠", red: "紅", yellow: "黃", pink: "桃", purple: "紫",
  blue: "藍", orange: "橙" };
// the colour of every square, rank 1 first, written into the page by the server
// (also at /api/board): the rules core owns the board; the page only draws it
const BOARD_ROWS = JSON.parse(document.getElementById("board-data").textContent).rows;
// the wire names a square as "c1", a side as "b"/"g", a colour by its name
const SIDE_FILL = { b: "#161514", g: "#d9ac2e" };
const SIDE_MARK = { b: "#d9ac2e", g: "#161514" };
const NS = "http://www.w3.org/2000/svg";
// a small dragon: the owner's mark on every tower top
const DRAGON = "M-13,9 C-19,0 -12,-12 -2,-11 C8,-10 9,-1 2,1 C-4,3 -5,-5 0,-5 " +
  "M2,1 C10,3 14,9 8,14 M-2,-11 L-6,-17 M2,-11 L5,-17";

const $ = (sel) => document.querySelector(sel);
const $$ = (sel) => Array.from(document.querySelectorAll(sel));

// ---------------------------------------------------------------- i18n
let STR = {}, EN = {};
let LANG = localStorage.getItem("kamisado.lang") || "en";

async function loadLang(lang) {
  const get = async (l) => {
    try { const r = await fetch(`/static/i18n/${l}.json`); return r.ok ? await r.json() : {}; }
    catch (e) { return {}; }
  };
  if (!Object.keys(EN).length) EN = await get("en");
  STR = lang === "en" ? EN : await get(lang);
  LANG = lang;
  document.documentElement.lang = lang;
  localStorage.setItem("kamisado.lang", lang);
  $("#lang").value = lang;
  $$("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
}

function t(key, params) {
  let s = STR[key] ?? EN[key] ?? key;
  if (params) for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(v);
  return s;
}
const sideName = (s) => t(`side.${s}`);
const colourName = (c) => t(`colour.${c}`);
function entryText(long) {
  // "Red Forward 4 Blue" / "Green 0 Yellow": the rulebook's words, translated
  const w = long.split(" ");
  const c = (x) => colourName(x.toLowerCase());
  if (w.length === 3) return `${c(w[0])} 0 ${c(w[2])}`;
  return `${c(w[0])} ${t("dir." + w[1])} ${w[2]} ${c(w[3])}`;
}
const pointsText = (n) => (n === 1 ? t("game.point") : t("game.points", { n }));

// ---------------------------------------------------------------- board drawing
const sqName = (sq) => "abcdefgh"[sq & 7] + ((sq >> 3) + 1);
const sqIndex = (name) => "abcdefgh".indexOf(name[0]) + 8 * (Number(name[1]) - 1);

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

class Board {
  constructor(svg, opts) {
    this.svg = svg;
    this.opts = opts || {};
    this.flip = false;
    this.towerEls = new Map();
    this.onMove = null;       // (from, to) => void
    this.legal = {};
    this.selected = null;
    this.cursor = 0;
    this.build();
  }
  xy(sq) {
    const f = sq & 7, r = sq >> 3;
    return this.flip ? [(7 - f) * 100, r * 100] : [f * 100, (7 - r) * 100];
  }
  build() {
    const s = this.svg;
    s.innerHTML = "";
    this.gSquares = el("g", {}, s);
    this.gMarks = el("g", {}, s);
    this.gTowers = el("g", {}, s);
    this.gTop = el("g", {}, s);
    this.squareEls = [];
    for (let sq = 0; sq < 64; sq++) {
      const colour = BOARD_ROWS[sq >> 3][sq & 7];
      const g = el("g", { class: "square", "data-square": sqName(sq) }, this.gSquares);
      el("rect", { width: 100, height: 100, fill: HEX[colour] }, g);
      el("path", { class: "sqchar", d: GLYPHS[CHARS[colour]], transform: "translate(50,50) scale(0.05)" }, g);
      if (!this.opts.mini) {
        const c = el("text", { class: "coord", x: 4, y: 96 }, g);
        c.textContent = sqName(sq);
      }
      g.addEventListener("click", () => this.click(sq));
      this.squareEls.push(g);
    }
    this.towerEls.clear();
    this.place();
  }
  place() {
    for (let sq = 0; sq < 64; sq++) {
      const [x, y] = this.xy(sq);
      this.squareEls[sq].setAttribute("transform", `translate(${x},${y})`);
    }
  }
  setFlip(flip) {
    if (flip === this.flip) return;
    this.flip = flip;
    this.place();
    this.towerEls.forEach((g) => g.classList.add("still"));
    if (this.towers) this.setTowers(this.towers);
  }
  towerEl(side, colour) {
    const id = `${side}-${colour}`;
    let g = this.towerEls.get(id);
    if (g) return g;
    g = el("g", { class: "tower still " + (side === "g" ? "gold" : "black"), "data-tower": id }, this.gTowers);
    g.dataset.colour = colour;
    g.dataset.side = side;
    g.ringsG = el("g", {}, g);
    el("circle", { class: "body", r: 38, fill: SIDE_FILL[side] }, g);
    el("circle", { r: 26, fill: HEX[colour], stroke: SIDE_MARK[side], "stroke-width": 3 }, g);
    const mark = el("path", { d: DRAGON, fill: "none", stroke: SIDE_FILL[side], "stroke-width": 3.2,
      "stroke-linecap": "round", class: "dragon" }, g);
    mark.setAttribute("transform", "scale(1.15)");
    el("path", { class: "towerchar", d: GLYPHS[CHARS[colour]], transform: "scale(0.032)",
      fill: SIDE_FILL[side], stroke: SIDE_MARK[side], "stroke-width": 60, "paint-order": "stroke" }, g);
    this.towerEls.set(id, g);
    return g;
  }
  setTowers(towers) {
    this.towers = towers;
    for (const [at, side, colour, rings] of towers) {
      const g = this.towerEl(side, colour);
      const sq = sqIndex(at);
      g.dataset.square = sq;
      g.dataset.at = at;
      const [x, y] = this.xy(sq);
      g.style.transform = `translate(${x + 50}px, ${y + 50}px)`;
      if (g.dataset.rings !== String(rings)) {
        g.dataset.rings = rings;
        g.ringsG.innerHTML = "";
        for (let i = 0; i < rings; i++) el("circle", { class: "ring", r: 41 + i * 4 }, g.ringsG);
      }
    }
    requestAnimationFrame(() => requestAnimationFrame(() =>
      this.towerEls.forEach((g) => g.classList.remove("still"))));
  }
  marks({ legal, must, turn, last, highlight }) {
    this.legal = legal || {};
    this.must = must; this.turn = turn;
    this.gMarks.innerHTML = ""; this.gTop.innerHTML = "";
    if (last && last.move) {
      for (const name of last.move.split("-")) {
        const [x, y] = this.xy(sqIndex(name));
        el("rect", { class: "lastmove", x, y, width: 100, height: 100 }, this.gMarks);
      }
    }
    for (const name of highlight || []) {
      const [x, y] = this.xy(sqIndex(name));
      el("rect", { class: "hl", x: x + 3, y: y + 3, width: 94, height: 94 }, this.gTop);
    }
    const movable = Object.keys(this.legal);
    if (must && turn) {
      const tw = this.towers && this.towers.find(([, s, c]) => s === turn && c === must);
      if (tw) {
        const [x, y] = this.xy(sqIndex(tw[0]));
        el("circle", { class: "must", cx: x + 50, cy: y + 50, r: 46 }, this.gTop);
      }
    }
    if (this.selected && !this.legal[this.selected]) this.selected = null;
    if (!this.selected && movable.length === 1) this.selected = movable[0];
    this.drawSelection();
  }
  drawSelection() {
    this.gTop.querySelectorAll(".dest, .dest-halo").forEach((e) => e.remove());
    this.towerEls.forEach((g) => g.classList.remove("selected"));
    if (this.opts.cursor) {
      this.gTop.querySelectorAll(".cursor").forEach((e) => e.remove());
      if (this.keyboard) {
        const [x, y] = this.xy(this.cursor);
        // a double ring, dark outside and white inside: seen on every square colour
        el("rect", { class: "cursor cursor-outer", x: x + 5, y: y + 5, width: 90, height: 90 }, this.gTop);
        el("rect", { class: "cursor cursor-inner", x: x + 5, y: y + 5, width: 90, height: 90 }, this.gTop);
      }
    }
    if (!this.selected) return;
    const sel = sqIndex(this.selected);
    this.towerEls.forEach((g) => { if (Number(g.dataset.square) === sel) g.classList.add("selected"); });
    const occupied = new Set((this.towers || []).map((x) => x[0]));
    for (const to of this.legal[this.selected] || []) {
      const [x, y] = this.xy(sqIndex(to));
      if (occupied.has(to)) {   // a Sumo push: a red target ring around the tower pushed
        el("circle", { class: "dest-halo", cx: x + 50, cy: y + 50, r: 46 }, this.gTop);
      }
      el("circle", { class: "dest" + (occupied.has(to) ? " push" : ""), cx: x + 50, cy: y + 50,
        r: occupied.has(to) ? 46 : 13, "data-dest": to }, this.gTop);
    }
  }
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
  key(ev) {
    const dirs = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (dirs[ev.key]) {
      ev.preventDefault();
      if (!this.keyboard) {
        this.keyboard = true;
        this.cursor = this.selected ? sqIndex(this.selected) : (this.flip ? 59 : 3);
      } else {
        let [df, dr] = dirs[ev.key];
        if (this.flip) { df = -df; dr = -dr; }
        const f = Math.min(7, Math.max(0, (this.cursor & 7) + df));
        const r = Math.min(7, Math.max(0, (this.cursor >> 3) + dr));
        this.cursor = r * 8 + f;
      }
      this.drawSelection();
    } else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      if (this.keyboard) this.click(this.cursor);
    } else if (ev.key === "Escape") {
      this.selected = null; this.drawSelection();
    }
  }
  pulse(squares) {
    for (const name of squares) {
      const sq = sqIndex(name);
      this.towerEls.forEach((g) => {
        if (Number(g.dataset.square) === sq) {
          g.classList.remove("passing"); void g.getBBox(); g.classList.add("passing");
        }
      });
    }
  }
}

// ---------------------------------------------------------------- state
const board = new Board($("#board"), { cursor: true });
const fillBoards = { left: new Board($("#fill-left-board"), { mini: true }),
  right: new Board($("#fill-right-board"), { mini: true }) };
const lessonBoards = { left: new Board($("#lesson-left"), { mini: true }),
  right: new Board($("#lesson-right"), { mini: true }) };
$("#board").addEventListener("keydown", (ev) => {
  if (mode === "review") return reviewKey(ev);
  board.key(ev);
});

let mode = null;      // "game" | "review" | "lesson" | "puzzle"
let ws = null, wsGame = null, wsToken = null, retry = 0, game = null;
let lastAnnounced = -1;

function showView(name) {
  $$(".view").forEach((v) => v.classList.toggle("active", v.id === `view-${name}`));
}
function panelParts(which) {
  $("#review-controls").hidden = which !== "review";
  $("#lesson-box").hidden = which !== "lesson";
  $(".moves-title").hidden = which === "lesson";
  $("#moves").hidden = which === "lesson";
  $("#download").hidden = which === "lesson";
  if (which !== "game") { $("#links").hidden = true; $("#fill-panel").hidden = true; }
  $("#result").hidden = true;
}
function setStatus(text) { $("#status").textContent = text; }
function announce(text) { $("#announce").textContent = text; }

function tokenFor(id) { return localStorage.getItem(`kamisado.token.${id}`); }
function saveToken(id, token) { if (token) localStorage.setItem(`kamisado.token.${id}`, token); }

// ---------------------------------------------------------------- playing
function connect(id, token) {
  closeSocket();
  wsGame = id; wsToken = token; game = null; lastAnnounced = -1;
  mode = "game";
  showView("play"); panelParts("game");
  setStatus(t("game.connecting"));
  $("#moves").innerHTML = "";
  $("#download").href = `/api/games/${id}/record`;
  openSocket();
}
function openSocket() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const sock = new WebSocket(`${proto}://${location.host}/ws`);
  ws = sock;
  sock.onopen = () => {
    retry = 0;
    sock.send(JSON.stringify({ type: "join", game: wsGame, token: wsToken || undefined }));
  };
  sock.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") {
      // never go back to an older position (frames of one game arrive in order,
      // but a reconnect may race an old socket)
      if (game && game.game === msg.game && msg.seq < game.seq) return;
      render(msg);
    }
    else if (msg.type === "error") {
      if (msg.code === "no_game") setStatus(t("game.not_found"));
      else announce(t("game.error", { message: msg.message }));
    }
  };
  sock.onclose = () => {
    if (ws !== sock) return;
    setStatus(t("game.reconnecting"));
    retry = Math.min(retry + 1, 5);
    setTimeout(() => { if (ws === sock) openSocket(); }, 250 * 2 ** retry);
  };
}
function closeSocket() {
  if (ws) { const s = ws; ws = null; s.close(); }
}
function send(obj) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj)); }

board.onMove = (from, to) => {
  if (mode === "game") send({ type: "move", move: `${from}-${to}`, seq: game ? game.seq : undefined });
  else if (mode === "lesson" || mode === "puzzle") lessonMove(`${from}-${to}`);
};
$("#fill-left").addEventListener("click", () => send({ type: "fill", direction: "left", seq: game && game.seq }));
$("#fill-right").addEventListener("click", () => send({ type: "fill", direction: "right", seq: game && game.seq }));

function seatLabel(s, st) {
  const seat = st.seats[s];
  const name = seat.kind === "human" ? seat.name : (seat.name.startsWith("Computer (")
    ? t("game.computer", { level: t(`level.${seat.kind}`) }) : seat.name);
  return name === "Black" || name === "Gold" ? sideName(s) : name;
}

function render(st) {
  const prev = game;
  game = st;
  $("#board").dataset.seq = st.seq;
  const you = st.you || [];
  board.setFlip(you.length === 1 && you[0] === "g");
  board.setTowers(st.towers);
  const canAct = st.to_act && you.includes(st.to_act);
  const playing = st.state === "playing" && !st.outcome;
  board.marks({ legal: canAct && playing ? st.legal : {}, must: playing ? st.must : null, turn: st.turn, last: st.last });
  // seats
  const top = board.flip ? "b" : "g", bottom = board.flip ? "g" : "b";
  for (const [cls, s] of [[".seat-top", top], [".seat-bottom", bottom]]) {
    const div = $(cls);
    const seat = st.seats[s];
    div.className = `seat ${cls.slice(1)}` + (st.to_act === s ? " to-act" : "");
    div.innerHTML = "";
    const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = SIDE_FILL[s];
    const name = document.createElement("span"); name.textContent = seatLabel(s, st) + (you.includes(s) && you.length === 1 ? ` (${t("game.you")})` : "");
    const pts = document.createElement("span"); pts.className = "pts"; pts.textContent = `${st.points["bg".indexOf(s)]}`;
    div.append(dot, name, pts);
    if (st.online_game && seat.kind === "human") {
      const p = document.createElement("span"); p.className = "presence";
      p.textContent = seat.online ? t("game.online") : t("game.offline");
      div.append(p);
    }
  }
  const mt = st.series ? ([3, 5].includes(st.target) ? t(`match.s${st.target}`) : `${st.name}`)
    : t(`match.${st.target}`);
  $("#match-info").textContent = `${mt} · ${t("game.round", { n: st.round })} · ${t("game.score")} ${st.points[0]}–${st.points[1]}`;
  // status
  let status = "";
  const actor = st.to_act;
  if (st.state === "over") status = t("game.winner", { side: sideName(st.winner), score: `${st.points[0]}–${st.points[1]}` });
  else if (st.thinking) status = t("game.thinking", { side: sideName(actor) });
  else if (st.state === "playing") {
    if (canAct && you.length === 1) status = st.must ? t("game.your_move", { colour: colourName(st.must) }) : t("game.your_first_move");
    else status = st.must ? t("game.must_move", { side: sideName(actor), colour: colourName(st.must) })
      : t("game.first_move", { side: sideName(actor) });
  }
  if (st.state !== "over" && actor && st.seats[actor].kind === "human" && st.online_game && !st.seats[actor].online && !canAct) {
    status += " " + (st.seq === 0 ? t("game.waiting_opponent") : t("game.waiting_for", { side: sideName(actor) }));
  }
  if (!you.length) status += " " + t("game.spectating");
  setStatus(status.trim());
  // announcements: passes, pushes, round ends
  if (prev === null || st.seq !== lastAnnounced) {
    const parts = [];
    const last = st.last;
    if (last && last.kind === "move" && prev !== null) {
      if (last.push) parts.push(t("game.push"));
      for (const p of last.passes || []) parts.push(t("game.pass", { side: sideName(p.side), colour: colourName(p.colour) }));
      if (last.passes && last.passes.length) board.pulse(last.passes.map((p) => p.square));
    }
    const o = last && last.outcome;
    if (o) {
      if (o.reason === "deadlock") parts.push(t("game.deadlock", { side: sideName(o.winner), loser: sideName(o.winner === "b" ? "g" : "b") }));
      else parts.push(t("game.round_won", { side: sideName(o.winner), colour: colourName(o.colour), points: pointsText(o.points) }));
      if (st.target > 1 && !st.series) parts.push(t("game.ring", { colour: colourName(o.colour) }));
    }
    announce(parts.join(" "));
    lastAnnounced = st.seq;
  }
  // fill choice: both line-ups side by side
  const fp = $("#fill-panel");
  if (st.state === "fill" && st.fill) {
    fp.hidden = false;
    const mine = you.includes(st.fill.chooser);
    $("#fill-text").textContent = t(mine ? "game.fill_choose" : "game.fill_wait", { side: sideName(st.fill.chooser) });
    for (const d of ["left", "right"]) {
      fillBoards[d].setFlip(board.flip);
      fillBoards[d].setTowers(st.fill[d].towers);
      fillBoards[d].marks({});
      $(`#fill-${d}`).disabled = !mine;
    }
  } else fp.hidden = true;
  // invite links
  const links = $("#links");
  if (st.online_game && you.length === 1) {
    const other = you[0] === "b" ? "g" : "b";
    const inv = sessionStorage.getItem(`kamisado.invite.${st.game}`);
    links.hidden = false;
    $("#invite-link").value = inv ? `${location.origin}/#/game/${st.game}?t=${inv}` : "";
    $("#invite-link").closest("label").hidden = !inv || st.seats[other].kind !== "human";
    $("#watch-link").value = `${location.origin}/#/game/${st.game}`;
  } else links.hidden = true;
  renderMoves(st.rounds);
  // result screen
  if (st.state === "over" && (prev === null || prev.state !== "over" || prev.game !== st.game)) {
    $("#result-text").textContent = t("game.winner", { side: sideName(st.winner), score: `${st.points[0]}–${st.points[1]}` });
    // after the last move has been seen
    setTimeout(() => { if (game && game.game === st.game && game.state === "over") $("#result").hidden = false; }, prev === null ? 0 : 700);
  }
  if (st.state !== "over") $("#result").hidden = true;
}

function renderMoves(rounds, current) {
  const box = $("#moves");
  const table = document.createElement("table");
  for (const rnd of rounds) {
    if (rounds.length > 1) {
      const tr = table.insertRow(); const td = tr.insertCell(); td.colSpan = 3; td.className = "round-head";
      td.textContent = t("game.round", { n: rnd.number }) + (rnd.fill ? ` (${t(rnd.fill === "left" ? "game.fill_left" : "game.fill_right")})` : "");
    }
    // laid out as the record writes it (kamisado.record.entry_lines): row N holds
    // Black's entry then Gold's; a round Gold opens starts with "..." for Black
    let row = null, n = 0;
    rnd.entries.forEach((e, i) => {
      const col = e.side === "b" ? 1 : 2;
      if (!row || col === 1 || row.cells[2].textContent) {
        row = table.insertRow(); n++;
        const c0 = row.insertCell(); c0.className = "n"; c0.textContent = `${n}.`;
        row.insertCell(); row.insertCell();
        if (col === 2) { row.cells[1].textContent = "..."; row.cells[1].className = "gap"; }
      }
      const cell = row.cells[col];
      cell.textContent = entryText(e.long);
      cell.className = e.kind;
      if (current && current[0] === rnd.number && current[1] === i) cell.classList.add("current");
    });
  }
  box.innerHTML = "";
  box.appendChild(table);
  box.scrollTop = box.scrollHeight;
}

$("#result-close").addEventListener("click", () => { $("#result").hidden = true; });
$("#result-review").addEventListener("click", () => { if (game) location.hash = `#/review/${game.game}`; });
$$(".copy").forEach((b) => b.addEventListener("click", async () => {
  const input = document.getElementById(b.dataset.for);
  input.select();
  try { await navigator.clipboard.writeText(input.value); } catch (e) { document.execCommand("copy"); }
  b.textContent = t("game.copied");
  setTimeout(() => { b.textContent = t("game.copy"); }, 1200);
}));

// ---------------------------------------------------------------- new game
async function loadLevels() {
  const r = await fetch("/api/levels");
  const levels = await r.json();
  $$("select.levels").forEach((sel) => {
    sel.innerHTML = "";
    for (const l of levels) {
      const o = document.createElement("option");
      o.value = l.name; o.dataset.i18n = `level.${l.name}`; o.textContent = t(`level.${l.name}`);
      sel.appendChild(o);
    }
    sel.value = "casual";
  });
}
function formMode() { return new FormData($("#new-form")).get("mode"); }
function updateForm() {
  const m = formMode();
  $(".opt-colour").hidden = !(m === "computer" || m === "online");
  $(".opt-level").hidden = !(m === "computer" || m === "watch");
  $(".opt-level2").hidden = m !== "watch";
  $(".opt-name").hidden = m !== "online";
  $(".lbl-level").textContent = t(m === "watch" ? "new.level_black" : "new.level");
}
$("#new-form").addEventListener("change", updateForm);
$("#new-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData($("#new-form"));
  const m = f.get("mode");
  const me = f.get("colour");
  const tv = String(f.get("target"));  // "3", or "s3": a series, first to 3 round wins
  const body = { target: Number(tv.replace("s", "")), series: tv.startsWith("s"), black: "human", gold: "human" };
  if (m === "computer") body[me === "b" ? "gold" : "black"] = f.get("level");
  if (m === "watch") { body.black = f.get("level"); body.gold = f.get("level2"); body.delay = 0.7; }
  if (m === "online") { body.online = true; body[me === "b" ? "black_name" : "gold_name"] = f.get("name") || ""; }
  const r = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const res = await r.json();
  if (!r.ok) { $("#upload-error").textContent = res.error; return; }
  let token = m === "online" ? res.tokens[me] : (res.tokens.b || res.tokens.g);
  if (m === "online") sessionStorage.setItem(`kamisado.invite.${res.id}`, res.tokens[me === "b" ? "g" : "b"]);
  if (token) saveToken(res.id, token);
  location.hash = `#/game/${res.id}`;
});
$("#upload").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const text = await file.text();
  const r = await fetch("/api/records", { method: "POST", body: text });
  const res = await r.json();
  ev.target.value = "";
  if (!r.ok) { $("#upload-error").textContent = t("error.upload", { message: res.error }); return; }
  $("#upload-error").textContent = "";
  saveToken(res.id, res.tokens.b);
  location.hash = `#/game/${res.id}`;
});

// ---------------------------------------------------------------- saved games
async function showGames() {
  showView("games");
  const r = await fetch("/api/games");
  const rows = await r.json();
  const tbody = $("#games-table tbody");
  tbody.innerHTML = "";
  $("#games-empty").hidden = rows.length > 0;
  for (const g of rows) {
    const tr = tbody.insertRow();
    tr.dataset.game = g.id;
    const who = (kind, name, s) => name || (kind === "human" ? sideName(s) : t("game.computer", { level: t(`level.${kind}`) }));
    tr.insertCell().textContent = `${who(g.black, g.black_name, "b")} – ${who(g.gold, g.gold_name, "g")}`;
    tr.insertCell().textContent = g.series ? t("games.series", { n: g.target }) : t(`match.${g.target}`);
    tr.insertCell().textContent = `${g.points[0]}–${g.points[1]}`;
    tr.insertCell().textContent = t(`state.${g.state}`);
    tr.insertCell().textContent = new Date(g.updated * 1000).toLocaleString(LANG);
    const td = tr.insertCell();
    const link = (href, key) => { const a = document.createElement("a"); a.href = href; a.className = "button"; a.textContent = t(key); td.append(a, " "); };
    if (g.state !== "over") link(`#/game/${g.id}`, tokenFor(g.id) ? "games.resume" : "games.watch");
    link(`#/review/${g.id}`, "games.review");
    link(`/api/games/${g.id}/record`, "games.download");
  }
}

// ---------------------------------------------------------------- review
let review = null;
async function showReview(id) {
  closeSocket();
  mode = "review";
  showView("play"); panelParts("review");
  $("#download").href = `/api/games/${id}/record`;
  const r = await fetch(`/api/games/${id}/steps`);
  if (!r.ok) { setStatus(t("game.not_found")); return; }
  const data = await r.json();
  review = { id, steps: data.steps, i: data.steps.length - 1, name: data.name };
  $("#match-info").textContent = data.name;
  $(".seat-top").textContent = ""; $(".seat-bottom").textContent = "";
  board.setFlip(false);
  reviewStep(review.i);
}
function reviewStep(i) {
  if (!review) return;
  review.i = Math.max(0, Math.min(review.steps.length - 1, i));
  const s = review.steps[review.i];
  board.setTowers(s.towers);
  board.marks({ must: s.must, turn: s.turn, last: s.move ? { move: s.move } : null });
  $("#rv-where").textContent = s.ply ? `${t("game.round", { n: s.round })} · ${s.ply}. ${s.entries.map(entryText).join(", ")}` : t("review.start", { n: s.round });
  setStatus(s.outcome ? t("game.winner_round", { side: sideName(s.outcome.winner) }) : t("game.must_move", { side: sideName(s.turn), colour: s.must ? colourName(s.must) : "–" }));
  announce("");
  // the move list, current entry marked
  const rounds = [];
  for (const st of review.steps) {
    if (st.ply === 0) rounds.push({ number: st.round, fill: st.fill, entries: [] });
    st.entries.forEach((e) => rounds[rounds.length - 1].entries.push({ long: e, side: null, kind: "move" }));
  }
  renderReviewMoves();
  analyse(s.kpn, review.i);
}
function renderReviewMoves() {
  const box = $("#moves"); box.innerHTML = "";
  const ol = document.createElement("ol");
  review.steps.forEach((s, i) => {
    if (s.ply === 0) return;
    const li = document.createElement("li");
    li.textContent = `${t("game.round", { n: s.round })}: ${s.entries.map(entryText).join(", ")}`;
    li.style.cursor = "pointer";
    if (i === review.i) li.className = "current";
    li.addEventListener("click", () => reviewStep(i));
    ol.appendChild(li);
  });
  box.appendChild(ol);
  const cur = box.querySelector(".current"); if (cur) cur.scrollIntoView({ block: "nearest" });
}
let analyseTimer = null;
function analyse(kpn, i) {
  clearTimeout(analyseTimer);
  $("#analysis").textContent = t("review.analysing");
  analyseTimer = setTimeout(async () => {
    const r = await fetch(`/api/analyse?kpn=${encodeURIComponent(kpn)}&ms=400`);
    if (!review || review.i !== i) return;
    if (!r.ok) { $("#analysis").textContent = t("review.unavailable"); return; }
    const a = await r.json();
    if (a.over) { $("#analysis").textContent = t("review.over"); return; }
    const lines = [t("review.best", { move: a.best })];
    if (a.solved) lines.push(t("review.wins_in", { side: sideName(a.solved.winner), n: a.solved.distance }));
    else if (a.kind !== "eval") lines.push(t("review.wins_in", { side: sideName(a.kind === "win" ? a.side : (a.side === "b" ? "g" : "b")), n: a.moves }));
    else lines.push(t("review.eval", { side: sideName(a.side), score: a.score }));
    $("#analysis").textContent = lines.join(" · ");
    board.marks({ must: review.steps[i].must, turn: review.steps[i].turn, last: review.steps[i].move ? { move: review.steps[i].move } : null, highlight: a.best ? a.best.split("-") : [] });
  }, 200);
}
function reviewKey(ev) {
  const k = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 }[ev.key];
  if (k !== undefined) { ev.preventDefault(); reviewStep(review.i + k); }
}
$("#rv-first").addEventListener("click", () => reviewStep(0));
$("#rv-prev").addEventListener("click", () => reviewStep(review.i - 1));
$("#rv-next").addEventListener("click", () => reviewStep(review.i + 1));
$("#rv-last").addEventListener("click", () => reviewStep(1e9));

// ---------------------------------------------------------------- lessons and puzzles
let lesson = null;   // {data, i, kind: "lesson"|"puzzle", kpn, side, done}
async function getJSON(url) { const r = await fetch(url); if (!r.ok) throw new Error((await r.json()).error); return r.json(); }
async function showList(kind) {
  showView(kind);
  const items = await getJSON(`/api/${kind}?lang=${LANG}`);
  const ul = $(`#${kind === "lessons" ? "lesson" : "puzzle"}-list`);
  ul.innerHTML = "";
  $(`#${kind}-empty`).hidden = items.length > 0;
  for (const it of items) {
    const li = document.createElement("li"); const a = document.createElement("a");
    a.href = `#/${kind === "lessons" ? "lesson" : "puzzle"}/${it.id}`;
    a.textContent = kind === "lessons" ? `${t("lessons.figure", { n: it.figure })}: ${it.title}`
      : `${t("puzzles.win_in", { side: sideName(it.side), n: it.win_in })}`;
    li.appendChild(a); ul.appendChild(li);
  }
}
async function showLesson(kind, id) {
  closeSocket();
  const items = await getJSON(`/api/${kind === "lesson" ? "lessons" : "puzzles"}?lang=${LANG}`);
  const data = items.find((x) => x.id === id);
  mode = kind === "lesson" ? "lesson" : "puzzle";
  showView("play"); panelParts("lesson");
  $(".seat-top").textContent = ""; $(".seat-bottom").textContent = "";
  if (!data) { setStatus(t("game.not_found")); return; }
  if (kind === "puzzle") {
    data.title = t("puzzles.win_in", { side: sideName(data.side), n: data.win_in });
    data.steps = [{ kind: "puzzle", kpn: data.kpn, text: data.text, solution: data.solution, highlight: [] }];
  }
  lesson = { data, i: 0 };
  $("#lesson-title").textContent = data.figure ? `${t("lessons.figure", { n: data.figure })}: ${data.title}` : data.title;
  lessonStep(0);
}
async function position(kpn, move) {
  return getJSON(`/api/position?kpn=${encodeURIComponent(kpn)}` + (move ? `&move=${encodeURIComponent(move)}` : ""));
}
async function lessonStep(i) {
  const steps = lesson.data.steps;
  lesson.i = Math.max(0, Math.min(steps.length - 1, i));
  const step = steps[lesson.i];
  lesson.step = step; lesson.done = false;
  $("#lesson-step").textContent = t("lessons.step", { n: lesson.i + 1, total: steps.length });
  $("#lesson-text").textContent = step.text || "";
  $("#lesson-text").dataset.kind = step.kind;
  $("#lesson-feedback").textContent = "";
  $("#lesson-fill").hidden = step.kind !== "fill";
  setStatus(""); announce("");
  const pos = await position(step.kpn);
  lesson.pos = pos;
  if (step.kind === "puzzle") lesson.side = lesson.data.side || pos.turn;
  board.setFlip(step.kind === "puzzle" && lesson.side === "g");
  board.setTowers(pos.towers);
  const interactive = step.kind === "play" || step.kind === "puzzle";
  board.marks({ legal: interactive ? pos.legal : {}, must: pos.must, turn: pos.turn, highlight: step.highlight });
  if (interactive) setStatus(t("lessons.your_turn"));
  if (step.kind === "move" && step.move) {
    setTimeout(async () => {
      if (lesson.step !== step) return;
      const after = await position(step.kpn, step.move);
      board.setTowers(after.towers);
      board.marks({ must: after.must, turn: after.turn, last: { move: step.move }, highlight: step.highlight });
      if (after.passes.length) announce(after.passes.map((p) => t("game.pass", { side: sideName(p.side), colour: colourName(p.colour) })).join(" "));
    }, 700);
  }
  if (step.kind === "fill" && step.fill) {
    for (const d of ["left", "right"]) {
      const p = await position(step.fill[d]);
      lessonBoards[d].setTowers(p.towers); lessonBoards[d].marks({});
    }
  }
}
async function lessonMove(mv) {
  const step = lesson.step;
  const before = lesson.pos;
  const after = await position(before.kpn, mv);
  board.setTowers(after.towers);
  board.marks({ must: after.must, turn: after.turn, last: { move: mv } });
  if (step.kind === "play") {
    if (mv === step.move) {
      $("#lesson-feedback").textContent = t("lessons.right");
      lesson.pos = after;
    } else {
      $("#lesson-feedback").textContent = step.hint || t("lessons.try_again");
      setTimeout(() => {   // taken back
        board.setTowers(before.towers);
        board.marks({ legal: before.legal, must: before.must, turn: before.turn, highlight: step.highlight });
      }, 900);
    }
    return;
  }
  // puzzle: the server answers with the solver's best defence
  lesson.pos = after;
  if (after.outcome) { finishPuzzle(after); return; }
  setStatus(t("puzzles.defending"));
  const reply = await getJSON(`/api/reply?kpn=${encodeURIComponent(after.kpn)}`);
  const next = await position(after.kpn, reply.move);
  lesson.pos = next;
  board.setTowers(next.towers);
  if (next.outcome) { finishPuzzle(next); return; }
  board.marks({ legal: next.legal, must: next.must, turn: next.turn, last: { move: reply.move } });
  setStatus(t("lessons.your_turn"));
}
function finishPuzzle(p) {
  board.marks({ must: null });
  const won = p.outcome.winner === lesson.side;
  setStatus(won ? t("puzzles.solved") : t("puzzles.failed"));
  $("#lesson-feedback").textContent = won ? t("lessons.right") : t("lessons.try_again");
}
$("#ls-prev").addEventListener("click", () => lessonStep(lesson.i - 1));
$("#ls-next").addEventListener("click", () => {
  if (lesson.i === lesson.data.steps.length - 1) $("#lesson-feedback").textContent = t("lessons.done");
  else lessonStep(lesson.i + 1);
});
$("#ls-replay").addEventListener("click", () => lessonStep(lesson.i));

// ---------------------------------------------------------------- routing
function route() {
  const hash = location.hash || "#/";
  const [path, query] = hash.slice(1).split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  if (parts[0] !== "game") closeSocket();
  if (parts[0] === "game" && parts[1]) {
    const id = parts[1];
    const tok = params.get("t");
    if (tok) { saveToken(id, tok); history.replaceState(null, "", `#/game/${id}`); }
    if (!(mode === "game" && wsGame === id && ws)) connect(id, tok || tokenFor(id));
  } else if (parts[0] === "review" && parts[1]) showReview(parts[1]);
  else if (parts[0] === "games") { mode = null; showGames(); }
  else if (parts[0] === "lessons") { mode = null; showList("lessons"); }
  else if (parts[0] === "puzzles") { mode = null; showList("puzzles"); }
  else if (parts[0] === "lesson" && parts[1]) showLesson("lesson", parts[1]);
  else if (parts[0] === "puzzle" && parts[1]) showLesson("puzzle", parts[1]);
  else { mode = null; showView("new"); updateForm(); }
}
window.addEventListener("hashchange", route);

const charsBox = $("#characters");
charsBox.checked = localStorage.getItem("kamisado.characters") === "1";
function applyChars() {
  document.body.classList.toggle("characters", charsBox.checked);
  localStorage.setItem("kamisado.characters", charsBox.checked ? "1" : "0");
}
charsBox.addEventListener("change", applyChars);
$("#lang").addEventListener("change", async (ev) => {
  await loadLang(ev.target.value);
  updateForm();
  if (mode === "game" && game) render(game);
  else if (mode === "review") reviewStep(review.i);
  else route();
});

(async () => {
  applyChars();
  await loadLang(LANG);
  await loadLevels();
  route();
})();
