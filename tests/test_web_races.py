"""No races in the web server (issue 38, item 3): a join and an eviction, a
pairing whose process died, two starts of one puzzle at once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from kamisado.web import game as web_game
from kamisado.web import games as web_games
from kamisado.web.game import Conn, Game
from kamisado.web.messages import CreateMsg, JoinMsg, MoveMsg
from kamisado.web.storage import Store

# -- (a) a game is not let go of while a join of it is under way -------------------------


class Frames:
    """What a connection was sent (its frames, parsed)."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.got.append(json.loads(text))

    def states(self) -> list[dict[str, Any]]:
        return [f for f in self.got if f["type"] == "state"]


def test_a_game_is_not_evicted_while_a_spectator_joins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(str(tmp_path / "g.db"))
    hub = web_games.Hub(store, None)
    real_seats_for = web_game.seats_for
    paused = asyncio.Event()  # the spectator's join is inside seats_for
    go_on = asyncio.Event()

    async def seats_for(game: Game, conn: Conn, token: str | None) -> Any:
        if conn.player == "spectator":
            paused.set()
            await go_on.wait()
        return await real_seats_for(game, conn, token)

    monkeypatch.setattr(web_game, "seats_for", seats_for)

    async def run() -> None:
        game, tokens = await hub.create(CreateMsg(online=True))
        gid = game.row.id
        black_frames, watcher_frames = Frames(), Frames()
        black = Conn(black_frames.send_text, player="pb")
        await hub.join(black, JoinMsg(gid, tokens["b"]))
        watcher = Conn(watcher_frames.send_text, player="spectator")
        joining = asyncio.get_running_loop().create_task(hub.join(watcher, JoinMsg(gid)))
        await asyncio.wait_for(paused.wait(), 30)
        held = hub.games[gid]
        assert held.joining == 1 and not held.conns - {black}
        hub.leave(black)  # the only connection goes: the race's eviction
        go_on.set()
        await asyncio.wait_for(joining, 30)
        assert watcher.game is held and hub.games[gid] is held and held.joining == 0
        back = Conn(black_frames.send_text, player="pb")  # the player comes back: the same object
        await hub.join(back, JoinMsg(gid, tokens["b"]))
        assert back.game is held and hub.games[gid] is held
        before = len(watcher_frames.states())
        move = str(held.match.legal_moves()[0])
        await held.act(back, MoveMsg(move, held.seq))
        later = watcher_frames.states()[before:]
        assert later and later[-1]["seq"] == 1, "the spectator missed the move"
        hub.leave(back)
        hub.leave(watcher)
        assert gid not in hub.games  # nobody uses it any more: let go of
        await hub.close()

    try:
        asyncio.run(run())
    finally:
        store.close()
