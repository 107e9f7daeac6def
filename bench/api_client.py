"""Moves a second through ``kamisado.api.Client`` against one ``kamisado web``
process (issue 42: "moves/s a bot client sustains against one process").

Starts ``kamisado web`` on a fresh SQLite file (limits off: both players are
127.0.0.1), signs up a person and a bot (tokens with every scope), and plays
``--games`` single-round games, ``--parallel`` at a time: the person
challenges the bot over HTTP, the bot accepts, and each side runs the
client's game stream (``Client.bots.stream_game_state``) and answers with
``Client.bots.make_move(..., seq=)`` (the first legal move; no engine, so
what is measured is the client and the site).  Prints the moves per second
over the run and each move's round trip (the POST alone): p50, p99, max.

    python bench/api_client.py                 # 20 games, 2 at a time
    python bench/api_client.py --games 40 --parallel 4
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import pct, start_server  # noqa: E402
from kamisado.api import ApiError, Client  # noqa: E402

SCOPES = ["read", "play", "challenge", "bot"]


def token_of(url: str, name: str) -> str:
    with httpx2.Client(base_url=url, headers={"Origin": url.rstrip("/")}, timeout=30) as page:
        page.get("/api/me")
        page.post("/api/signup", json={"account": name, "password": "a long password"}).raise_for_status()
        r = page.post("/api/tokens", json={"name": "bench", "scopes": SCOPES})
        r.raise_for_status()
        return str(r.json()["token"])


def play(client: Client, game_id: str, trips: list[float]) -> int:
    """One side of a game to its end: the moves it made."""
    moves = 0
    seat = None
    for line in client.bots.stream_game_state(game_id):
        state = line["state"] if line["type"] == "gameFull" else line
        if line["type"] == "gameFull":
            seat = line["seat"]
        if state["status"] == "finished":
            return moves
        if state["to_act"] == seat:
            sent = time.perf_counter()
            try:
                if state["awaiting"] == "fill":
                    client.bots.fill(game_id, "left", seq=state["seq"])
                else:
                    client.bots.make_move(game_id, state["legal"][0], seq=state["seq"])
                    moves += 1
            except ApiError as e:
                if e.code != "stale":
                    raise
            trips.append(time.perf_counter() - sent)
    return moves


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--parallel", type=int, default=2)
    args = p.parse_args()
    proc, url = start_server(1, quiet=True)
    try:
        pairs = []
        for i in range(args.parallel):
            person, bot = Client(url, token_of(url, f"ann{i}")), Client(url, token_of(url, f"robo{i}"))
            bot_id = bot.bots.upgrade_to_bot_account()["id"]
            pairs.append((person, bot, bot_id))
        trips: list[float] = []
        moves = [0]
        lock = threading.Lock()

        def side_of(client: Client, game_id: str) -> None:
            made = play(client, game_id, trips)
            with lock:
                moves[0] += made

        def games(person: Client, bot: Client, bot_id: str, n: int) -> None:
            events = bot.bots.stream_incoming_events()  # online while open
            for _ in range(n):
                made = person.challenges.create(bot_id, target=1, color="black")
                game_id = bot.challenges.accept(made["id"])
                side = threading.Thread(target=side_of, args=(person, game_id))
                side.start()
                side_of(bot, game_id)
                side.join()
            events.close()

        start = time.perf_counter()
        runners = [threading.Thread(target=games, args=(*pair, args.games // args.parallel)) for pair in pairs]
        for t in runners:
            t.start()
        for t in runners:
            t.join()
        took = time.perf_counter() - start
        print(f"{moves[0]} moves in {args.games // args.parallel * args.parallel} games, {args.parallel} at a time:"
              f" {moves[0] / took:.0f} moves/s; a move's POST p50 {pct(trips, 50):.1f} ms,"
              f" p99 {pct(trips, 99):.1f} ms, max {max(trips) * 1000:.1f} ms")
        for person, bot, _ in pairs:
            person.close()
            bot.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
