"""The store's calls a player's pages and ratings use: ratings, their
history, results and the leaderboard, rating a game, the lists of games,
and the games moved to an account (a base of
:class:`kamisado.web.store.storage.Store`, on its database).

>>> from kamisado.web.store.storage import Store
>>> store = Store("sqlite://")
>>> store.ratings_of([], "blitz"), store.games_of("nobody")
({}, [])
>>> store.close()
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from kamisado.rules.match import OVER
from kamisado.web.basics.ratings import PROVISIONAL_RD, Rating, rate_game
from kamisado.web.store.database import Database, IntegrityErrors
from kamisado.web.store.schema import GameRow, games, players, rating_history, ratings

__all__ = ["PlayerCalls"]


class PlayerCalls:
    """The calls of a :class:`~kamisado.web.store.storage.Store` about
    players: their ratings and results, and the lists of games."""

    _db: Database

    # -- ratings ---------------------------------------------------------------

    def bots_among(self, player_ids: list[str]) -> set[str]:
        """Which of these players are bot accounts (issue 42: shown BOT)."""
        if not player_ids:
            return set()
        with self._db.read() as tx:
            rows = tx.run(sa.select(players.c.id).where(players.c.id.in_(player_ids), players.c.bot.is_(True))).rows
        return {r[0] for r in rows}

    def ratings_of(self, player_ids: list[str], speed: str) -> dict[str, Rating]:
        """The ratings of some players for a speed (a player with no rated
        game yet is not in the answer: it starts at ``Rating()``)."""
        if not player_ids:
            return {}
        with self._db.read() as tx:
            rows = tx.run(
                ratings.select().where(ratings.c.player.in_(player_ids), ratings.c.speed == speed)
            ).mappings()
        return {r["player"]: Rating(r["rating"], r["rd"], r["vol"], r["games"]) for r in rows}

    def player_ratings(self, player: str) -> dict[str, Rating]:
        """A player's rating for each speed it has played rated games at."""
        with self._db.read() as tx:
            rows = tx.run(ratings.select().where(ratings.c.player == player)).mappings()
        return {r["speed"]: Rating(r["rating"], r["rd"], r["vol"], r["games"]) for r in rows}

    def rating_history(self, player: str, limit: int = 500) -> list[dict[str, Any]]:
        """A player's rating after each rated game, oldest first:
        ``{"speed", "at", "rating", "rd", "change", "game"}``."""
        with self._db.read() as tx:
            rows = tx.run(
                rating_history.select()
                .where(rating_history.c.player == player)
                .order_by(rating_history.c.at.desc())
                .limit(limit)
            ).mappings()
        out = [
            {"speed": r["speed"], "at": r["at"], "rating": r["rating"], "rd": r["rd"],
             "change": r["change"], "game": r["game_id"]}
            for r in rows
        ]
        return out[::-1]

    def results(self, player: str) -> dict[str, dict[str, int]]:
        """A player's rated games won and lost per speed (a rated game's
        winner gains rating, its loser loses some): ``{speed: {"won",
        "lost"}}``, only the speeds it has played rated games at."""
        won = sa.case((rating_history.c.change > 0, 1), else_=0)
        lost = sa.case((rating_history.c.change > 0, 0), else_=1)
        with self._db.read() as tx:
            rows = tx.run(
                sa.select(rating_history.c.speed, sa.func.sum(won), sa.func.sum(lost))
                .where(rating_history.c.player == player)
                .group_by(rating_history.c.speed)
            ).rows
        return {speed: {"won": int(w or 0), "lost": int(lo or 0)} for speed, w, lo in rows}

    def leaderboard(self, speed: str, since: float, limit: int = 50,
                    provisional: bool = False) -> list[dict[str, Any]]:
        """The best ``limit`` players at ``speed`` who played a rated game
        there at or after ``since`` (seconds), highest rating first; a
        provisional rating is left out (as lichess does), and so is an
        account a moderator closed.  ``provisional``: only the players
        with a provisional rating instead (the page lists them below, marked)."""
        active = (
            sa.select(rating_history.c.player)
            .where(rating_history.c.speed == speed, rating_history.c.at >= since)
            .distinct()
        )
        with self._db.read() as tx:
            rows = tx.run(
                sa.select(ratings.c.player, players.c.name, ratings.c.rating, ratings.c.rd, ratings.c.games,
                          players.c.bot)
                .select_from(ratings.join(players, players.c.id == ratings.c.player))
                .where(ratings.c.speed == speed,
                       ratings.c.rd > PROVISIONAL_RD if provisional else ratings.c.rd <= PROVISIONAL_RD,
                       ratings.c.player.in_(active), players.c.closed.is_(None))
                .order_by(ratings.c.rating.desc(), ratings.c.player)
                .limit(limit)
            ).mappings()
        return [dict(r) for r in rows]

    def rating_changes(self, game_id: str) -> dict[str, tuple[float, float]]:
        """How a rated game changed its players' ratings: player -> (rating
        after, change); empty until it was rated."""
        with self._db.read() as tx:
            rows = tx.run(rating_history.select().where(rating_history.c.game_id == game_id)).mappings()
        return {r["player"]: (r["rating"], r["change"]) for r in rows}

    def rate(self, game_id: str, speed: str, winner: str, loser: str) -> bool:
        """Update two players' ratings for a rated game ``winner`` won, in one
        transaction, at most once per game: the history rows' key
        ``(player, game_id)`` refuses a second update (then nothing changes
        and ``False`` is returned)."""
        now = time.time()
        try:
            with self._db.write() as tx:
                rows = tx.run(
                    ratings.select().where(
                        ratings.c.player.in_([winner, loser]), ratings.c.speed == speed
                    ).with_for_update()
                ).mappings()
                before = {r["player"]: Rating(r["rating"], r["rd"], r["vol"], r["games"]) for r in rows}
                old_w, old_l = before.get(winner, Rating()), before.get(loser, Rating())
                new_w, new_l = rate_game(old_w, old_l)
                for player, old, new in ((winner, old_w, new_w), (loser, old_l, new_l)):
                    tx.run(rating_history.insert().values(
                        player=player, game_id=game_id, speed=speed, at=now,
                        rating=new.rating, rd=new.rd, change=new.rating - old.rating,
                    ))
                    values = {"rating": new.rating, "rd": new.rd, "vol": new.vol,
                              "games": new.games, "updated": now}
                    if player in before:
                        tx.run(ratings.update().where(
                            ratings.c.player == player, ratings.c.speed == speed).values(**values))
                    else:
                        tx.run(ratings.insert().values(player=player, speed=speed, **values))
        except IntegrityErrors:
            return False  # rated already (by this server or another)
        return True

    # -- lists -----------------------------------------------------------------

    def _rows(self, query: sa.Select[Any]) -> list[GameRow]:
        with self._db.read() as tx:
            return [GameRow(**r) for r in tx.run(query).mappings()]

    def games_public(self, player: str, limit: int = 50) -> list[GameRow]:
        """A player's online games (what its player page shows), newest first."""
        return self._rows(
            games.select()
            .where(sa.or_(games.c.black_player == player, games.c.gold_player == player),
                   games.c.online.is_(True))
            .order_by(games.c.updated.desc())
            .limit(limit)
        )

    def games_of(self, player: str, limit: int = 200) -> list[GameRow]:
        """The games a player holds a seat of, most recently updated first."""
        return self._rows(
            games.select()
            .where(sa.or_(games.c.black_player == player, games.c.gold_player == player))
            .order_by(games.c.updated.desc())
            .limit(limit)
        )

    def live(self, limit: int = 50) -> list[GameRow]:
        """Ongoing games (not over), most recently updated first."""
        return self._rows(
            games.select().where(games.c.state != OVER).order_by(games.c.updated.desc()).limit(limit)
        )

    def move_games(self, old: str, new: str) -> int:
        """Give every seat ``old`` holds to ``new`` (a player signing in
        brings the games played anonymously); returns the seats moved."""
        moved = 0
        with self._db.write() as tx:
            for col in (games.c.black_player, games.c.gold_player):
                moved += tx.run(games.update().where(col == old).values({col.name: new})).rowcount
        return moved
