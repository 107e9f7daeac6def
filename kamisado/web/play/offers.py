"""The offers of a game between people: takebacks and rematches.

A takeback or a rematch happens at once for a connection that needs nobody's
consent (it holds both seats, or plays the computer); between people it is
an offer the opponent accepts (docs/web.md, "Game controls").  The offer
pending is stored in the game's row (``takeback-b``, ``rematch-g``; every
action clears it) before anyone hears of it; an offer the opponent declined
stays there marked (``takeback-b-n``) until the next action, so that the
asker is told (also after a reload, on another tab or another process) and
a declined takeback is not asked again for the same move.  These are the actions
:meth:`kamisado.web.play.game.Game.takeback` and :meth:`~kamisado.web.play.game.Game.rematch`
run, the game's lock held.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import OVER, PLAYING
from kamisado.web.basics.messages import RematchMsg, StartedFrame, TakebackMsg
from kamisado.web.play.state import DECLINED, GameError, rematch_row
from kamisado.web.store.database import StoreErrors

if TYPE_CHECKING:
    from kamisado.web.play.game import Conn, Game

__all__ = ["rematch", "takeback"]

log = logging.getLogger("kamisado.web")


def _alone(game: Game, conn: Conn) -> bool:
    """Whether the connection needs nobody's consent: it holds both seats
    (hotseat) or plays the computer."""
    return len(conn.seats) == 2 or "human" not in (game.kinds()[1 - conn.seats[0]],)


async def _set_offer(game: Game, offer: str | None) -> None:
    store = game.store
    try:
        stored = await store.call(store.set_offer, game.row.id, game.seq, offer)
    except StoreErrors:
        log.exception("could not store an offer in game %s", game.row.id)
        raise GameError("storage", "the offer could not be saved; try again") from None
    if not stored:
        raise GameError("stale", f"the game has moved on (at action {game.seq})")
    game.row.offer = offer
    await game.broadcast()


async def _answer(game: Game, conn: Conn, kind: str, action: str) -> tuple[int, int] | None:
    """The offer part of a takeback or rematch message from one seat of a
    game between people: make (or, when the other side offered the
    same, accept), decline or withdraw.  Returns ``(side that offered,
    side accepting)`` when an offer was accepted, else ``None``."""
    mine = conn.seats[0]
    offer = game.offer()
    theirs = offer if offer is not None and offer[0] == kind and offer[1] != mine else None
    if action == "decline":
        if offer is None or offer[0] != kind:
            raise GameError("no_offer", f"{kind}: no {kind} offer to decline")
        # the opponent's answer is kept for the asker; one's own offer withdrawn is gone
        await _set_offer(game, None if theirs is None else f"{kind}-{SIDE_LETTERS[offer[1]]}-{DECLINED}")
        return None
    if action == "accept" or theirs is not None:
        if theirs is None:
            raise GameError("no_offer", f"{kind}: the opponent has offered no {kind}")
        return theirs[1], mine
    if offer is not None and offer[0] == kind:
        raise GameError("not_allowed", f"{kind}: you have offered it already; wait for the answer")
    await _set_offer(game, f"{kind}-{SIDE_LETTERS[mine]}")
    return None


async def takeback(game: Game, conn: Conn, msg: TakebackMsg) -> None:
    """Take back moves of the round being played: at once when the
    connection holds both seats or plays the computer, else by an offer
    the opponent accepts."""
    game.seat_holder(conn, "takeback")
    if game.state == OVER:
        raise GameError("over", "takeback: the match is over")
    if game.match.state != PLAYING:
        raise GameError("not_allowed", "takeback: the round is over, and a won round stands")
    if _alone(game, conn):
        if msg.action != "offer":
            raise GameError("no_offer", f"takeback: nothing to {msg.action} here")
        side = None if len(conn.seats) == 2 else conn.seats[0]
    else:
        offer = game.offer()
        answering = offer is not None and offer[0] == "takeback" and offer[1] != conn.seats[0]
        if msg.action == "offer" and not answering and not game.takeback_count(conn.seats[0]):
            raise GameError("not_allowed", "takeback: you have no move to take back in this round")
        if msg.action == "offer" and not answering and game.declined() == ("takeback", conn.seats[0]):
            raise GameError("declined", "takeback: your opponent declined taking back this move;"
                            " you may ask again after the next move")
        answered = await _answer(game, conn, "takeback", msg.action)
        if answered is None:
            return
        side = answered[0]
    count = game.takeback_count(side)
    if not count:
        raise GameError("not_allowed", "takeback: no move to take back in this round")
    game.stop_thinking()  # the computer was answering the move taken back
    letter = SIDE_LETTERS[side if side is not None else game.movers[-1]]
    await game.play(f"undo-{letter}-{count}")
    await game.broadcast()


async def rematch(game: Game, conn: Conn, msg: RematchMsg) -> None:
    """Once the match is over, the same game again with the colours
    swapped: at once alone (hotseat, the computer), else by offer and
    acceptance.  Every connection holding a seat is sent the new game."""
    game.seat_holder(conn, "rematch")
    if game.state != OVER:
        raise GameError("not_allowed", "rematch: the match is not over")
    if game.row.rematch is None:
        if _alone(game, conn):
            if msg.action != "offer":
                raise GameError("no_offer", f"rematch: nothing to {msg.action} here")
        elif await _answer(game, conn, "rematch", msg.action) is None:
            return
        made = await _make_rematch(game)
        new = True
    else:
        made, new = game.row.rematch, False
    game.row.rematch, game.row.offer = made, None
    await game.broadcast()
    await _started(game, made)
    hub = game.served_by
    if new and hub.on_rematch is not None:  # colours swapped: the old gold plays black
        try:
            await hub.on_rematch(made, game.row.gold_player, game.row.black_player)
        except Exception:
            log.exception("could not tell the event streams of the rematch of game %s", game.row.id)


async def _make_rematch(game: Game) -> str:
    old, store = game.row, game.store
    row = rematch_row(old, game.served_by.rng.randrange(1 << 30))
    try:
        made = await store.call(store.create_rematch, old.id, row)
    except StoreErrors:
        log.exception("could not store the rematch of game %s", old.id)
        raise GameError("storage", "rematch: the new game could not be saved; try again") from None
    if made is None:
        raise GameError("no_game", f"rematch: no game {old.id!r}")
    return made


async def _started(game: Game, new: str) -> None:
    """Tell every connection holding a seat of ``game`` about its rematch
    ``new`` (with the tokens of the seats a connection that is no player
    held, now of the other colour)."""
    store = game.store
    row = None
    for conn in list(game.conns):
        if not conn.seats:
            continue
        tokens: dict[str, str] = {}
        if conn.player is None:
            if row is None:
                loaded = await store.load_async(new)
                row = None if loaded is None else loaded[0]
            if row is not None:
                for side in conn.seats:
                    token = (row.black_token, row.gold_token)[1 - side]
                    if token is not None:
                        tokens[SIDE_LETTERS[1 - side]] = token
        await game.send(conn, StartedFrame(new, tokens).to_json())
