/* The connection to a game: joins it, reconnects after a loss and joins
   again (the server then sends the whole state: the page resyncs), and says
   at once when the connection is lost, so no move is ever sent into a dead
   socket.  A move is "pending" until the server answers; no answer within
   ACK_MS also counts as a lost connection.  A server that stops (SIGTERM)
   says {"type": "restarting"} (or closes with 1012, "service restart"): the
   page says the server is restarting and will be back shortly, and
   reconnects after a short pause, spread at random so that the pages of a
   stopping server do not all come back at the same moment (behind a proxy,
   to another process).  The lobby's connection is the same with another
   greeting (LobbySocket). */

/** @typedef {"connecting"|"open"|"lost"|"restarting"} Status */

const PING_MS = 10_000;   // a ping this often while nothing else is heard
const SILENCE_MS = 25_000; // nothing heard this long: the connection is dead
const ACK_MS = 5_000;     // a move unanswered this long: the connection is dead
/** The frames that answer an action (any of them: the connection lives). */
const ANSWERS = ["state", "error", "lobby", "started", "created", "chat", "notices", "challenging", "withdrawn"];
/** The close code of a server that stops: 1012, "service restart". */
const SERVICE_RESTART = 1012;
/** The close code and reason of a connection whose session ended (signed out
    everywhere, or the account closed by a moderator): 1008. */
const POLICY_VIOLATION = 1008;
const SESSION_ENDED = "the session ended";
/** Told when the server closed a connection because its session ended. */
let onSessionEnded = () => {};
/** @param {() => void} fn what to do once a connection's session ended (ask who the browser is now) */
export function whenSessionEnds(fn) { onSessionEnded = fn; }

export class GameSocket {
  /**
   * @param {{onFrame: (msg: any) => void, onStatus: (s: Status) => void}} handlers
   */
  constructor(handlers) {
    this.handlers = handlers;
    /** @type {WebSocket|null} */
    this.ws = null;
    /** @type {string|null} */
    this.game = null;
    /** @type {string|null} */
    this.token = null;
    /** @type {Status} */
    this.status = "connecting";
    this.retry = 0;
    /** the server said it restarts: "restarting" until the page is back on one */
    this.restarting = false;
    this.lastHeard = 0;
    /** @type {number|undefined} */
    this.timer = undefined;
    /** @type {number|undefined} */
    this.ackTimer = undefined;
    /** the frame that says the connection is up (it answers the greeting) */
    this.opensWith = "state";
    /** the page runs the engine: its join says so, and it sends the computer's moves of its
     * own games against the computer (views/game.js) */
    this.thinks = false;
    this.onOffline = () => this.lost();
    this.onOnline = () => { if (this.status === "lost" || this.status === "restarting") this.open(); };
  }

  /** Join a game (as the holder of `token`'s seats, or as a spectator). @param {string} game @param {string|null} token */
  join(game, token) {
    this.close();
    this.game = game;
    this.token = token;
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    this.timer = window.setInterval(() => this.tick(), 1000);
    this.open();
  }

  /** The first frame on every (re)connection: join the game. @returns {object} */
  greeting() {
    return { type: "join", game: this.game, token: this.token || undefined, thinks: this.thinks || undefined };
  }

