"""A game as the store holds it: its stored row and actions replayed through the rules.

:class:`GameState` is what a game *is*, with nothing of who is connected:
its row (:class:`kamisado.web.store.storage.GameRow`), the live :class:`Match`,
the actions so far and what the page shows of them (the last action, the
move list, the clock, an early end).  It is rebuilt from the store by
replaying every action (:meth:`GameState.build`), and an action is tried
on a copy of it (:meth:`GameState.fork`) before it is stored.  The game
held in memory (:class:`kamisado.web.play.game.Game`) is one of these with its
lock, connections and actions; a game read for an HTTP request is one of
these alone.

Also here: :class:`GameError`, an action refused (its ``code`` goes into
the error frame), and :func:`rematch_row`, the stored row of a rematch.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from kamisado.rules.board import SIDE_LETTERS, KamisadoError, Move
from kamisado.rules.match import FILL, FILLS, OVER, PLAYING, Match
from kamisado.rules.record import Comment, GameEnd, Record
from kamisado.web.basics import clocks
from kamisado.web.basics.clocks import ClockState
from kamisado.web.basics.views import (
    LastView,
    MoveList,
    PassView,
    RoundView,
    move_view,
    outcome_view,
    passes_view,
)
from kamisado.web.store.storage import GameRow, new_id

__all__ = ["DECLINED", "ENDINGS", "GameError", "GameState", "rematch_row", "replay_games"]

#: Actions that end a match before its points decide it (stored as actions,
#: replayed like moves): ``resign-b`` Black resigns, ``time-g`` Gold's flag
#: fell, ``abandon-b`` Black left and Gold claimed the win, ``abort`` the
#: game is called off (before both sides have moved).
ENDINGS = {"resign": "resignation", "time": "time", "abandon": "abandonment"}

#: The mark after an offer in the games row's ``offer`` column that the
#: opponent declined it (``takeback-b-n``: Black's takeback, declined).
DECLINED = "n"


class GameError(Exception):
    """An action refused by the server; ``code`` goes into the error frame."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(eq=False)
