"""Two commits' web servers side by side: moves/s at a round-trip p99
limit and server CPU per move, runs alternated (issue 38, item 5).

Checks each commit out into a temporary git worktree (``git worktree add
--detach`` under a temporary folder, removed at the end), builds its
compiled core there (``python setup.py build_ext --inplace``; the current
tree's ``.so`` is copied instead when the commit's core sources are the
same as the working tree's), gives each its own fresh PostgreSQL database
(``<db>_a`` and ``<db>_b``, made from ``--db``'s name and dropped at the
end), and runs the same load steps on both in turn: for every step (a
number of concurrent games) and every repeat, a run of A then a run of B
(A, B, A, B, ...), each a fresh ``kamisado web`` process started with
``PYTHONPATH`` on its tree and in its tree's root, driven by this tree's load client
(``bench/load.py``, as ``bench/scale.py`` runs it: one server, ``--spread
game``, two client processes).  A shared machine's load so falls on both
alike.  ``.`` names the working tree as it is (uncommitted changes
included), without a worktree.

    python bench/compare_commits.py 862dfa4 . \\
        --db postgresql://postgres@127.0.0.1:54329/kamisado_bench \\
        --games 300,325,350 --repeat 3 --seconds 15

Prints every run (moves/s, round-trip p50/p99, server CPU ms a move, the
load average), then for each step and commit the run with the median p99
(as ``bench/scale.py --repeat`` judges a step) and the median CPU per move,
then each commit's capacity (the highest moves/s of a step whose median
p99 stayed under ``--p99``) and the ratio B/A.  Run it before a change of
the web server lands: a change that costs moves/s shows here.  On a
machine that other jobs keep busy no load stays under the p99 limit;
``--games 30 --think 0`` then saturates the server and the CPU per move is
the figure to compare (docs/web.md, "Two commits side by side").
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from scale import step  # noqa: E402  (bench/ is not a package)

from kamisado.args import duration, duration_help  # noqa: E402

#: the files the compiled core is built from: a commit whose are the
#: working tree's gets the working tree's build
CORE = ["setup.py", "kamisado/engine/core", "kamisado/engine/_ckamisado.c"]


def git(*args: str, cwd: Path = ROOT) -> str:
    """Run git in ``cwd``; its output (a failure raises with git's message)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def built_so(tree: Path) -> Path | None:
    """The compiled core's extension file in a tree, if it was built."""
    found = sorted((tree / "kamisado" / "engine").glob("_ckamisado*.so"))
    return found[0] if found else None


def build(tree: Path, commit: str) -> str:
    """Give a checked-out tree its compiled core; says how."""
    mine = built_so(ROOT)
    same = subprocess.run(["git", "diff", "--quiet", commit, "--", *CORE], cwd=ROOT).returncode == 0
    if same and mine is not None:
        shutil.copy2(mine, tree / "kamisado" / "engine" / mine.name)
        return "core as the working tree's: its build copied"
    # built from a folder that holds the tree's setup.py and package but not
    # its pyproject.toml: an older commit's may be one today's setuptools
    # refuses (its project.license), and only the extension is wanted
    where = tree.parent / f"{tree.name}-build"
    where.mkdir()
    shutil.copy2(tree / "setup.py", where / "setup.py")
    (where / "kamisado").symlink_to(tree / "kamisado")
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=where,
                          capture_output=True, text=True)
    shutil.rmtree(where)
    if done.returncode or built_so(tree) is None:
        # (the build is optional for an install: a server without it would
        # run the pure-Python core, and the comparison would be meaningless)
        raise SystemExit(f"{commit}: the compiled core did not build:\n{done.stderr[-2000:]}")
    return "core built"


@contextmanager
def trees(commits: list[str]) -> Iterator[list[Path]]:
    """Each commit's tree (a temporary detached worktree; ``.``: this one),
    removed on the way out."""
    tmp = Path(tempfile.mkdtemp(prefix="kamisado-compare-"))
    made: list[Path] = []
    try:
        out = []
        for i, commit in enumerate(commits):
            if commit == ".":
                out.append(ROOT)
                print(f"{'AB'[i]}: the working tree {ROOT}", flush=True)
                continue
            sha = git("rev-parse", "--verify", commit + "^{commit}")
            tree = tmp / f"{'ab'[i]}-{sha[:10]}"
            git("worktree", "add", "--detach", str(tree), sha)
            made.append(tree)
            how = build(tree, sha)
            print(f"{'AB'[i]}: {commit} = {sha[:10]} {git('log', '-1', '--format=%s', sha)[:70]}"
                  f" ({how})", flush=True)
            out.append(tree)
        yield out
    finally:
        for tree in made:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           capture_output=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def database(url: str, suffix: str) -> str:
    """``url`` with ``_<suffix>`` added to its database's name."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not parts.scheme.startswith("postgresql") or not name:
        raise SystemExit(f"--db: a PostgreSQL URL with a database name, not {url!r}")
    return urlunsplit(parts._replace(path=f"/{name}_{suffix}"))


def fresh(url: str, drop_only: bool = False) -> None:
    """Drop the database of ``url`` and (unless ``drop_only``) make it anew."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


