"""The seats a connection holds in a game: its player's, and those a token claims.

A seat is held by a connection, and claimed by a player: a game's seats
name the players holding them (``black_player``, ``gold_player``), each
claimed once, with the seat's secret token, by the first player who joins
with it (:meth:`kamisado.web.store.storage.Store.claim`).  :func:`seats_for`
works out what a joining connection holds
(:meth:`kamisado.web.play.game.Game.join`).
"""

from __future__ import annotations

import logging
import secrets
from typing import Protocol

from kamisado.web.play.state import GameError
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.schema import GameRow
from kamisado.web.store.storage import Store


class Seated(Protocol):
    """What :func:`seats_for` reads of a game (:class:`kamisado.web.play.game.Game`):
    its row and its store."""

    row: GameRow

    @property
    def store(self) -> Store: ...


class Joiner(Protocol):
    """What :func:`seats_for` reads of a joining connection
    (:class:`kamisado.web.play.game.Conn`): its player, whether it has an
    account, its display name."""

    player: str | None
    registered: bool
    name: str

__all__ = ["Joiner", "Seated", "seats_for"]

log = logging.getLogger("kamisado.web")


async def seats_for(
    game: Seated, conn: Joiner, token: str | None
) -> tuple[tuple[int, ...], tuple[str, str] | None]:
    """The seats a joining connection holds, and the informational error
    to send after the state (``None``: all went as asked).

    - The seats its player holds, in any browser.
    - With a token: the token's seat(s) when unclaimed are claimed for
      the player (once: :meth:`Store.claim`) and held; a client without
      a player holds them unclaimed.  A seat already the player's is
      held.  A seat another player holds is not (``seat_taken``).  In an
      online game, a player holding one seat never claims the other one
      with its invite token (``seat_kept``): a link to the game never
      moves anyone off their seat.  A token of no seat: ``bad_token``.
    """
    row = game.row
    player = conn.player
    mine = {s for s, owner in enumerate(row.owners) if player is not None and owner == player}
    if token is None:
        return tuple(sorted(mine)), None
    named = {
        s
        for s, t in enumerate((row.black_token, row.gold_token))
        if t is not None and secrets.compare_digest(t, token)
    }
    if not named:
        if player is None:
            raise GameError("bad_token", "join: this token holds no seat of this game")
        return tuple(sorted(mine)), ("bad_token", "join: this token holds no seat of this game")
    free = {s for s in named if row.owners[s] is None}
    held = set(mine)
    note: tuple[str, str] | None = None
    if free and row.rated and not conn.registered:
        return tuple(sorted(mine)), ("account_needed",
                                     "join: a rated game's seat needs an account; sign up or sign in, then open the link again")
    if free and row.online and mine and not (free & mine):
        note = ("seat_kept", "join: you hold a seat of this game already; this invite is for your opponent")
        free = set()
    store = game.store
    for side in sorted(free):
        if player is None:
            held.add(side)  # a client without a player: held while connected, not claimed
            continue
        try:
            holder = await store.call(store.claim, row.id, side, player, conn.name if row.online else "")
        except StoreErrors:
            log.exception("could not claim a seat of game %s", row.id)
            raise GameError("storage", "join: the seat could not be claimed; try again") from None
        if holder == player:
            held.add(side)
            if conn.name and row.online and not (row.black_name, row.gold_name)[side]:
                if side == 0:
                    row.black_name = conn.name
                else:
                    row.gold_name = conn.name
        if side == 0:
            row.black_player = holder
        else:
            row.gold_player = holder
    taken = {s for s in named if row.owners[s] not in (None, player)}
    if taken and note is None and not (named & held):
        seat = " and ".join(("Black", "Gold")[s] for s in sorted(taken))
        note = ("seat_taken", f"join: {seat} is another player's seat; you are "
                + ("watching" if not held else "on your own seat"))
    return tuple(sorted(held)), note