class GameState:
    """A game's stored row, the live match and the move list."""

    row: GameRow
    match: Match
    tokens: list[str] = field(default_factory=list)
    last: LastView | None = None
    ended: tuple[str, int | None] | None = None  # (reason, winning side) of an early end
    clock: ClockState | None = None
    #: the moves and fills in effect: the actions less endings, takebacks and
    #: the moves they took back (what the computer and the analysis replay)
    played: list[str] = field(default_factory=list)
    #: who made each of ``played`` (the mover, or the side that filled)
    movers: list[int] = field(default_factory=list)
    #: the fewest moves and fills in effect since the game was built (a
    #: takeback lowers it; ``None``: none taken back): a stored comment is
    #: on a move below it, the very move it was written for
    kept: int | None = None
    _rounds: MoveList = field(default_factory=MoveList, repr=False)

    @classmethod
    def build(cls, row: GameRow, tokens: list[str]) -> Self:
        """Rebuild a game by replaying its stored actions through the rules."""
        game = cls(row, Match(row.target, series=row.series, start=row.start_kpn))
        for token in tokens:
            game.apply(token)
        game.clock = row.clock  # as stored with the last action
        return game

    def fork(self) -> GameState:
        """A copy of the game's rules state to try an action on: the game
        itself changes only once the action is stored (:meth:`adopt`), so
        whatever reads it meanwhile sees only what the store holds."""
        return GameState(self.row, self.match.copy(), self.tokens[:], self.last, ended=self.ended,
                         clock=self.clock, played=self.played[:], movers=self.movers[:],
                         kept=self.kept)

    def adopt(self, other: GameState) -> None:
        """Take the stored state of ``other`` (the same game, rebuilt, or a
        fork that was stored), keeping whatever else this game holds."""
        self.row, self.match, self.tokens = other.row, other.match, other.tokens
        self.last = other.last  # the move list follows the match by itself
        self.ended, self.clock = other.ended, other.clock
        self.played, self.movers = other.played, other.movers
        self.kept = other.kept

    # -- the rules ----------------------------------------------------------

    @property
    def seq(self) -> int:
        """Number of actions so far (the next action's sequence number)."""
        return len(self.tokens)

    def kinds(self) -> tuple[str, str]:
        """Who plays each seat: ``human`` or a computer level."""
        return (self.row.black, self.row.gold)

    @property
    def state(self) -> str:
        """``playing``, ``fill`` or ``over`` (an early end is over too)."""
        return OVER if self.ended else self.match.state

    def winner(self) -> int | None:
        """The match's winner: by points, or by an early end."""
        if self.ended:
            return self.ended[1]
        return self.match.winner

    def moves_made(self) -> int:
        """Moves made in the match so far (fills not counted)."""
        return sum(len(r.moves) for r in self.match.rounds)

    def to_act(self) -> int | None:
        """The side whose action the game waits for (``None`` when over)."""
        if self.ended:
            return None
        if self.match.state == PLAYING:
            return self.match.position.turn
        if self.match.state == FILL:
            return self.match.current_winner()
        return None

    def to_act_letter(self) -> str | None:
        """:meth:`to_act` as a side letter (``None`` when over)."""
        act = self.to_act()
        return None if act is None else SIDE_LETTERS[act]

    @property
    def rounds(self) -> list[RoundView]:
        """The move list, round by round, as :func:`kamisado.web.basics.messages.rounds_view`
        gives it, kept up as the match goes on (:class:`~kamisado.web.basics.messages.MoveList`)."""
        return self._rounds.view(self.match)

    def apply(self, token: str) -> None:
        """Apply a move or fill (checked by the rules; raises ``KamisadoError``)."""
        match = self.match
        rounds_before = len(match.rounds)
        if self.ended:
            raise KamisadoError(f"{token}: the match is over ({self.ended[0]})")
        if token == "abort" or token.partition("-")[0] in ENDINGS:
            self._end(token)
        elif token.startswith("undo-"):
            self._undo(token)
        elif token in FILLS:
            side = match.current_winner()
            match.choose_fill(token)
            self.last = {"kind": "fill", "side": SIDE_LETTERS[side], "fill": token}
            self.played.append(token)
            self.movers.append(side)
        else:
            pos = match.position
            move = pos.parse_move(token) if match.state == PLAYING else Move.from_str(token)
            side = pos.turn
            # worked out on the position before the move; an illegal move
            # raises here or in push_move, before any change
            view = move_view(pos, move) if match.state == PLAYING else None
            match.push_move(move)
            assert view is not None
            outcome = match.rounds[rounds_before - 1].outcome
            self.last = {
                "kind": "move",
                "side": SIDE_LETTERS[side],
                "move": str(move),
                "push": view["push"],
                "mover": view["mover"],
                "pushed": view["pushed"],
                "entries": view["entries"],
                "passes": self._passes_after(rounds_before),
                "outcome": outcome_view(outcome),
            }
            self.played.append(str(move))
            self.movers.append(side)
        self.tokens.append(token)

    def takeback_count(self, side: int | None) -> int:
        """How many moves a takeback by ``side`` undoes: its last move of the
        round being played and every move after it (``side`` ``None``, a
        player holding both seats: the last move).  0 when there is none:
        no round being played, or no move of ``side`` in it."""
        if self.ended or self.match.state != PLAYING:
            return 0
        in_round = len(self.match.rounds[-1].moves)
        movers = self.movers[len(self.movers) - in_round:] if in_round else []
        if side is None:
            return 1 if movers else 0
        for back, mover in enumerate(reversed(movers), 1):
            if mover == side:
                return back
        return 0

    def _undo(self, token: str) -> None:
        """Apply a takeback, ``undo-b-2``: side ``b`` takes back 2 moves (its
        last and the reply); the match is rebuilt from the moves left."""
        _, letter, count = (token.split("-") + ["", ""])[:3]
        if letter not in SIDE_LETTERS or not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise KamisadoError(f"{token}: expected undo-b-N or undo-g-N")
        n = int(count)
        if self.match.state != PLAYING:
            raise KamisadoError(f"{token}: no round is being played (a won round stands)")
        if n > len(self.match.rounds[-1].moves):
            raise KamisadoError(f"{token}: the round has only {len(self.match.rounds[-1].moves)} moves")
        keep, movers = self.played[:-n], self.movers[:-n]
        match = Match(self.row.target, series=self.row.series, start=self.row.start_kpn)
        for t in keep:
            match.apply(t)
        self.match, self.played, self.movers = match, keep, movers
        self.kept = len(keep) if self.kept is None else min(self.kept, len(keep))
        self.last = {"kind": "takeback", "side": letter, "count": n}

    def _end(self, token: str) -> None:
        """Apply an ending action: ``resign-b``/``resign-g``, ``time-b``/``time-g``,
        ``abandon-b``/``abandon-g``, ``abort``."""
        if self.match.state == OVER:
            raise KamisadoError(f"{token}: the match is over")
        if token == "abort":
            if self.moves_made() >= 2:
                raise KamisadoError("abort: both sides have moved; resign instead")
            self.ended = ("abort", None)
            self.last = {"kind": "end", "reason": "abort"}
            return
        kind, _, letter = token.partition("-")
        if letter not in SIDE_LETTERS:
            raise KamisadoError(f"{token}: expected {kind}-b or {kind}-g")
        loser = SIDE_LETTERS.index(letter)
        self.ended = (ENDINGS[kind], 1 - loser)
        self.last = {"kind": "end", "side": letter, "reason": ENDINGS[kind]}

    def _passes_after(self, rounds_before: int) -> list[PassView]:
        if len(self.match.rounds) > rounds_before:
            return []  # a series round ended: the new start has no passes of this move
        return passes_view(self.match.position)

    # -- what the views need ---------------------------------------------------

    def seat_names(self) -> tuple[str, str]:
        """Display names: the given name, else the level, else the side."""
        names = []
        for side, (kind, name) in enumerate(
            ((self.row.black, self.row.black_name), (self.row.gold, self.row.gold_name))
        ):
            names.append(name or (f"Computer ({kind})" if kind != "human" else ("Black", "Gold")[side]))
        return names[0], names[1]

    def claimable(self) -> bool:
        """Whether a player may claim the win when the opponent is away: an
        online game between two people with a real-time clock."""
        return bool(self.row.online and self.kinds() == ("human", "human")
                    and self.row.clock_initial is not None and not self.row.clock_days)

    def _offer_row(self) -> tuple[str, int, bool] | None:
        """The row's offer column read: (kind, side that made it, whether
        the opponent declined it) from ``takeback-b`` or ``takeback-b-n``."""
        parts = (self.row.offer or "").split("-")
        if len(parts) not in (2, 3) or parts[0] not in ("takeback", "rematch") or parts[1] not in SIDE_LETTERS:
            return None
        if len(parts) == 3 and parts[2] != DECLINED:
            return None
        return parts[0], SIDE_LETTERS.index(parts[1]), len(parts) == 3

    def offer(self) -> tuple[str, int] | None:
        """The offer pending: (``takeback`` or ``rematch``, the side that made it)."""
        got = self._offer_row()
        return None if got is None or got[2] else (got[0], got[1])

    def declined(self) -> tuple[str, int] | None:
        """The offer the opponent declined since the last action: (``takeback``
        or ``rematch``, the side that made it).  A declined takeback is not
        asked again before the next action (the same move); the asker is
        told it was declined, also after a reload."""
        got = self._offer_row()
        return (got[0], got[1]) if got is not None and got[2] else None

    def thinking_elsewhere(self) -> bool:
        """Whether another process holds the lease on the computer's move
        the game waits for (several processes on one database: it thinks
        there, and this process shows it thinking too)."""
        row, act = self.row, self.to_act()
        return (row.thinker is not None and act is not None and self.kinds()[act] != "human"
                and (row.think_until or 0) > clocks.now_ms())

    def record(self) -> Record:
        """The game as a match record (``kamisado.rules.record``)."""
        date = datetime.datetime.fromtimestamp(self.row.created, datetime.UTC).date().isoformat()
        black, gold = self.seat_names()
        end = None
        if self.ended is not None and self.ended[1] is not None:  # resignation or time
            loser = ("Black", "Gold")[1 - self.ended[1]]
            detail = {
                "resignation": f"{loser} resigned",
                "time": f"{loser}'s time ran out",
                "abandonment": f"{loser} left the game",
            }[self.ended[0]]
            end = GameEnd(self.ended[1], self.ended[0], detail)
        rec = Record.new(self.match, black=black, gold=gold, date=date, end=end)
        rec.comments.update(self.comments())
        return rec

    def comments(self) -> dict[tuple[int, int], Comment]:
        """The moves' comments kept from an uploaded record, by ``(round, ply)``
        (as :attr:`Record.comments`): those of the moves still in effect, a
        move taken back losing its comment for good."""
        if not self.row.comments:
            return {}
        try:
            stored = json.loads(self.row.comments)
        except ValueError:
            return {}
        if not isinstance(stored, dict):
            return {}
        limit = len(self.played) if self.kept is None else self.kept
        out: dict[tuple[int, int], Comment] = {}
        index = 0  # the move's index in ``played`` (fills count too)
        for number, rnd in enumerate(self.match.rounds, 1):
            if number > 1 and rnd.fill is not None:
                index += 1
            for ply in range(1, len(rnd.moves) + 1):
                text = stored.get(str(index))
                if index < limit and isinstance(text, str):
                    with contextlib.suppress(KamisadoError):
                        out[(number, ply)] = Comment.parse(text)
                index += 1
        return out


