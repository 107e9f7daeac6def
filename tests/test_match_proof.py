"""The match proved round by round (kamisado.proving): the round-level search
against a plain minimax over rounds, the store's resume, the verifier, Dask;
``perfect`` playing from the store, and the review's "proven"."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from kamisado import engine
from kamisado.engine.levels import player
from kamisado.protocol.kei import main as kei_main
from kamisado.proving.cli import main_solve_match, main_verify_match
from kamisado.proving.play import open_oracle
from kamisado.proving.proof import ProofError, export, verify
from kamisado.proving.rounds import after_round, need, prove_start
from kamisado.proving.run import solve_match
from kamisado.proving.store import ProofStore
from kamisado.proving.symmetry import twins
from kamisado.rules.board import Move
from kamisado.rules.match import FILL, OVER, Match
from kamisado.rules.position import Position
from kamisado.tui import main as play_main
from kamisado.tui.options import parse_args
from kamisado.web import main as web_main
from kamisado.web.work.worker import PROOF_STORE_ENV, computer_action, review
from tests.test_kei import Pipe, bestmove

#: Constructed match positions with few towers' moves to the goal, and who
#: wins the match from them.  Standard (3 points), Black 1 (one Sumo), Gold 2
#: (two Sumos): Gold wins the match with any round, Black with a Sumo's; an
#: ordinary tower's win makes it 2-2 and the next round (after Black's fill)
#: decides.  Single rounds (1 point).
CASES = [
    ("o+b+2yr2/2uY4/1B6/6g1/1p6/2n3P1/N+R6/1G3U1O b r 3 1 2", 1),
    ("o+1upyrg1/2R5/5U2/1b+6/8/8/7n/N+G1YP1BO g p 3 1 2", 1),
    ("obupy1gn/B7/8/5r2/8/8/8/NGRYPU1O b g 1 0 0", 0),
    ("obup1rgn/8/8/7Y/1G6/8/4y3/N1R1PUBO g r 1 0 0", 1),
    ("1bupyr1n/1O4g1/5N2/8/8/7U/o7/1GRYP1B1 g n 1 0 0", 0),
]


def minimax(p: Position, rounds: dict[str, int], seen: dict[str, int] | None = None) -> int:
    """The match's winner by plain minimax over the round's moves (longest
    steps first, positions remembered); a round after this one must decide
    the match (both sides need one point) and its winner is the single-round
    solver's."""
    seen = {} if seen is None else seen
    if p.outcome is not None:
        over, w, nxt = after_round(p)
        if over is not None:
            return over
        values = []
        for s in nxt.values():
            q = Position(s)
            assert need(q, 0) == need(q, 1) == 1, s
            if s not in rounds:
                winner = engine.solve(q, exact=False).winner
                assert winner is not None
                rounds[s] = winner
            values.append(rounds[s])
        return w if w in values else w ^ 1
    key = p.kpn()
    if key not in seen:
        seen[key] = p.turn ^ 1
        for mv in sorted(p.legal_moves, key=lambda m: -abs((m.to_square >> 3) - (m.from_square >> 3))):
            q = p.copy(stack=False)
            q.push(mv)
            if minimax(q, rounds, seen) == p.turn:
                seen[key] = p.turn
                break
    return seen[key]


def prove_serially(root: str, known: dict[str, int]) -> int:
    """The round-level search without Dask: prove the open child starts,
    then the root again, until it is proven."""
    for _ in range(20):
        r = prove_start(root, known, positions=5000)
        if r.winner is not None:
            return r.winner
        assert r.open, "a search that settles nothing must say what is open"
        for s in r.open:
            known[s] = prove_serially(s, known)
    raise AssertionError(f"not proven: {root}")


@pytest.mark.parametrize(("kpn", "winner"), CASES)
@pytest.mark.slow  # started first (tests/conftest.py)
def test_the_round_level_search_agrees_with_minimax_over_rounds(kpn: str, winner: int) -> None:
    assert minimax(Position(kpn), {}) == winner
    assert prove_serially(kpn, {}) == winner


@pytest.mark.slow  # started first (tests/conftest.py)
def test_child_starts_the_solver_settles_are_proven_inside_the_task() -> None:
    # the settling solver has a node limit: what other tests left in the shared
    # tables, or a thread of another test still solving in this process, can
    # leave a child open (CI, random order), so the test has tables of its own
    # (its winner by minimax over rounds: the test above)
    kpn, winner = CASES[0]
    with engine.Searcher().active():
        r = prove_start(kpn, {}, positions=5000)
    assert (r.winner, r.open) == (winner, [])
    assert r.needs and set(r.needs) <= set(r.settled)  # one task, no child tasks
    with engine.Searcher().active():  # as the single-round solver has them, on tables of its own
        for s, w in r.settled.items():
            assert w == engine.solve(Position(s), exact=False).winner, s