  open() {
    if (!this.game) return;
    // offline: no attempt (it could only fail); the "online" event opens it
    if (navigator.onLine === false) { this.setStatus("lost"); return; }
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const sock = new WebSocket(`${proto}://${location.host}/ws`);
    this.ws = sock;
    this.setStatus(this.status === "open" ? "connecting" : this.status);
    sock.onopen = () => {
      if (this.ws !== sock) return;
      this.retry = 0;
      this.lastHeard = Date.now();
      sock.send(JSON.stringify(this.greeting()));
    };
    sock.onmessage = (ev) => {
      if (this.ws !== sock) return;
      this.lastHeard = Date.now();
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "restarting") { this.restart(); return; }
      if (ANSWERS.includes(msg.type)) window.clearTimeout(this.ackTimer);
      if (msg.type === this.opensWith && this.status !== "open") {
        this.restarting = false;
        this.setStatus("open");
      }
      if (msg.type !== "pong") this.handlers.onFrame(msg);
    };
    sock.onclose = (ev) => {
      if (this.ws !== sock) return;
      if (ev.code === SERVICE_RESTART) this.restarting = true;
      if (ev.code === POLICY_VIOLATION && ev.reason === SESSION_ENDED) onSessionEnded();
      this.lost();
    };
  }

  /** The server restarts: say so, and reconnect (to another process behind a proxy). */
  restart() {
    this.restarting = true;
    this.lost();
  }

  /** The connection is gone (or silent): say so, then try again, waiting longer each time
   * (a restarting server's pages each wait a random half to one and a half of that). */
  lost() {
    const sock = this.ws;
    window.clearTimeout(this.ackTimer);
    if (sock) {
      this.ws = null;
      sock.onclose = null;
      try { sock.close(); } catch (e) { /* already closed */ }
    }
    if (!this.game) return;
    this.setStatus(this.restarting ? "restarting" : "lost");
    this.retry = Math.min(this.retry + 1, 5);
    const game = this.game;
    const spread = this.restarting ? 0.5 + Math.random() : 1;
    window.setTimeout(() => {
      if (this.game === game && !this.ws && navigator.onLine !== false) this.open();
    }, 250 * 2 ** this.retry * spread);
  }

  tick() {
    const sock = this.ws;
    if (!sock || sock.readyState !== WebSocket.OPEN) return;
    const quiet = Date.now() - this.lastHeard;
    if (quiet > SILENCE_MS) this.lost();
    else if (quiet > PING_MS) sock.send('{"type":"ping"}');
  }

  /** @param {Status} s */
  setStatus(s) {
    if (s === this.status) return;
    this.status = s;
    this.handlers.onStatus(s);
  }

  /**
   * Send an action; false (and nothing sent) unless the connection is up.
   * @param {object} msg
   * @returns {boolean}
   */
  send(msg) {
    const sock = this.ws;
    if (this.status !== "open" || !sock || sock.readyState !== WebSocket.OPEN) return false;
    sock.send(JSON.stringify(msg));
    window.clearTimeout(this.ackTimer);
    this.ackTimer = window.setTimeout(() => { if (this.ws === sock) this.lost(); }, ACK_MS);
    return true;
  }

  /** Leave the game. */
  close() {
    this.game = null;
    window.clearInterval(this.timer);
    window.clearTimeout(this.ackTimer);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    const sock = this.ws;
    this.ws = null;
    this.status = "connecting";
    this.restarting = false;
    if (sock) {
      sock.onclose = null;
      sock.onmessage = null;
      // one still connecting is closed once open (closing it now makes the
      // browser warn "closed before the connection is established")
      if (sock.readyState === WebSocket.CONNECTING) sock.onopen = () => sock.close();
      else sock.close();
    }
  }
}

/** The lobby's connection: follows the lobby on every (re)connection; its
 * challenges last as long as it does. */
export class LobbySocket extends GameSocket {
  /** @param {{onFrame: (msg: any) => void, onStatus: (s: Status) => void}} handlers */
  constructor(handlers) {
    super(handlers);
    this.opensWith = "lobby";
  }

  greeting() { return { type: "lobby", watch: true }; }

  /** Follow the lobby. */
  watch() { this.join("lobby", null); }

  /** Stop following it (withdrawing this connection's challenges), and close. */
  leave() {
    const sock = this.ws;
    if (sock && sock.readyState === WebSocket.OPEN) sock.send(JSON.stringify({ type: "lobby", watch: false }));
    this.close();
  }
}

/** The notices' connection, open on every page: its player is online while
 * it lives, and direct challenges to the player come through it. */
export class NoticeSocket extends GameSocket {
  /** @param {{onFrame: (msg: any) => void, onStatus: (s: Status) => void}} handlers */
  constructor(handlers) {
    super(handlers);
    this.opensWith = "notices";
  }

  greeting() { return { type: "notices" }; }

  /** Follow the player's notices (again, after the player changed). */
  follow() { this.join("notices", null); }
}