def rematch_row(old: GameRow, seed: int) -> GameRow:
    """The stored row of the rematch of game ``old``: the same match, the
    colours swapped (each seat's kind, name and player), new tokens for
    the people's seats (one shared by both seats of a game that is not
    online) and the clock started afresh."""
    tokens: list[str | None] = [None, None]
    shared = new_id(18)
    kinds = (old.gold, old.black)  # the colours swapped
    for side, kind in enumerate(kinds):
        if kind == "human":
            tokens[side] = new_id(18) if old.online else shared
    row = GameRow.new(
        new_id(),
        target=old.target, series=old.series,
        black=old.gold, gold=old.black,
        black_name=old.gold_name, gold_name=old.black_name,
        black_token=tokens[0], gold_token=tokens[1],
        black_player=old.gold_player, gold_player=old.black_player,
        online=old.online, seed=seed, delay=old.delay,
        to_act="b", rated=old.rated,
        clock_initial=old.clock_initial, clock_increment=old.clock_increment,
        clock_days=old.clock_days,
    )
    if row.control is not None:
        row.set_clock(ClockState.start(row.control))
    return row


def replay_games(conn: sqlite3.Connection, path: Path) -> None:
    """Replay every game of the kamisado database on ``conn`` from its start
    KPN through its actions in order, the way the server rebuilds a game
    (:meth:`GameState.build`); :class:`BackupError`
    naming the first game that does not replay and why.

    >>> import sqlite3
    >>> from pathlib import Path
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.executescript(
    ...     "CREATE TABLE games (id, target, series, start_kpn);"
    ...     "CREATE TABLE actions (game_id, seq, token);"
    ...     "INSERT INTO games VALUES ('g1', 1, 0, 'garbage');")
    >>> replay_games(conn, Path("b.sqlite3"))
    Traceback (most recent call last):
    ...
    kamisado.web.store.backup.BackupError: b.sqlite3: game g1 does not replay: start KPN 'garbage', target 1: a KPN has 3 fields ...
    """
    from kamisado.web.store.backup import BackupError

    for gid, target, series, kpn in conn.execute(
            "SELECT id, target, series, start_kpn FROM games ORDER BY id").fetchall():
        where = f"{path}: game {gid} does not replay"
        try:
            game = GameState.build(GameRow(gid, target=target, series=bool(series), start_kpn=kpn), [])
        except (KamisadoError, TypeError) as exc:
            raise BackupError(f"{where}: start KPN {kpn!r}, target {target!r}: {exc}") from None
        tokens = conn.execute("SELECT seq, token FROM actions WHERE game_id = ? ORDER BY seq", (gid,))
        for n, (seq, token) in enumerate(tokens.fetchall()):
            if seq != n:
                raise BackupError(f"{where}: action {n} missing (next stored: {seq})")
            try:
                game.apply(token)
            except (KamisadoError, TypeError, AttributeError) as exc:
                raise BackupError(f"{where}: action {seq} {token!r}: {exc}") from None
