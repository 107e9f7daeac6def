/* Kamisado in the browser.  The server applies every rule: the page draws
   what it is sent (positions, legal destinations) and sends chosen moves.
   This module starts the page and routes: #/ (the landing page; #/?seek=3%2B2 seeks a game),
   #/new/<mode>, #/games, #/game/<id>?t=<token>, #/review/<id>,
   #/game/<id>/review?ply=N (the review at the match's N-th move), #/lessons,
   #/lesson/<id>, #/puzzles, #/puzzle/<id>, #/puzzles/streak, #/lobby, #/player/<id>, #/leaderboard, #/bots,
   #/tournament/<id>,
   #/account, #/mod (the moderators' page), #/local/<id> (a game played offline, kept on this device);
   a share link /game/<id> becomes #/game/<id>. */
import { $, $$ } from "./dom.js";
import { loadLang, t, translatePage } from "./i18n.js";
import { prefs, setPref } from "./prefs.js";
import { board } from "./views/play.js";
import { gameKey, gameStep, inGame, leaveGame, openGame, rejoin, rerenderGame, tokenFor } from "./views/game.js";
import { currentMe, loadMe, renderMeLink, showAccount, whenAccountChanges, whenPlayerChanges } from "./views/account.js";
import { inReview, leaveReview, openReview, rerenderReview, reviewKey, reviewStep } from "./views/review.js";
import { rerenderReports, stopReport } from "./views/report.js";
import { inLesson, leaveLesson, lessonMove, openLesson, rerenderLesson, showList } from "./views/lessons.js";
import { inPuzzle, leavePuzzle, openPuzzle, openStreak, puzzleMove, rerenderPuzzle, showPuzzleList } from "./views/puzzles.js";
import { loadLevels, renderLevels, showNew, updateForm } from "./views/home.js";
import { showGames } from "./views/games.js";
import { leaveLobby, showLobby, showQuickHome } from "./views/lobby.js";
import { showPlayer } from "./views/player.js";
import { showBots, showLeaderboard } from "./views/leaderboard.js";
import { leaveTournament, showPlayerTournaments, showTournament, showTournamentList } from "./views/tournament.js";
import { showMod } from "./views/mod.js";
import { whenSessionEnds } from "./socket.js";
import { followNotices } from "./notices.js";
import { startOffline } from "./offline.js";
import { inLocal, leaveLocal, localMove, openLocal, rerenderLocal } from "./views/local.js";
import { showMissing } from "./views/missing.js";

