"""The scripts in tools/ that make tracked files: ``--help`` answers, nothing
is written without ``--write``, the default check finds stale files (exit 1)
and current ones (exit 0), and the generated files in this checkout are
current."""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
#: Every script in tools/ that makes tracked files, and those files.
MAKERS = {
    "export_glyphs.py": ["kamisado/data/glyphs.json"],
    "make_pictures.py": ["docs/pictures/board.svg", "docs/pictures/match.gif"],
    "make_charts.py": ["docs/pictures/evaluation.svg", "docs/pictures/elo.svg"],
    "make_icons.py": [f"kamisado/web/static/icons/{n}" for n in ("icon-192.png", "icon-512.png", "maskable-512.png")],
    "make_book.py": ["kamisado/data/book.txt"],
    "make_equity.py": ["kamisado/data/equity.json"],
    "make_puzzles.py": ["kamisado/data/puzzles.json"],
    "make_puzzle_set.py": ["kamisado/data/puzzle_set.json"],
    "screenshots.py": [str(p.relative_to(ROOT)) for p in (ROOT / "docs/screenshots").glob("*.png")],
    # its check needs clang for wasm32-wasi: .ci/run runs it
    "build_wasm.py": ["kamisado/web/static/engine/kamisado.wasm"],
    # its check needs npm ci (node_modules): .ci/run runs it
    "vendor_apidocs.py": [f"kamisado/web/static/apidocs/{n}" for n in ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE")],
}


def tool(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, timeout=300, env=env)


def stamps(paths: list[str]) -> dict[str, tuple[int, bytes]]:
    return {p: ((ROOT / p).stat().st_mtime_ns, (ROOT / p).read_bytes()) for p in paths}


@pytest.mark.parametrize("script", sorted(MAKERS))
def test_help_answers_and_writes_nothing(script: str) -> None:
    before = stamps(MAKERS[script])
    result = tool(TOOLS / script, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: tools/{script}")
    assert "--write" in result.stdout and "--check" in result.stdout
    assert stamps(MAKERS[script]) == before


@pytest.mark.parametrize("script", ["make_book.py", "make_equity.py", "make_puzzles.py",
                                    "make_puzzle_set.py", "screenshots.py"])
def test_write_and_out_exclude_each_other(script: str, tmp_path: Path) -> None:
    result = tool(TOOLS / script, "--write", "--out", str(tmp_path / "x"))
    assert result.returncode == 2
    assert "not allowed with argument" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_tune_weights_answers_help_and_writes_no_tracked_file() -> None:
    # its results go to standard output, or to the --out / --data files named
    result = tool(TOOLS / "tune_weights.py", "--help")
    assert result.returncode == 0 and "--out" in result.stdout


@pytest.mark.parametrize("script", ["export_glyphs.py", "make_pictures.py", "make_charts.py", "make_icons.py"])
def test_the_generated_files_are_current(script: str) -> None:
    # what .ci/run checks: the tracked files are what the script makes now
    before = stamps(MAKERS[script])
    result = tool(TOOLS / script)
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines() == [f"{p}: current" for p in MAKERS[script]]
    assert stamps(MAKERS[script]) == before


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    """A copy of the repository's parts the picture and glyph scripts read:
    their own files are made against it (its tools/ is the scripts')."""
    for rel in ("tools/generated.py", "tools/export_glyphs.py", "tools/make_pictures.py",
                "kamisado/web/static/js/glyphs.js", "kamisado/web/static/js/i18n.js",
                "kamisado/data/glyphs.json", "tests/data/rulebook.json",
                "docs/pictures/board.svg", "docs/pictures/match.gif"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    yield tmp_path


def test_a_stale_file_is_shown_and_kept_until_write(tree: Path) -> None:
    glyphs = tree / "kamisado/data/glyphs.json"
    current = glyphs.read_bytes()
    stale = current.replace(b'"brown"', b'"umber"', 1)
    glyphs.write_bytes(stale)
    script = tree / "tools/export_glyphs.py"
    result = tool(script)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "kamisado/data/glyphs.json: stale"
    assert any('"umber"' in line for line in lines if line.strip().startswith("-"))
    assert any('"brown"' in line for line in lines if line.strip().startswith("+"))
    assert lines[-1] == "1 of 1 files stale: run python3 tools/export_glyphs.py --write"
    assert glyphs.read_bytes() == stale  # a check writes nothing
    result = tool(script, "--write")
    assert result.returncode == 0
    assert result.stdout.startswith("kamisado/data/glyphs.json: written")
    assert glyphs.read_bytes() == current
    assert tool(script, "--check").stdout == "kamisado/data/glyphs.json: current\n"


def test_a_missing_or_changed_picture_is_stale(tree: Path) -> None:
    board, gif = tree / "docs/pictures/board.svg", tree / "docs/pictures/match.gif"
    tracked = gif.read_bytes()
    board.write_text(board.read_text().replace('width="480"', 'width="481"', 1))
    gif.unlink()
    script = tree / "tools/make_pictures.py"
    result = tool(script)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "docs/pictures/board.svg: stale",
        "    line 1, column 50:",
        result.stdout.splitlines()[2],
        result.stdout.splitlines()[3],
        "docs/pictures/match.gif: stale",
        "    not there",
        "2 of 2 files stale: run python3 tools/make_pictures.py --write",
    ]
    assert 'width="481"' in result.stdout and not gif.exists()
    assert tool(script, "--write").returncode == 0
    assert gif.read_bytes() == tracked and board.read_bytes() == (ROOT / "docs/pictures/board.svg").read_bytes()
    assert tool(script).returncode == 0


# -- the comparisons -------------------------------------------------------------


def generated() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generated", TOOLS / "generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_differences_point_at_the_first_change_of_a_long_line() -> None:
    g = generated()
    old = b"<svg>" + b"x" * 500 + b'<circle data-score="122"/>' + b"y" * 500 + b"</svg>\n"
    new = old.replace(b"122", b"173")
    lines = g.differences(Path("e.svg"), old, new)
    assert lines[0] == "line 1, column 527:"  # where "122" and "173" part
    assert '"122"' in lines[1] and '"173"' in lines[2]
    assert all(len(line) < 140 for line in lines)  # windows, not 1,000 characters
    assert g.differences(Path("a.txt"), b"a\nb\n", b"a\nb\nc\n") == [
        "lines 3-2 (0 tracked, 1 made):", "  + c"]


def png(picture: object) -> bytes:
    from PIL import Image

    assert isinstance(picture, Image.Image)
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def test_pictures_compare_by_pixels_with_a_tolerance() -> None:
    from PIL import Image

    g = generated()
    base = Image.new("RGB", (100, 100), (200, 180, 150))
    shade = base.copy()
    shade.putpixel((5, 5), (210, 180, 150))  # a faint anti-aliasing shade
    dot = base.copy()
    dot.putpixel((50, 50), (0, 0, 0))
    word = base.copy()
    word.paste((0, 0, 0), (10, 10, 40, 20))  # 300 pixels: a changed word
    same = g.same_pictures(threshold=24, allowed=0.0001)
    path = Path("view.png")
    assert same(path, png(base), png(base)) is None
    assert same(path, png(base), png(shade)) is None
    assert same(path, png(base), png(dot)) is None  # one pixel in 10,000
    assert same(path, png(base), png(word)) == ["300 pixels differ, within (10, 10, 40, 20)"]
    exact = g.same_pictures()
    assert exact(path, png(base), png(shade)) == ["1 pixels differ, within (5, 5, 6, 6)"]
    assert exact(path, png(base), png(base.resize((50, 50)))) is not None
    # the parts that show the clock are left out
    clock = g.same_pictures(ignored={"view.png": [(10, 10, 40, 20)]})
    assert clock(path, png(base), png(word)) is None
    assert clock(Path("other.png"), png(base), png(word)) is not None


def test_analysis_on_a_node_budget_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    # what tools/screenshots.py sets for the server's engine processes
    from kamisado.rules.board import START_KPN, Move
    from kamisado.rules.match import Match
    from kamisado.web.work import worker

    match = Match(1)
    for move in ("a1-a4", "e8-e5"):
        match.push_move(Move.from_str(move))
    monkeypatch.setenv(worker.ANALYSIS_NODES_ENV, "20000")
    first = worker.analyse(match.position.kpn(), 400, lines=3)
    worker.analyse(START_KPN, 400, lines=3)  # tables filled by another position
    assert worker.analyse(match.position.kpn(), 400, lines=3) == first
    assert first["solved"]["distance"] == 1 and len(first["lines"]) == 3
