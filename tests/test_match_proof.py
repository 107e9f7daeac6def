"""The match proved round by round (kamisado.proving): the round-level search
against a plain minimax over rounds, the store's resume, the verifier, Dask."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from kamisado import engine
from kamisado.proving.cli import main_solve_match, main_verify_match
from kamisado.proving.proof import ProofError, export, verify
from kamisado.proving.rounds import after_round, need, prove_start
from kamisado.proving.run import solve_match
from kamisado.proving.store import ProofStore
from kamisado.proving.symmetry import twins
from kamisado.rules.position import Position

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
def test_the_round_level_search_agrees_with_minimax_over_rounds(kpn: str, winner: int) -> None:
    assert minimax(Position(kpn), {}) == winner
    assert prove_serially(kpn, {}) == winner


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
    for s, w in kept.load(3).items():  # each a whole proof, by the plain rules
        export(kept, s, tmp_path / "p.json")
        assert (verify(tmp_path / "p.json").winner, Position(s).must_move) == (w, -1)


def test_time_runs_out_by_the_injected_clock(client: Client) -> None:
    ticks = iter(range(0, 1000, 10))
    prog = solve_match(
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0", ProofStore(":memory:"), client,
        seconds=15, clock=lambda: float(next(ticks)),
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
    assert " wins the Standard match, " in said[1]
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