def test_a_round_the_solver_settles_needs_no_children() -> None:
    r = prove_start("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2", {})
    assert (r.winner, r.needs, r.open) == (1, [], [])


def test_a_finished_round_is_no_start() -> None:
    with pytest.raises(ValueError, match="the round is over"):
        prove_start("2u5/8/2Y1y3/1b4Un/6g1/N1p2rB1/6O1/1GRoP3 b y 3 0 0", {})


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Dask with two workers in this process (threads: quick to start on a busy machine)."""
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def proven(tmp_path_factory: pytest.TempPathFactory, client: Client) -> tuple[Path, str, int]:
    """A store in which Dask's two workers proved the first Standard case."""
    path = tmp_path_factory.mktemp("proof") / "proof.sqlite"
    root, winner = CASES[0]
    store = ProofStore(str(path))
    prog = solve_match(root, store, client, positions=5000)
    assert (prog.winner, prog.stopped) == (winner, "")
    assert prog.proven + prog.twins == store.count(3)  # each proven start with its images
    assert prog.proven >= 2  # the root and the 2-2 starts it needs
    store.close()
    return path, root, winner


def test_dask_on_two_workers_proves_a_match_and_the_store_resumes(
    proven: tuple[Path, str, int], client: Client
) -> None:
    path, root, winner = proven
    store = ProofStore(str(path))
    n = store.count(3)
    again = solve_match(root, store, client)
    assert (again.loaded, again.winner, again.tasks, again.proven) == (n, winner, 0, 0)
    got = store.get(root)
    assert got is not None and got.needs  # the child starts settled in the root's task are stored
    for s in got.needs:
        child = store.get(s)
        assert child is not None and child.winner == winner and child.plan == {s: {"points": True}}


def test_a_stopped_run_keeps_what_it_proved(tmp_path: Path, client: Client) -> None:
    store = ProofStore(str(tmp_path / "s.sqlite"))
    stop = threading.Event()
    root = Position("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0").kpn()

    def enough(prog: object) -> None:
        if store.count(3) >= 3:
            stop.set()

    prog = solve_match(root, store, client, positions=100, stop=stop, on_progress=enough)
    assert prog.stopped == "stopped" and prog.winner is None
    kept = ProofStore(str(tmp_path / "s.sqlite"))
    assert kept.count(3) == prog.proven + prog.twins >= 3  # each start with its images
    for s, w in sorted(kept.load(3).items())[:6]:  # each a whole proof, by the plain rules
        export(kept, s, tmp_path / "p.json")
        assert (verify(tmp_path / "p.json").winner, Position(s).must_move) == (w, -1)


def test_time_runs_out_by_the_injected_clock(client: Client) -> None:
    ticks = iter(range(0, 1000, 10))
    prog = solve_match(  # small tasks: one still running when it returns goes on in this process
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0", ProofStore(":memory:"), client,
        seconds=15, clock=lambda: float(next(ticks)), positions=30,
    )
    assert prog.stopped == "time" and prog.tasks <= 2 * 2


