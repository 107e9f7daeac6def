"""The page's match progression for offline games (static/js/offline_match.js)
against the rules (kamisado/rules/match.py), on recorded matches.

tests/data/offline_matches.json holds seeded computer matches (Marathons
with Sumo towers, a Long, a Standard, a series) as their actions.  Each is
replayed through :class:`kamisado.rules.match.Match`; the page's module is
fed, in Node, what the page's engine would tell it (each move's new KPN and
outcome) and the fills, and must give every round's start KPN after each
fill, the points and the winner exactly as Python does."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kamisado.rules.board import COLOUR_NAMES, SIDE_LETTERS
from kamisado.rules.match import FILLS, Match
from kamisado.rules.position import Position

ROOT = Path(__file__).resolve().parent.parent
DATA = json.loads((ROOT / "tests" / "data" / "offline_matches.json").read_text())["matches"]
MODULE = ROOT / "kamisado" / "web" / "static" / "js" / "offline_match.js"

#: Runs in Node: feeds each match's steps to OfflineMatch, prints what it says.
RUNNER = """
import { OfflineMatch } from "./offline_match.mjs";
import { readFileSync } from "node:fs";
const matches = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = matches.map((g) => {
  const m = new OfflineMatch({ target: g.target, series: g.series });
  const starts = [m.kpn];
  const points = [];
  for (const s of g.steps) {
    if (s.action === "left" || s.action === "right") {
      if (m.state !== "fill" || m.toAct !== s.winner) throw new Error(`no fill due at ${s.action}`);
      starts.push(m.chooseFill(s.action));
    } else {
      const before = m.rounds.length;
      m.played(s.action, s.kpn, s.outcome);
      if (m.rounds.length > before) starts.push(m.kpn);  // a series' next round
    }
    points.push([...m.points]);
  }
  const again = OfflineMatch.fromJSON(JSON.parse(JSON.stringify(m.toJSON())));
  return { starts, points, state: m.state, winner: m.winner, actions: m.actions(), again: again.toJSON() };
});
console.log(JSON.stringify(out));
"""


def replay(game: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The match replayed by the rules: the steps the page's module is fed
    (a move with what the page's engine answers for it, ``play(kpn, move)``:
    the new KPN and the outcome; a fill with the side that chooses it), and
    what the module must answer."""
    m = Match(game["target"], series=game["series"])
    steps: list[dict[str, Any]] = []
    starts = [m.position.kpn()]
    points = []
    reasons = set()
    for action in game["actions"]:
        if action in FILLS:
            steps.append({"action": action, "winner": SIDE_LETTERS[m.current_winner()]})
            m.choose_fill(action)
            starts.append(m.position.kpn())
        else:
            engine = Position(m.position.kpn())  # what the engine is given: the KPN
            engine.push_move(action)
            o = engine.outcome
            if o is not None:
                reasons.add(str(o.reason))
            steps.append({"action": action, "kpn": engine.kpn(), "outcome": None if o is None else {
                "winner": SIDE_LETTERS[o.winner], "colour": COLOUR_NAMES[o.colour], "rings": o.rings,
                "reason": str(o.reason)}})
            rounds = len(m.rounds)
            m.push_move(action)
            if len(m.rounds) > rounds:  # a series' next round
                starts.append(m.position.kpn())
        points.append(list(m.points))
    expected = {"starts": starts, "points": points, "state": str(m.state),
                "winner": None if m.winner is None else SIDE_LETTERS[m.winner], "actions": game["actions"],
                "reasons": reasons}
    return {"target": game["target"], "series": game["series"], "steps": steps}, expected


def test_the_recorded_matches_have_sumo_towers_a_deadlock_and_every_kind() -> None:
    replays = [replay(g)[1] for g in DATA]
    assert {g["target"] for g in DATA} == {3, 7, 15} and any(g["series"] for g in DATA)
    assert max(g["sumo"] for g in DATA) >= 2  # Double Sumo towers (two rings) and more
    assert all(r["state"] == "over" for r in replays)
    assert set().union(*(r["reasons"] for r in replays)) == {"goal", "deadlock"}


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_pages_match_progression_follows_the_rules(tmp_path: Path) -> None:
    shutil.copy(MODULE, tmp_path / "offline_match.mjs")
    (tmp_path / "run.mjs").write_text(RUNNER)
    fed, expected = zip(*(replay(g) for g in DATA), strict=True)
    (tmp_path / "matches.json").write_text(json.dumps(list(fed)))
    done = subprocess.run(["node", str(tmp_path / "run.mjs"), str(tmp_path / "matches.json")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert len(got) == len(DATA)
    for game, page, rules in zip(DATA, got, expected, strict=True):
        where = f"{game['target']} points, seeds {game['seeds']}"
        assert page["starts"] == rules["starts"], where  # each round's start after each fill
        assert page["points"] == rules["points"], where
        assert (page["state"], page["winner"]) == (rules["state"], rules["winner"]), where
        assert page["actions"] == rules["actions"], where
        # kept and read back (IndexedDB holds toJSON's data): the same match
        assert page["again"]["points"] == page["points"][-1] and page["again"]["state"] == page["state"]
        assert len(page["again"]["rounds"]) == game["rounds"]
        assert sum(len(r["moves"]) for r in page["again"]["rounds"]) == len(
            [a for a in game["actions"] if a not in FILLS])


def test_a_wrong_fill_or_target_is_refused_in_the_page(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs Node")
    shutil.copy(MODULE, tmp_path / "offline_match.mjs")
    script = """
import { OfflineMatch } from "./offline_match.mjs";
const out = [];
for (const f of [() => new OfflineMatch({ target: 5 }), () => new OfflineMatch({ target: 3 }).chooseFill("left"),
                 () => { const m = new OfflineMatch({ target: 3 }); m.state = "fill";
                         m.current.outcome = { winner: "b", colour: "brown", rings: 0 }; m.nextRoundStart("up"); }]) {
  try { f(); out.push(null); } catch (e) { out.push(String(e.message)); }
}
console.log(JSON.stringify(out));
"""
    (tmp_path / "bad.mjs").write_text(script)
    done = subprocess.run(["node", str(tmp_path / "bad.mjs")], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        "expected a target of 1, 3, 7 or 15, found 5",
        "left: a fill is chosen only after a round of an unfinished match has ended",
        "expected a fill direction 'left' or 'right', found up",
    ]