/** @param {string} name */
function showView(name) {
  $$(".view").forEach((v) => v.classList.toggle("active", v.id === `view-${name}`));
  const tab = { home: "home", new: "home", games: "games", lessons: "lessons", puzzles: "puzzles", account: "account",
    lobby: "lobby", mod: "mod" }[name] || "";
  $$("[data-nav]").forEach((a) => {
    if (a.dataset.nav === tab) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
}

// a share link, /game/<id> (served as this page with the game's link
// preview), opens the game: the page goes on at /#/game/<id>
const shared = location.pathname.match(/^\/game\/([\w-]+)\/?$/);
if (shared) history.replaceState(null, "", `/${location.hash || `#/game/${shared[1]}`}`);

let routed = false;
function route() {
  const hash = location.hash || "#/";
  const [path, query] = hash.slice(1).split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  const [where, id] = parts;
  // #/game/<id>/review?ply=N: the review at the N-th move of the match (a game report's links)
  const review = (where === "review" || (where === "game" && parts[2] === "review")) && Boolean(id);
  if (where !== "game" || review) { leaveGame(); stopReport($("#result-report")); }
  if (!review) { leaveReview(); stopReport($("#rv-report")); }
  if (where !== "lobby" && where) leaveLobby();  // the home page (#/) has quick pairing too
  if (where !== "local") leaveLocal();
  if (where !== "tournament") leaveTournament();
  if (where !== "lesson") leaveLesson();
  if (where !== "puzzle" && !(where === "puzzles" && id === "streak")) leavePuzzle();
  if (review) {
    const ply = Number(params.get("ply"));
    showView("play");
    openReview(id, Number.isInteger(ply) && ply > 0 ? ply : null);
  } else if (where === "game" && id) {
    // an invite link's token claims its seat once (for this browser's player);
    // it is not kept: from then on the seat is the player's
    const tok = params.get("t");
    if (tok) history.replaceState(null, "", `#/game/${id}`);
    showView("play");
    openGame(id, tok || tokenFor(id));
  }
  else if (where === "local" && id) { showView("play"); openLocal(id); }
  else if (where === "games") { showView("games"); showGames(); }
  else if (where === "account") { showView("account"); showAccount(); }
  else if (where === "lobby") { showView("lobby"); showLobby(); showTournamentList(); }
  else if (where === "player" && id) {
    showView("player");
    showPlayer(decodeURIComponent(id));
    showPlayerTournaments(decodeURIComponent(id));
  }
  else if (where === "mod") { showView("mod"); showMod(); }
  else if (where === "tournament" && id) { showView("tournament"); showTournament(decodeURIComponent(id)); }
  else if (where === "leaderboard") { showView("leaderboard"); showLeaderboard(params.get("speed") || "realtime"); }
  else if (where === "bots") { showView("bots"); showBots(); }
  else if (where === "lessons") { showView("lessons"); showList("lessons"); }
  else if (where === "puzzles" && id === "streak") { showView("play"); openStreak(); }
  else if (where === "puzzles") { showView("puzzles"); showPuzzleList(); }
  else if (where === "lesson" && id) { showView("play"); openLesson(where, id); }
  else if (where === "puzzle" && id) { showView("play"); openPuzzle(decodeURIComponent(id)); }
  else if (where === "new") { showView("new"); showNew(id || "computer", params); }
  else if (!where) { showView("home"); showQuickHome(params); showTournamentList(); }
  else showMissing("page", `#${path}`);  // an unknown route, or one lacking its id
  // a new view: the focus goes to its content (not on the first load)
  if (routed && !(where === "game" || where === "local" || review || where === "lesson" || where === "puzzle" || (where === "puzzles" && id === "streak"))) $("#main").focus({ preventScroll: true });
  routed = true;
  window.scrollTo(0, 0);
}
window.addEventListener("hashchange", route);

board.onMove = ((live) => (/** @type {string} */ from, /** @type {string} */ to) => {
  if (inLesson()) lessonMove(`${from}-${to}`);
  else if (inPuzzle()) puzzleMove(`${from}-${to}`);
  else if (inLocal()) localMove(from, to);
  else if (live) live(from, to);
})(board.onMove);

// keys: the board's own while it has the focus; stepping through positions anywhere
document.addEventListener("keydown", (ev) => {
  const target = /** @type {HTMLElement} */ (ev.target);
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (target.closest("input, select, textarea, button, a, summary, dialog")) return;
  const onBoard = target.id === "board";
  if (inGame()) gameKey(ev, onBoard);
  else if (inReview()) reviewKey(ev);
  else if ((inLesson() || inPuzzle() || inLocal()) && onBoard) board.key(ev);
});
for (const which of ["first", "prev", "next", "last"]) {
  $(`#rv-${which}`).addEventListener("click", () => (inReview() ? reviewStep(which) : gameStep(which)));
}

$$(".copy").forEach((b) => b.addEventListener("click", async () => {
  const input = /** @type {HTMLInputElement} */ ($(`#${b.dataset.for}`));
  input.select();
  try { await navigator.clipboard.writeText(input.value); } catch (e) { document.execCommand("copy"); }
  b.textContent = t("game.copied");
  setTimeout(() => { b.textContent = t("game.copy"); }, 1200);
}));

// settings
const chars = /** @type {HTMLInputElement} */ ($("#characters"));
const squares = /** @type {HTMLInputElement} */ ($("#squares"));
const lang = /** @type {HTMLSelectElement} */ ($("#lang"));
const sound = /** @type {HTMLInputElement} */ ($("#sound"));
sound.checked = prefs.sound;
sound.addEventListener("change", () => setPref("sound", sound.checked));
const confirmTouch = /** @type {HTMLInputElement} */ ($("#confirm-touch"));
confirmTouch.checked = prefs.confirmTouch;
confirmTouch.addEventListener("change", () => setPref("confirmTouch", confirmTouch.checked));
// the board's size: a share of the room the screen leaves it (beside the panel on a wide screen)
const boardSize = /** @type {HTMLInputElement} */ ($("#board-size"));
boardSize.value = String(prefs.boardSize);
boardSize.addEventListener("input", () => setPref("boardSize", boardSize.value));
chars.checked = prefs.characters;
squares.checked = prefs.squares;
lang.value = prefs.lang;
function redraw() {
  renderLevels();
  updateForm();
  rerenderReports();
  if (inGame()) rerenderGame();
  else if (inReview()) rerenderReview();
  else if (inLesson()) rerenderLesson();
  else if (inPuzzle()) rerenderPuzzle();
  else if (inLocal()) rerenderLocal();
  else route();
}
chars.addEventListener("change", () => { setPref("characters", chars.checked); redraw(); });
squares.addEventListener("change", () => { setPref("squares", squares.checked); redraw(); });
// a language picked here is kept (before it, the browser's own picks the page's: prefs.js)
lang.addEventListener("change", async () => {
  setPref("lang", lang.value);
  await loadLang(lang.value); translatePage(); renderMeLink(); redraw();
});

(async () => {
  setPref("characters", prefs.characters);
  setPref("boardSize", prefs.boardSize);
  setPref("zen", prefs.zen);
  await loadLang(prefs.lang);
  startOffline();
  await Promise.all([loadLevels(), loadMe()]);
  whenPlayerChanges(rejoin);
  // the notices' connection opens again as the player (or account) now
  whenAccountChanges(followNotices);
  // a session ended by the server (signed out everywhere, the account closed by a
  // moderator): the page asks who it is now and shows it (signed out)
  whenSessionEnds(async () => {
    const before = currentMe();
    const now = await loadMe();
    followNotices();
    // the account page is drawn again only when who the browser is changed (a password
    // change here ends this page's old session too, and its message must stay)
    const same = before && now && before.id === now.id && before.signed_in === now.signed_in;
    if (!same && (location.hash || "").startsWith("#/account")) showAccount();
  });
  followNotices();
  route();
  document.body.dataset.ready = "1";
})();