def test_export_and_verify_on_the_command_line(
    proven: tuple[Path, str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, mid_round, _ = proven
    root = next(s for s in ProofStore(str(path)).load(3) if s != mid_round)  # a round start
    out = tmp_path / "proof.json"
    assert main_solve_match(["--start", mid_round, "--store", str(path)]) == 2  # not a round start
    assert main_solve_match(["--start", root, "--store", str(path), "--export", str(out)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("resumed: ") and said[0].endswith(" round starts loaded")
    assert " wins the Standard match from this round start, " in said[1]
    assert said[2] == f"exported 1 round starts to {out}"
    assert main_verify_match([str(out)]) == 0
    assert capsys.readouterr().out.startswith("verified: ")
    assert main_verify_match([str(tmp_path)]) == 1
    assert capsys.readouterr().out.startswith("refused: ")


def test_a_proven_starts_images_are_stored_and_verify(proven: tuple[Path, str, int], tmp_path: Path) -> None:
    path, root, winner = proven
    store = ProofStore(str(path))
    for t, name in twins(root):  # stored with it by the run, their proofs mapped
        got = store.get(t)
        assert got is not None and got.winner == (winner if name == "mirror" else winner ^ 1)
        export(store, t, tmp_path / f"{name}.json")
        v = verify(tmp_path / f"{name}.json")  # the plain rules check the mapped proof
        assert (v.root, v.winner, v.starts) == (t, got.winner, len(store.get(root).needs) + 1)  # type: ignore[union-attr]
    for t, name in twins("ou+yng+rpb/8/8/8/8/8/8/B+RN+UOPGY g - 3 2 2"):  # searched apart
        assert prove_start(t, {}).winner == (1 if name == "mirror" else 0)


def _tampered(src: Path, dst: Path, change: object) -> Path:
    doc = json.loads(src.read_text())
    change(doc)  # type: ignore[operator]
    dst.write_text(json.dumps(doc))
    return dst


def test_the_verifier_refuses_a_tampered_proof(proven: tuple[Path, str, int], tmp_path: Path) -> None:
    path, root, _ = proven
    good = tmp_path / "good.json"
    export(ProofStore(str(path)), root, good)
    v = verify(good)
    assert v.starts >= 2 and v.solver_checks >= 1

    def other_winner(doc: dict) -> None:
        doc["winner"] = 0

    def drop_a_start(doc: dict) -> None:
        del doc["starts"][next(s for s in doc["starts"] if s != root)]

    def wrong_move(doc: dict) -> None:
        plan = doc["starts"][root]
        key = next(k for k, e in plan.items() if "move" in e)
        plan[key]["move"] = "a1-a1"

    def loser_picks_one_reply(doc: dict) -> None:
        plan = doc["starts"][root]
        key = next(k for k, e in plan.items() if "all" in e)
        p = Position(key)
        plan[key] = {"move": str(next(iter(p.legal_moves)))}

    for change, why in [
        (other_winner, "does not win the match for Black|a move is given for the loser|no fill is given for Gold|Gold wins the match there"),
        (drop_a_start, "which it does not hold"),
        (wrong_move, "a1-a1"),
        (loser_picks_one_reply, "a move is given for the loser"),
    ]:
        bad = _tampered(good, tmp_path / f"{change.__name__}.json", change)
        with pytest.raises(ProofError, match=why):
            verify(bad)
    with pytest.raises(ProofError, match="not a match proof"):
        verify(_tampered(good, tmp_path / "f.json", lambda d: d.update(format="x")))


def test_perfect_plays_the_proof_and_the_review_says_proven(
    proven: tuple[Path, str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, root, winner = proven
    store = ProofStore(str(path))
    plans = {k: e for p in store.proofs(3) for k, e in p.plan.items()}
    oracle = open_oracle(str(path))
    pl = player("perfect", 0, oracle)
    # every line of the proof against every reply: perfect plays the plan
    seen = {"move": 0, "all": 0, "points": 0, "ends": 0}
    todo = [Position(root)]
    while todo:
        p = todo.pop()
        assert oracle.winner(p) == winner
        if p.outcome is not None:
            over, w, nxt = after_round(p)
            seen["ends"] += 1
            if over is None:
                fill = pl.choose_fill(Match(3, start=p))
                assert store.load(3)[nxt[fill]] == winner
                if "fill" in plans.get(p.kpn(), {}):
                    assert fill == plans[p.kpn()]["fill"]
            else:
                assert over == winner
            continue
        entry = plans[p.kpn()]
        kind = next(iter(entry))
        seen[kind] += 1
        if kind == "points":  # the points solver's leaf: the proof's end
            continue
        if kind == "move":
            assert p.turn == winner and str(pl.choose_move(p)) == entry["move"]
        moves = [Move.from_str(str(entry["move"]))] if kind == "move" else list(p.legal_moves)
        assert kind == "move" or pl.choose_move(p) in moves
        for mv in moves:
            q = p.copy(stack=False)
            q.push(mv)
            todo.append(q)
    assert min(seen.values()) >= 1, seen

    def lasts(p: Position) -> tuple[int, int]:
        """(rounds, moves) perfect plays on both sides from ``p`` to the proof's end."""
        m, rounds, moves = Match(3, start=p), 0, 0
        while m.state != OVER:
            if m.state == FILL:
                m.choose_fill(pl.choose_fill(m))
                rounds += 1
            elif "points" in plans.get(m.position.kpn(), {"points": True}):
                break
            else:
                m.push_move(pl.choose_move(m.position))
                moves += 1
        return rounds, moves

    # the loser's reply keeps the match longest: the most rounds, then moves,
    # then the first in square form
    start = Position(root)
    assert start.turn != winner
    spans = {}
    for mv in start.legal_moves:
        q = start.copy(stack=False)
        q.push(mv)
        spans[str(mv)] = lasts(q)
    choice = str(pl.choose_move(start))
    assert spans[choice] == max(spans.values()) and spans[choice][0] >= 1  # into a round's end
    assert choice == min(m for m, s in spans.items() if s == spans[choice])
    # where the store does not reach, perfect plays as without it
    assert oracle.move(Position()) is None and oracle.winner(Position()) is None
    assert pl.choose_move(Position()) == player("perfect", 0).choose_move(Position())
    # the review: "proven" where the store covers the game, ?? for a thrown match
    monkeypatch.setenv(PROOF_STORE_ENV, str(path))
    after = Position(root)
    after.push_move(choice)
    line = [choice, str(pl.choose_move(after))]
    r = review(3, False, root, line, 20_000)
    won = {"before": "bg"[winner], "after": "bg"[winner]}
    assert [(m["mark"], m["match"]) for m in r["marks"]] == [("", won)] * 2
    assert computer_action(3, False, root, [], "perfect", 0) == choice
    monkeypatch.delenv(PROOF_STORE_ENV)
    assert all(m["match"] is None for m in review(3, False, root, line, 20_000)["marks"])


#: A Standard match at 1-2, Gold to move: Gold wins the match (the points
#: solver proves it at once) unless it lets Black's Sumo tower win (e8-e5).
SUMO_THREAT = "o+3yr2/b+1uY1N+2/1B6/R5g1/8/2n3P1/1p6/1G3U1O g y 3 1 2"


def test_the_review_marks_a_thrown_match_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ProofStore(str(tmp_path / "p.sqlite"))
    assert store.put(prove_start(SUMO_THREAT, {}), 3)
    monkeypatch.setenv(PROOF_STORE_ENV, str(tmp_path / "p.sqlite"))
    (m,) = review(3, False, SUMO_THREAT, ["e8-e5"], 20_000)["marks"]
    assert (m["mark"], m["match"]) == ("??", {"before": "g", "after": "b"})
    keeps = str(player("perfect", 0, open_oracle(str(tmp_path / "p.sqlite"))).choose_move(Position(SUMO_THREAT)))
    (m,) = review(3, False, SUMO_THREAT, [keeps], 20_000)["marks"]
    assert (m["mark"], m["match"]) == ("", {"before": "g", "after": "g"})


def test_the_proof_store_options_take_a_store_and_refuse_a_missing_one(
    proven: tuple[Path, str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, root, _ = proven
    choice = str(player("perfect", 0, open_oracle(str(path))).choose_move(Position(root)))
    missing = tmp_path / "none.sqlite"
    monkeypatch.setenv(PROOF_STORE_ENV, "")  # recorded, so the web_main below that sets it is undone
    monkeypatch.delenv(PROOF_STORE_ENV)
    for main, argv in [(web_main, []), (kei_main, []), (play_main, ["--level", "perfect"])]:
        with pytest.raises(SystemExit) if main is not play_main else contextlib.nullcontext():
            assert main([*argv, "--proof-store", str(missing)]) == 2
        assert f"--proof-store: no match proof store at {missing}: no such file" in capsys.readouterr().err
    assert not missing.exists() and PROOF_STORE_ENV not in os.environ
    with pytest.raises(SystemExit):
        web_main(["--proof-store", str(path), "--port", "-1"])  # refused later, on the port
    assert os.environ[PROOF_STORE_ENV] == str(path)
    assert parse_args(["--level", "perfect", "--proof-store", str(path)]).proof_store == str(path)
    engine = Pipe([sys.executable, "-m", "kamisado.protocol.kei", "--level", "perfect",
                   "--proof-store", str(path)])
    try:
        assert "option name ProofStore type string default <empty>" in engine.ask("kei", answer="keiok")
        engine.send(f"setoption name ProofStore value {missing}")  # refused: the store stays
        assert engine.until(lambda s: "error" in s)[-1].endswith(f"no match proof store at {missing}: no such file")
        engine.send(f"position kpn {root}", "go")
        assert bestmove(engine.until(lambda s: s.startswith("bestmove"))) == choice
    finally:
        engine.close()