def run_one(args: argparse.Namespace, tree: Path, db: str, games: int) -> dict[str, float]:
    """One load run on one fresh server of ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    opts = argparse.Namespace(db=db, think=args.think, seconds=args.seconds, clients=args.clients,
                              spread="game")
    got = step(opts, 1, games, env=env, cwd=tree)
    got["load"] = os.getloadavg()[0]
    return got


def median_run(runs: list[dict[str, float]]) -> dict[str, float]:
    """The run whose p99 is the median of the runs' (as scale.py judges a step)."""
    return sorted(runs, key=lambda r: r["p99"])[len(runs) // 2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="the first commit (e.g. the base), or . for the working tree")
    ap.add_argument("b", help="the second commit, or . for the working tree")
    ap.add_argument("--db", required=True,
                    help="a PostgreSQL URL; its databases <name>_a and <name>_b are made anew and dropped")
    ap.add_argument("--games", default="300,325,350",
                    help="concurrent games of each step, rising (default 300,325,350)")
    ap.add_argument("--think", type=duration("s", 0), default=0.3,
                    help=f"mean pause before each move, in {duration_help('s')} (default 0.3 s)")
    ap.add_argument("--seconds", type=duration("s"), default=15.0,
                    help=f"measured time of each run, in {duration_help('s')} (default 15 s)")
    ap.add_argument("--clients", type=int, default=2, help="load client processes (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each step and commit (default 3)")
    ap.add_argument("--p99", type=duration("ms"), default=50.0,
                    help=f"the round trip's p99 limit, in {duration_help('ms')} (default 50 ms)")
    args = ap.parse_args()
    # a SIGTERM unwinds as Ctrl-C does: the worktrees, databases and servers go
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    loads = [int(n) for n in args.games.split(",")]
    if args.repeat < 1 or not loads or min(loads) < 1:
        ap.error("--repeat and every --games must be at least 1")
    names = [args.a, args.b]
    dbs = [database(args.db, "a"), database(args.db, "b")]
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with trees(names) as roots:
        for db in dbs:
            fresh(db)
        try:
            capacity = [0.0, 0.0]
            for games in loads:
                runs: list[list[dict[str, float]]] = [[], []]
                for r in range(args.repeat):
                    for i in (0, 1):  # A, B, A, B, ...
                        got = run_one(args, roots[i], dbs[i], games)
                        runs[i].append(got)
                        print(f"  games {games} run {r + 1} {'AB'[i]}: {got['rate']:5.0f} moves/s, "
                              f"p50 {got['p50']:.1f} / p99 {got['p99']:.1f} ms, server CPU "
                              f"{got.get('cpu', float('nan')):.2f} ms/move, errors {got['errors']:.0f},"
                              f" load {got['load']:.1f}", flush=True)
                over = 0
                for i in (0, 1):
                    med = median_run(runs[i])
                    cpus = [r["cpu"] for r in runs[i] if "cpu" in r]
                    ok = med["p99"] < args.p99 and not med["errors"]
                    if ok:
                        capacity[i] = max(capacity[i], med["rate"])
                    else:
                        over += 1
                    cpu = f", server CPU median {statistics.median(cpus):.2f} ms/move" if cpus else ""
                    print(f"games {games} {'AB'[i]} ({names[i]}): {med['rate']:.0f} moves/s at median "
                          f"p99 {med['p99']:.1f} ms{cpu}{'' if ok else '  (over the limit)'}", flush=True)
                if over == 2:
                    break  # more load only makes it worse for both
            print(f"capacity with round-trip p99 < {args.p99:.0f} ms:")
            for i in (0, 1):
                print(f"  {'AB'[i]} ({names[i]}): {capacity[i]:.0f} moves/s")
            if capacity[0]:
                print(f"  B/A: {capacity[1] / capacity[0]:.3f}")
            print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        finally:
            for db in dbs:
                fresh(db, drop_only=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
